/*
 * model_views.c - the views after the run (model/view.h) on hand-built
 * contexts: selection, focus, callers, cycles, pruning, hot path, threads.
 *
 * Morgan & Jarvis's selection example (docs/views.md, "Selection"),
 * compressed stacks top first:  ⟨b,a⟩ 10, ⟨a⟩ 20, ⟨c,a⟩ 10, ⟨c,b,a⟩ 50.
 *
 *   all selected:     COST a 20, b 10, c 60;  INHERITED a 90, b 60, c 60
 *   b deselected:     COST a 30, c 60;        INHERITED a 90, c 60
 *                     (the view's contexts: [a] 30, [a] [c] 60)
 *   only a selected:  COST a 90
 *
 * Spivey's contexts as in model_spivey.c (E, R, T):
 *
 *   C0  <root>                      0 0   5
 *   C1  [main] [P]                  1 2  20     C5  [main] P Q [R] [P] [Q]  1 0 60
 *   C2  [main] [P] [Q]              1 0  30     C6  [main] P R [P] [Q] [R]  1 0 70
 *   C3  [main] [P] [Q] [R]          1 0  40     C7  [main] P [Q] [R] [P] [S] 1 3 80
 *   C4  [main] P [Q] [R] [P]        2 0  50     and [main] 1 0 10
 *
 *   cycles:   one, P → Q → R (closed by C4, C5, C6: entries 2+1+1 = 4),
 *             in progress in C4..C7: time 260
 *   callers(Q):  Q ← P ← main                        (C2: 1 call, 30)
 *                Q ← P ← R ← Q ← … ← P ← main        (C5: 1 call, 60)
 *   focus P:  [P] 20+50, [P][Q] 30+60, [P][Q][R] 40+70, [P][S] 80: total 350
 *   Q deselected: COST main 10, P 160, R 110, S 80; one cycle P → R (3, 260)
 */
#include "model_fixture.h"

static void build_mj(struct fixture *f)
{
	fx_init(f, 1);
	fx_ctx(f, "[a]", 1, 0, 20);
	fx_ctx(f, "[a] [b]", 1, 0, 10);
	fx_ctx(f, "[a] [c]", 1, 0, 10);
	fx_ctx(f, "[a] [b] [c]", 1, 0, 50);
}

static void mj_all(void)
{
	static struct fixture f;
	struct viewed w;
	build_mj(&f);
	model_view_opts_init(&w.o);
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "M&J: the empty view builds");
	CHECK(w.vm.nctx == 4 && w.v.selected == NULL, "empty view: the base's 4 contexts");
	CHECK_EQ_U(fx_fn(&w.vm, "a")->self, 20, "empty view: COST(a)");
	CHECK_EQ_U(fx_fn(&w.vm, "c")->self, 60, "empty view: COST(c)");
	CHECK_EQ_U(fx_fn(&w.vm, "b")->inherited, 60, "empty view: INHERITED(b)");
	fx_check_identities(&w.vm, "empty view");
	view_free(&w);
}

static void mj_deselect_b(void)
{
	static struct fixture f;
	struct viewed w;
	build_mj(&f);
	model_view_opts_init(&w.o);
	model_patterns_add(&w.o.deselect, "b");
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "M&J without b builds");
	CHECK_EQ_U(fx_fn(&w.vm, "a")->self, 30, "b deselected: COST(a) = 20 + 10");
	CHECK_EQ_U(fx_fn(&w.vm, "c")->self, 60, "b deselected: COST(c)");
	CHECK_EQ_U(fx_fn(&w.vm, "a")->inherited, 90, "b deselected: INHERITED(a)");
	CHECK_EQ_U(fx_fn(&w.vm, "c")->inherited, 60, "b deselected: INHERITED(c)");
	CHECK(!fx_fn(&w.vm, "b")->seen && w.vm.nlisted == 2, "b deselected: b is not listed");
	CHECK_EQ_U(fx_fn(&w.vm, "b")->calls, 0, "b deselected: b's calls vanish");
	CHECK_EQ_U(fx_fn(&w.vm, "c")->calls, 2, "b deselected: c still called twice");
	CHECK_EQ_U(fx_fn(&w.vm, "a")->calls, 1, "b deselected: a called once");
	CHECK(w.vm.nctx == 2, "b deselected: two contexts, [a] and [a] [c]");
	CHECK(fx_node(&w.vm, "a") && fx_node(&w.vm, "a")->individual == 30 &&
		      fx_node(&w.vm, "a/c") && fx_node(&w.vm, "a/c")->individual == 60 &&
		      fx_node(&w.vm, "a/c")->entries == 2,
	      "b deselected: tree a 30, a/c 60 with 2 entries");
	const struct model_arc *ac = fx_arc(&w.vm, "a", "c");
	CHECK(ac && ac->calls == 2 && ac->self_in == 60 && ac->self_out == 60 &&
		      fx_arc(&w.vm, "a", "b") == NULL,
	      "b deselected: arc a->c carries b's call and time; no arc a->b");
	CHECK_EQ_U(w.vm.total_time, 90, "b deselected: total unchanged");
	fx_check_identities(&w.vm, "b deselected");
	fx_check_in_equals_out(&w.vm, "b deselected");
	view_free(&w);
}

