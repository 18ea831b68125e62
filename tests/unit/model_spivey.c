/*
 * model_spivey.c - the model on Spivey's mutual recursion
 * (docs/semantics.md, "Cost centres and contexts"): main calls P; P→Q→R→P
 * repeats n = 2 times; finally P calls S, which calls itself 3 times; P
 * also calls itself twice at the top.
 *
 * Trace: main P Q R P Q R P S (+ P→P ×2, S→S ×3).  Contexts, their
 * entries E, direct recursion R and (chosen) times T in ticks of 1 ms:
 *
 *   C0  [main]                      E 1  R 0  T 10
 *   C1  [main] [P]                  E 1  R 2  T 20
 *   C2  [main] [P] [Q]              E 1  R 0  T 30
 *   C3  [main] [P] [Q] [R]          E 1  R 0  T 40
 *   C4  [main]  P  [Q] [R] [P]      E 2  R 0  T 50   (R→P twice)
 *   C5  [main]  P   Q  [R] [P] [Q]  E 1  R 0  T 60
 *   C6  [main]  P   R  [P] [Q] [R]  E 1  R 0  T 70
 *   C7  [main]  P  [Q] [R] [P] [S]  E 1  R 3  T 80
 *   root (outside any CC)                     T 5     total 365
 *
 * Flat (self / calls / inherited):
 *   main 10 / 1 / 360   P 70 / 5 / 350   Q 90 / 2 / 330
 *   R 110 / 2 / 300     S 80 / 4 / 80
 *
 * Arcs (calls; self_out child_out | self_in child_in), worked by hand
 * from the item rule in arcs.c:
 *   ∅→main  1;           |  10 350
 *   main→P  1;  70 280   |  20  70
 *   P→Q     2;  90 110   |  90 240
 *   Q→R     2; 110 130   | 110 190
 *   R→P     2;  50 140   |  50 210
 *   P→S     1;  80   0   |  80   0
 *   P→P     2, S→S 3 (no time: A1 keeps the context)
 *
 * Stack tree (C3 and C6 share ⟨main,P,Q,R⟩: 8 contexts, 7 stacks):
 *   <root>                    0     5   365
 *    main                     1    10   360
 *     P                       3    20   160
 *      Q                      1    30   140
 *       R                     2   110   110
 *     Q                       0     0   130   (intermediate)
 *      R                      0     0   130   (intermediate)
 *       P                     2    50   130
 *        S                    4    80    80
 *     R                       0     0    60   (intermediate)
 *      P                      0     0    60   (intermediate)
 *       Q                     1    60    60
 */
#include "model_fixture.h"

static void check_flat(const struct model *m)
{
	static const struct {
		const char *name;
		uint64_t self, calls, inherited;
	} want[] = {
		{"main", 10, 1, 360}, {"P", 70, 5, 350}, {"Q", 90, 2, 330},
		{"R", 110, 2, 300},   {"S", 80, 4, 80},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const struct model_fn *fn = fx_fn(m, want[i].name);
		CHECK(fn->self == want[i].self && fn->calls == want[i].calls &&
			      fn->inherited == want[i].inherited,
		      "flat %s: self %llu calls %llu inherited %llu", want[i].name,
		      (unsigned long long)fn->self, (unsigned long long)fn->calls,
		      (unsigned long long)fn->inherited);
	}
	CHECK_EQ_U(m->total_time, 365, "total time");
	CHECK_EQ_U(m->root_time, 5, "time outside any CC");
	CHECK_EQ_U(m->total_calls, 9 + 2 + 3, "total calls = trace + recursion");
	CHECK_EQ_U(m->nlisted, 5, "five functions listed");
	CHECK(strcmp(m->fns[m->by_self[0]].name, "R") == 0, "R has the most self time");
	CHECK(strcmp(m->fns[m->by_inherited[0]].name, "main") == 0, "main inherits the most");
	CHECK_NEAR(model_seconds(m, m->total_time), 0.365, 1e-12, "seconds = ticks / ticks_per_sec");
	CHECK_NEAR(model_percent(m, 73), 20.0, 1e-9, "percent of the total");
}

static void check_arc(const struct model *m, const char *from, const char *to, uint64_t calls,
		      uint64_t so, uint64_t co, uint64_t si, uint64_t ci)
{
	const struct model_arc *a = fx_arc(m, from, to);
	CHECK(a && a->calls == calls && a->self_out == so && a->child_out == co &&
		      a->self_in == si && a->child_in == ci,
	      "arc %s->%s: calls %llu out %llu/%llu in %llu/%llu", from[0] ? from : "<spontaneous>",
	      to, a ? (unsigned long long)a->calls : 0ULL, a ? (unsigned long long)a->self_out : 0ULL,
	      a ? (unsigned long long)a->child_out : 0ULL, a ? (unsigned long long)a->self_in : 0ULL,
	      a ? (unsigned long long)a->child_in : 0ULL);
}

