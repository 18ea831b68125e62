/*
 * model_mj.c - Morgan & Jarvis's examples (the selection example of
 * docs/views.md, "Selection"; the compressed-stack example of their paper,
 * "Profiling large-scale lazy functional programs") and the average-time
 * trap (README.md, "Why: the average-time trap"), on hand-built contexts.
 *
 * Compressed stacks (M&J write the top first; a history lists the bottom
 * first).  `a` runs 3, calls `b` which runs 7, which calls `a` which runs 1:
 *
 *   [a]          T 3     stack ⟨a⟩
 *   [a] [b]      T 7     stack ⟨b,a⟩
 *    a  [b] [a]  T 1     stack ⟨a,b⟩   (a unmarked: A3)
 *
 *   COST a = 4, b = 7;  INHERITED a = 11, b = 8 (a counted once, not 12)
 *
 * Selection, everything selected:
 *
 *   [a]          T 20    ⟨a⟩
 *   [a] [b]      T 10    ⟨b,a⟩
 *   [a] [c]      T 10    ⟨c,a⟩
 *   [a] [b] [c]  T 50    ⟨c,b,a⟩
 *
 *   COST a = 20, b = 10, c = 60;  INHERITED a = 90, b = 60, c = 60
 *
 * The trap: work(n) costs n.  f calls work(1000) twice, g calls work(1)
 * eight times.  gprof would give g 80 % of work's time; the arcs must give
 * f 2000 of 2008 ticks (99.6 %).
 */
#include "model_fixture.h"

static void compressed(void)
{
	static struct fixture f;
	struct model m;
	fx_init(&f, 1);
	fx_ctx(&f, "[a]", 1, 0, 3);
	fx_ctx(&f, "[a] [b]", 1, 0, 7);
	fx_ctx(&f, "a [b] [a]", 1, 0, 1);
	CHECK(fx_build(&m, &f) == 0, "compressed-stack example builds");
	CHECK_EQ_U(fx_fn(&m, "a")->self, 4, "COST(a)");
	CHECK_EQ_U(fx_fn(&m, "b")->self, 7, "COST(b)");
	CHECK_EQ_U(fx_fn(&m, "a")->inherited, 11, "INHERITED(a) counts a once");
	CHECK_EQ_U(fx_fn(&m, "b")->inherited, 8, "INHERITED(b)");
	/* Tree: ⟨a⟩ 3 with child ⟨b,a⟩ 7; ⟨a,b⟩ hangs under an intermediate b. */
	CHECK(fx_node(&m, "a") && fx_node(&m, "a")->inherited == 10, "tree a: 3 + 7");
	CHECK(fx_node(&m, "b") && fx_node(&m, "b")->entries == 0 &&
		      fx_node(&m, "b")->inherited == 1,
	      "tree b: intermediate stack, 0 entries");
	CHECK(fx_node(&m, "b/a") && fx_node(&m, "b/a")->individual == 1, "tree b/a: 1");
	/* The arc b→a ran (a [b] [a]); a→b's outgoing view excludes the
	 * re-entered a's own time, the incoming view includes it. */
	const struct model_arc *ab = fx_arc(&m, "a", "b");
	CHECK(ab && ab->self_out == 7 && ab->child_out == 0 && ab->self_in == 7 &&
		      ab->child_in == 1,
	      "arc a->b: out 7/0, in 7/1 (mutual recursion: views differ)");
	fx_check_identities(&m, "compressed stacks");
	model_free(&m);
}

static void selection_all(void)
{
	static struct fixture f;
	struct model m;
	fx_init(&f, 1);
	fx_ctx(&f, "[a]", 1, 0, 20);
	fx_ctx(&f, "[a] [b]", 1, 0, 10);
	fx_ctx(&f, "[a] [c]", 1, 0, 10);
	fx_ctx(&f, "[a] [b] [c]", 1, 0, 50);
	CHECK(fx_build(&m, &f) == 0, "selection example builds");
	CHECK_EQ_U(fx_fn(&m, "a")->self, 20, "COST(a)");
	CHECK_EQ_U(fx_fn(&m, "b")->self, 10, "COST(b)");
	CHECK_EQ_U(fx_fn(&m, "c")->self, 60, "COST(c)");
	CHECK_EQ_U(fx_fn(&m, "a")->inherited, 90, "INHERITED(a)");
	CHECK_EQ_U(fx_fn(&m, "b")->inherited, 60, "INHERITED(b)");
	CHECK_EQ_U(fx_fn(&m, "c")->inherited, 60, "INHERITED(c)");
	CHECK_EQ_U(fx_arc(&m, "", "a")->calls, 1, "a is a thread root: one spontaneous call");
	fx_check_identities(&m, "selection");
	fx_check_in_equals_out(&m, "selection");
	model_free(&m);
}

static void trap(void)
{
	static struct fixture f;
	struct model m;
	fx_init(&f, 1000000);
	fx_ctx(&f, "[main]", 1, 0, 1);
	fx_ctx(&f, "[main] [f]", 1, 0, 0);
	fx_ctx(&f, "[main] [g]", 1, 0, 0);
	fx_ctx(&f, "[main] [f] [work]", 2, 0, 2000);
	fx_ctx(&f, "[main] [g] [work]", 8, 0, 8);
	CHECK(fx_build(&m, &f) == 0, "trap example builds");
	const struct model_arc *fw = fx_arc(&m, "f", "work"), *gw = fx_arc(&m, "g", "work");
	CHECK(fw && gw && fw->calls == 2 && gw->calls == 8, "call counts 2 and 8");
	double share = 100.0 * (double)fw->self_in / (double)fx_fn(&m, "work")->self;
	CHECK_NEAR(share, 99.6, 0.05, "f is charged 99.6 % of work's time");
	CHECK_EQ_U(fx_fn(&m, "f")->inherited, 2000, "inherited(f)");
	CHECK_EQ_U(fx_fn(&m, "g")->inherited, 8, "inherited(g)");
	fx_check_identities(&m, "trap");
	fx_check_in_equals_out(&m, "trap");
	model_free(&m);
}

int main(void)
{
	compressed();
	selection_all();
	trap();
	return check_failures != 0;
}