static void mj_select_only_a(void)
{
	static struct fixture f;
	struct viewed w;
	build_mj(&f);
	model_view_opts_init(&w.o);
	model_patterns_add(&w.o.select, "a");
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "M&J, only a selected, builds");
	CHECK_EQ_U(fx_fn(&w.vm, "a")->self, 90, "only a: all time on a");
	CHECK(w.vm.nlisted == 1 && w.vm.nctx == 1, "only a: one function, one context");
	fx_check_identities(&w.vm, "only a");
	view_free(&w);

	/* A root cannot be deselected: a stays, b's and c's time comes to it. */
	model_view_opts_init(&w.o);
	model_patterns_add(&w.o.deselect, "*");
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "M&J, everything deselected, builds");
	CHECK_EQ_U(fx_fn(&w.vm, "a")->self, 90, "deselect *: the thread root keeps everything");
	view_free(&w);
}

/*
 * A thread root entered again (Note [The thread root of a reduced stack]
 * in view.c): main → b → c → main → c, b deselected.
 *
 *   base context             T   view context          a rerun without b
 *   [main]                  10   [main]                [main]
 *   [main] [b]              20   [main]                (main's time)
 *   [main] [b] [c]          30   [main] [c]            [main] [c]
 *   main [b] [c] [main]     40   main [c] [main]       main [c] [main]
 *   main [b] c [main] [c]   50   [main] [c]            main c [main] [c]
 *
 * c's callers: main only, 2 calls, 80 self + 40 child; no spontaneous
 * arc into c (a reduced [c] [main] would start at c as if c were a thread
 * root, with 40 and no call).  COST main 70, c 80; INHERITED main 150,
 * c 120.
 */
static void reentered_root(void)
{
	static struct fixture f;
	struct viewed w;
	fx_init(&f, 1);
	fx_ctx(&f, "[main]", 1, 0, 10);
	fx_ctx(&f, "[main] [b]", 1, 0, 20);
	fx_ctx(&f, "[main] [b] [c]", 1, 0, 30);
	fx_ctx(&f, "main [b] [c] [main]", 1, 0, 40);
	fx_ctx(&f, "main [b] c [main] [c]", 1, 0, 50);
	model_view_opts_init(&w.o);
	model_patterns_add(&w.o.deselect, "main,b"); /* main, a root, stays */
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "root entered again, b deselected: builds");
	CHECK(fx_fn(&w.vm, "main")->self == 70 && fx_fn(&w.vm, "c")->self == 80 &&
		      fx_fn(&w.vm, "main")->inherited == 150 && fx_fn(&w.vm, "c")->inherited == 120,
	      "root entered again: COST main 70, c 80; INHERITED main 150, c 120");
	int found = 0;
	for (uint32_t k = 0; k < w.vm.nctx; k++) {
		const struct ccp_context *c = &w.vm.ctx[k];
		found |= c->len == 3 && c->time == 40 && !CCP_ENTRY_MARKED(c->hist[0]) &&
			 CCP_ENTRY_CC(c->hist[0]) == fx_id(&w.vm, "main") &&
			 CCP_ENTRY_MARKED(c->hist[1]) && CCP_ENTRY_MARKED(c->hist[2]);
	}
	CHECK(found && w.vm.nctx == 3, "root entered again: the view has main [c] [main]");
	const struct model_arc *mc = fx_arc(&w.vm, "main", "c");
	CHECK(mc && mc->calls == 2 && mc->self_in == 80 && mc->child_in == 40,
	      "root entered again: arc main->c, 2 calls, 80 self + 40 child");
	CHECK(fx_arc(&w.vm, "", "c") == NULL, "root entered again: no spontaneous arc into c");
	int silent = 1;
	for (uint32_t k = 0; k < w.vm.narcs; k++) {
		const struct model_arc *a = &w.vm.arcs[k];
		silent &= a->calls > 0 || a->self_in + a->child_in == 0;
	}
	CHECK(silent, "root entered again: every arc with time has calls");
	CHECK(fx_node(&w.vm, "c/main") && fx_node(&w.vm, "c/main")->individual == 40,
	      "root entered again: the stack tree is the reduced stacks' (c/main 40)");
	fx_check_identities(&w.vm, "root entered again");
	view_free(&w);
}