static void check_arcs(const struct model *m)
{
	check_arc(m, "", "main", 1, 0, 0, 10, 350);
	check_arc(m, "main", "P", 1, 70, 280, 20, 70);
	check_arc(m, "P", "Q", 2, 90, 110, 90, 240);
	check_arc(m, "Q", "R", 2, 110, 130, 110, 190);
	check_arc(m, "R", "P", 2, 50, 140, 50, 210);
	check_arc(m, "P", "S", 1, 80, 0, 80, 0);
	check_arc(m, "P", "P", 2, 0, 0, 0, 0);
	check_arc(m, "S", "S", 3, 0, 0, 0, 0);
	CHECK_EQ_U(m->narcs, 8, "eight arcs");
	CHECK(fx_arc(m, "main", "Q") == NULL, "no arc main->Q (only elided paths)");

	/* Callers of P other than the spontaneous ones and itself: main, R. */
	uint32_t p = fx_id(m, "P");
	uint64_t calls = 0;
	for (uint32_t i = m->in_start[p]; i < m->in_start[p + 1]; i++) {
		const struct model_arc *a = &m->arcs[m->in[i]];
		if (a->caller != MODEL_NONE && a->caller != p)
			calls += a->calls;
	}
	CHECK_EQ_U(calls, 3, "P's calls from other functions (5 minus 2 recursive)");
	/* Lists are sorted heaviest first: R->P (260) before main->P (90). */
	CHECK(m->arcs[m->in[m->in_start[p]]].caller == fx_id(m, "R"), "heaviest caller of P is R");
}

static void check_node(const struct model *m, const char *path, uint64_t entries,
		       uint64_t individual, uint64_t inherited)
{
	const struct model_node *x = fx_node(m, path);
	CHECK(x && x->entries == entries && x->individual == individual &&
		      x->inherited == inherited,
	      "tree %s: entries %llu individual %llu inherited %llu", path[0] ? path : "<root>",
	      x ? (unsigned long long)x->entries : 0ULL, x ? (unsigned long long)x->individual : 0ULL,
	      x ? (unsigned long long)x->inherited : 0ULL);
}

static void check_tree(const struct model *m)
{
	check_node(m, "", 0, 5, 365);
	check_node(m, "main", 1, 10, 360);
	check_node(m, "main/P", 3, 20, 160);
	check_node(m, "main/P/Q", 1, 30, 140);
	check_node(m, "main/P/Q/R", 2, 110, 110);
	check_node(m, "main/Q", 0, 0, 130);
	check_node(m, "main/Q/R", 0, 0, 130);
	check_node(m, "main/Q/R/P", 2, 50, 130);
	check_node(m, "main/Q/R/P/S", 4, 80, 80);
	check_node(m, "main/R", 0, 0, 60);
	check_node(m, "main/R/P", 0, 0, 60);
	check_node(m, "main/R/P/Q", 1, 60, 60);
	CHECK_EQ_U(m->nnodes, 12, "twelve nodes (root + 7 stacks + 4 intermediate)");

	uint32_t stacks = 0;
	for (uint32_t k = 1; k < m->nnodes; k++)
		stacks += m->nodes[k].entries > 0 || m->nodes[k].individual > 0;
	CHECK_EQ_U(stacks, 7, "8 contexts project to 7 compressed stacks");

	/* main's children by inherited time: P (160), Q (130), R (60). */
	const struct model_node *main = fx_node(m, "main");
	uint32_t c1 = main->first_child, c2 = m->nodes[c1].next_sibling;
	uint32_t c3 = m->nodes[c2].next_sibling;
	CHECK(m->nodes[c1].cc == fx_id(m, "P") && m->nodes[c2].cc == fx_id(m, "Q") &&
		      m->nodes[c3].cc == fx_id(m, "R") && m->nodes[c3].next_sibling == MODEL_NONE,
	      "children ordered by inherited time");
	CHECK_EQ_U(fx_node(m, "main/Q/R/P/S")->depth, 5, "depth of main/Q/R/P/S");
}

static void check_contexts(const struct model *m)
{
	CHECK_EQ_U(m->nctx, 9, "nine contexts (8 + root)");
	CHECK_EQ_U(m->ctx[m->ctx_by_time[0]].time, 80, "most expensive context first");
	CHECK_EQ_U(m->ctx[m->ctx_by_time[8]].time, 5, "root context last");
	int sorted = 1;
	for (uint32_t i = 1; i < m->nctx; i++)
		sorted &= m->ctx[m->ctx_by_time[i - 1]].time >= m->ctx[m->ctx_by_time[i]].time;
	CHECK(sorted, "contexts sorted by time");
}

int main(void)
{
	static struct fixture f;
	struct model m;
	build_spivey(&f);
	CHECK(fx_build(&m, &f) == 0, "model of Spivey's example builds");
	check_flat(&m);
	check_arcs(&m);
	check_tree(&m);
	check_contexts(&m);
	fx_check_identities(&m, "spivey");
	model_free(&m);

	/* The same run split over two threads merges into the same model. */
	static struct fixture g;
	build_spivey(&g);
	struct ccp_thread *t0 = &g.threads[0];
	t0->ncontexts = 5;
	fx_thread(&g);
	fx_ctx(&g, "", 0, 0, 0);
	fx_ctx(&g, "[main] P [Q] [R] [P]", 2, 0, 50);
	fx_ctx(&g, "[main] P Q [R] [P] [Q]", 1, 0, 60);
	fx_ctx(&g, "[main] P R [P] [Q] [R]", 1, 0, 70);
	fx_ctx(&g, "[main] P [Q] [R] [P] [S]", 1, 3, 80);
	fx_ctx(&g, "[main] [P]", 0, 0, 0); /* also in thread 0: merged */
	CHECK(fx_build(&m, &g) == 0, "two-thread model builds");
	CHECK_EQ_U(m.nctx, 9, "threads merged by history: still nine contexts");
	check_flat(&m);
	check_arcs(&m);
	check_tree(&m);
	fx_check_identities(&m, "spivey, two threads");
	model_free(&m);
	return check_failures != 0;
}