static void spivey_cycles(void)
{
	static struct fixture f;
	struct viewed w;
	build_spivey(&f);
	model_view_opts_init(&w.o);
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "Spivey builds");
	model_cycles(&w.vm);
	CHECK_EQ_U(w.vm.ncycles, 1, "Spivey: exactly one cycle");
	const struct model_cycle *c = &w.vm.cycles[0];
	CHECK(c->len == 3 && c->items[0] == fx_id(&w.vm, "P") && c->items[1] == fx_id(&w.vm, "Q") &&
		      c->items[2] == fx_id(&w.vm, "R"),
	      "Spivey: the cycle is P, Q, R in call order");
	CHECK_EQ_U(c->entries, 4, "Spivey: closed 4 times (C4 twice, C5, C6)");
	CHECK_EQ_U(c->time, 260, "Spivey: in progress in C4..C7");
	view_free(&w);

	model_view_opts_init(&w.o);
	model_patterns_add(&w.o.deselect, "Q");
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "Spivey without Q builds");
	model_cycles(&w.vm);
	CHECK(w.vm.ncycles == 1 && w.vm.cycles[0].len == 2 &&
		      w.vm.cycles[0].items[0] == fx_id(&w.vm, "P") &&
		      w.vm.cycles[0].items[1] == fx_id(&w.vm, "R"),
	      "Q deselected: the cycle is P, R");
	CHECK(w.vm.ncycles == 1 && w.vm.cycles[0].entries == 3 && w.vm.cycles[0].time == 260,
	      "Q deselected: closed 3 times, 260 in progress");
	CHECK(fx_fn(&w.vm, "P")->self == 160 && fx_fn(&w.vm, "R")->self == 110 &&
		      fx_fn(&w.vm, "main")->self == 10 && fx_fn(&w.vm, "S")->self == 80,
	      "Q deselected: COST main 10, P 160, R 110, S 80");
	fx_check_identities(&w.vm, "Q deselected");
	view_free(&w);
}

/* The child of node k (in tree t) for name ("…" for a gap), or NONE. */
static uint32_t child_named(const struct model_tree *t, const struct model *m, uint32_t k,
			    const char *name)
{
	uint32_t cc = strcmp(name, "\xe2\x80\xa6") == 0 ? MODEL_GAP : fx_id(m, name);
	for (uint32_t c = t->nodes[k].first_child; c != MODEL_NONE; c = t->nodes[c].next_sibling)
		if (t->nodes[c].cc == cc)
			return c;
	return MODEL_NONE;
}

/* The node at path "P/R/Q" below the root of t, or NONE. */
static uint32_t tree_path(const struct model_tree *t, const struct model *m, const char *path)
{
	char buf[256];
	uint32_t k = 0;
	snprintf(buf, sizeof buf, "%s", path);
	for (char *save = NULL, *tok = strtok_r(buf, "/", &save); tok && k != MODEL_NONE;
	     tok = strtok_r(NULL, "/", &save))
		k = child_named(t, m, k, tok);
	return k;
}

static void spivey_callers(void)
{
	static struct fixture f;
	struct viewed w;
	build_spivey(&f);
	model_view_opts_init(&w.o);
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "Spivey builds for callers");
	uint32_t fns[2] = {fx_id(&w.vm, "Q"), fx_id(&w.vm, "P")};
	model_callers(&w.vm, fns, 2);
	const struct model_tree *q = &w.vm.callers[0], *p = &w.vm.callers[1];
	CHECK(q->nodes[0].cc == fns[0] && q->calls[0] == 2 && q->nodes[0].inherited == 90,
	      "callers(Q): root Q with its 2 calls and 90 self");
	uint32_t k = tree_path(q, &w.vm, "P/main");
	CHECK(k != MODEL_NONE && q->calls[k] == 1 && q->nodes[k].inherited == 30,
	      "callers(Q): Q <- P <- main: 1 call, 30");
	k = tree_path(q, &w.vm, "P/R/Q/\xe2\x80\xa6/P/main");
	CHECK(k != MODEL_NONE && q->calls[k] == 1 && q->nodes[k].inherited == 60,
	      "callers(Q): Q <- P <- R <- Q <- ... <- P <- main: 1 call, 60");
	CHECK(q->nnodes == 8, "callers(Q): 8 nodes (got %u)", q->nnodes);
	k = tree_path(p, &w.vm, "R/Q/P/main");
	CHECK(p->calls[0] == 5 && p->nodes[0].inherited == 70 && k != MODEL_NONE &&
		      p->calls[k] == 2 && p->nodes[k].inherited == 50,
	      "callers(P): 5 calls, 70; P <- R <- Q <- P <- main: 2 calls, 50");
	k = tree_path(p, &w.vm, "main");
	CHECK(k != MODEL_NONE && p->calls[k] == 3 && p->nodes[k].inherited == 20,
	      "callers(P): P <- main: 1 entry + 2 recursive, 20");
	view_free(&w);
}

static void spivey_focus(void)
{
	static struct fixture f;
	struct viewed w;
	build_spivey(&f);
	model_view_opts_init(&w.o);
	model_patterns_add(&w.o.focus, "P");
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "focus P builds");
	CHECK_EQ_U(w.vm.total_time, 350, "focus P: total = inherited(P)");
	CHECK(!fx_fn(&w.vm, "main")->seen, "focus P: main is below the focus, not shown");
	CHECK(fx_fn(&w.vm, "P")->self == 70 && fx_fn(&w.vm, "Q")->self == 90 &&
		      fx_fn(&w.vm, "R")->self == 110 && fx_fn(&w.vm, "S")->self == 80,
	      "focus P: self times as in the whole profile");
	CHECK(w.vm.nodes[0].first_child != MODEL_NONE &&
		      w.vm.nodes[w.vm.nodes[0].first_child].next_sibling == MODEL_NONE &&
		      fx_node(&w.vm, "P") && fx_node(&w.vm, "P")->inherited == 350,
	      "focus P: the tree is rooted at P");
	CHECK(fx_node(&w.vm, "P/Q/R") && fx_node(&w.vm, "P/Q/R")->individual == 110,
	      "focus P: stacks cut below P (C3 and C6 meet at P/Q/R)");
	fx_check_identities(&w.vm, "focus P");
	view_free(&w);

	/* Union: focus on S or R.  R roots C3, C4, C5, C6, C7 (R is active
	 * there, lowest of the two); S only in C7, where R is lower. */
	model_view_opts_init(&w.o);
	model_patterns_add(&w.o.focus, "S,R");
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "focus S,R builds");
	CHECK_EQ_U(w.vm.total_time, 40 + 50 + 60 + 70 + 80, "focus S,R: contexts where R or S runs");
	fx_check_identities(&w.vm, "focus S,R");
	view_free(&w);

	/* Focus and selection compose: focus P, Q deselected. */
	model_view_opts_init(&w.o);
	model_patterns_add(&w.o.focus, "P");
	model_patterns_add(&w.o.deselect, "Q");
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "focus P without Q builds");
	CHECK(w.vm.total_time == 350 && fx_fn(&w.vm, "P")->self == 70 + 90 &&
		      !fx_fn(&w.vm, "Q")->seen,
	      "focus P without Q: Q's time goes to P");
	fx_check_identities(&w.vm, "focus P without Q");
	view_free(&w);
}

/* Every shown node: inherited = individual + shown children + hidden. */
static int pruned_adds_up(const struct model_node *nodes, uint32_t n,
			  const struct model_pruned *pr)
{
	for (uint32_t k = 0; k < n; k++) {
		if (pr->hidden[k])
			continue;
		uint64_t sum = nodes[k].individual + pr->rest[k].time;
		for (uint32_t c = nodes[k].first_child; c != MODEL_NONE; c = nodes[c].next_sibling)
			if (!pr->hidden[c])
				sum += nodes[c].inherited;
		if (sum != nodes[k].inherited)
			return 0;
	}
	return 1;
}

static void spivey_prune(void)
{
	static struct fixture f;
	struct viewed w;
	build_spivey(&f);
	model_view_opts_init(&w.o);
	w.o.prune.min_percent = 20; /* 73 of 365 ticks */
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "pruned Spivey builds");
	const struct model_node *main_ = fx_node(&w.vm, "main");
	uint32_t mk = (uint32_t)(main_ - w.vm.nodes);
	const struct model_pruned *pr = &w.vm.tree_pruned;
	CHECK(pr->rest[mk].count == 1 && pr->rest[mk].time == 60 && pr->rest[mk].entries == 1,
	      "min 20%%: main's child R (60) is hidden as (1 hidden), 60 ticks, 1 entry");
	CHECK(pruned_adds_up(w.vm.nodes, w.vm.nnodes, pr), "min 20%%: shown nodes add up");
	uint32_t shown = 0;
	for (uint32_t k = 0; k < w.vm.nnodes; k++)
		shown += !pr->hidden[k];
	CHECK_EQ_U(shown, 9, "min 20%: 9 of 12 nodes shown");
	view_free(&w);

	model_view_opts_init(&w.o);
	w.o.prune.min_calls = 2;
	w.o.prune.min_time = 0.05; /* 50 ticks at 1000 per second */
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "pruned by calls and time builds");
	pr = &w.vm.tree_pruned;
	CHECK(pruned_adds_up(w.vm.nodes, w.vm.nnodes, pr), "min calls 2, time 0.05: adds up");
	const struct model_node *pq = fx_node(&w.vm, "main/P/Q");
	CHECK(pq && !pr->hidden[pq - w.vm.nodes], "min calls: P/Q stays (3 calls below it)");
	const struct model_node *rpq = fx_node(&w.vm, "main/R/P/Q");
	CHECK(rpq && pr->hidden[rpq - w.vm.nodes], "min calls: R/P/Q (1 call, 60) hidden");
	model_cycles(&w.vm);
	uint32_t fns[1] = {fx_id(&w.vm, "Q")};
	model_callers(&w.vm, fns, 1);
	CHECK(w.vm.callers[0].pruned.hidden &&
		      pruned_adds_up(w.vm.callers[0].nodes, w.vm.callers[0].nnodes,
				     &w.vm.callers[0].pruned),
	      "callers trees made after pruning are pruned too, and add up");
	view_free(&w);
}

static void hot_path(void)
{
	static struct fixture f;
	struct viewed w;
	build_mj(&f);
	model_view_opts_init(&w.o);
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "M&J builds for --hot");
	model_hot(&w.vm);
	CHECK(w.vm.narm == 3 && w.vm.nodes[w.vm.arm[0]].cc == fx_id(&w.vm, "a") &&
		      w.vm.nodes[w.vm.arm[1]].cc == fx_id(&w.vm, "b") &&
		      w.vm.nodes[w.vm.arm[2]].cc == fx_id(&w.vm, "c"),
	      "hot: the arm is a (90), b (60 >= 45), c (50 >= 30)");
	CHECK(w.vm.ctx[w.vm.ctx_by_time[0]].time == 50,
	      "hot: the most expensive context is [a] [b] [c] (50)");
	view_free(&w);

	build_spivey(&f);
	model_view_opts_init(&w.o);
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "Spivey builds for --hot");
	model_hot(&w.vm);
	CHECK(w.vm.narm == 1, "hot: Spivey's arm stops at main (P has 160 of 360)");
	view_free(&w);
}

static void threads(void)
{
	static struct fixture f;
	struct viewed w;
	build_mj(&f);
	fx_thread(&f);
	fx_ctx(&f, "[w]", 1, 0, 7);
	fx_ctx(&f, "[w] [b]", 3, 0, 5);
	model_view_opts_init(&w.o);
	model_patterns_add(&w.o.deselect, "b");
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "two threads build");
	model_threads(&w.vm, MODEL_FLAT);
	CHECK(w.vm.nthread_models == 2, "threads: one model per thread");
	struct model_thread one, two;
	model_thread_build(&one, &w.vm, 0);
	model_thread_build(&two, &w.vm, 1);
	const struct model *t0 = &one.m, *t1 = &two.m;
	CHECK(t0->total_time == 90 && t1->total_time == 12 && w.vm.total_time == 102,
	      "threads: totals 90 and 12 add up to 102");
	CHECK(fx_fn(t1, "w")->self == 12 && fx_fn(t1, "w")->calls == 1 && !fx_fn(t1, "a")->seen,
	      "threads: the view applies per thread (b deselected: w 12)");
	CHECK(t0->total_calls == 3, "threads: thread 1 has 3 calls left (b's vanish)");
	model_thread_free(&one);
	model_thread_free(&two);
	view_free(&w);
}

static void patterns(void)
{
	CHECK(model_name_matches("a,b", "b"), "pattern list: second name");
	CHECK(!model_name_matches("a,b", "ab"), "pattern list: whole names only");
	CHECK(model_name_matches("work*", "work_hard"), "glob: prefix");
	CHECK(model_name_matches("*hard", "work_hard") && model_name_matches("w*k*d", "work_hard"),
	      "glob: suffix and middle");
	CHECK(model_name_matches("ns::f", "ns::f(int, char)"), "C++: name without its parameters");
	CHECK(model_name_matches("ns::f(int, char)", "ns::f(int, char)"),
	      "C++: commas inside parentheses do not split");
	CHECK(model_name_matches("std::map<int, int>::find*", "std::map<int, int>::find(int const&)"),
	      "C++: commas inside <> do not split");
	CHECK(model_name_matches("operator[]", "operator[]"), "[ is not a glob character");
	CHECK(model_name_matches("operator<*,b", "b") && model_name_matches("a::operator<<*,b", "b") &&
		      model_name_matches("operator->*,b", "b") && model_name_matches("operator<=>*,b", "b"),
	      "an operator's < or > opens or closes no template list");
	CHECK(model_name_matches("bool operator< <int>(int, int),b", "b"),
	      "an operator< with template arguments");
	CHECK(model_name_matches("A::operator*<int, long>", "A::operator*<int, long>(int)") &&
		      model_name_matches("A::operator<=<int, long>", "A::operator<=<int, long>(int)") &&
		      model_name_matches("A::operator-><int, long>", "A::operator-><int, long>()"),
	      "an operator's template list after its own < or > still holds its commas");
	CHECK(model_name_matches("A::operator,(A const&),b", "A::operator,(A const&)") &&
		      model_name_matches("A::operator,", "A::operator,(A const&)") &&
		      model_name_matches("x,A::operator,,b", "b") && model_name_matches("operator,f", "f"),
	      "operator, is a name, not the end of a pattern");
	CHECK(model_name_matches("my_operator<int, long>::f,b", "my_operator<int, long>::f()") &&
		      !model_name_matches("my_operator<int, long>::f,b", "long>::f()"),
	      "a name ending in operator still opens a template list");
	CHECK(!model_name_matches("", "x") && !model_name_matches(",", "x"), "empty patterns match nothing");
}

int main(void)
{
	mj_all();
	mj_deselect_b();
	mj_select_only_a();
	reentered_root();
	spivey_cycles();
	spivey_callers();
	spivey_focus();
	spivey_prune();
	hot_path();
	threads();
	patterns();
	return check_failures != 0;
}
