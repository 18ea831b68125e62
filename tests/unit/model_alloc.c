/*
 * model_alloc.c - allocations as a cost (Note [Allocation as a cost] in
 * model.h) on hand-built contexts: Morgan & Jarvis's selection example
 * (docs/views.md, "Selection") with bytes in place of time, and times
 * chosen apart from the bytes so that each sum shows which cost it added.
 *
 *   context        T    bytes  blocks   compressed stack
 *   <root>         5      7      1
 *   [a]           40     20      2      ⟨a⟩
 *   [a] [b]       40     10      1      ⟨b,a⟩
 *   [a] [c]        1     10      1      ⟨c,a⟩
 *   [a] [b] [c]    1     50      5      ⟨c,b,a⟩
 *   outside any context: 100 bytes, 3 blocks (in no model sum)
 *
 *   total alloc 97 bytes, 10 blocks; root 7, 1
 *   all selected:  COST a 20, b 10, c 60;  INHERITED a 90, b 60, c 60
 *                  (blocks: 2, 1, 6; 9, 6, 6)
 *   b deselected:  COST a 30, c 60;        INHERITED a 90, c 60
 *   focus c:       the view allocates 60 bytes
 *   callers(c):    c ← a 10 bytes, c ← b ← a 50 bytes
 *
 * Pruning at 20 %: of 87 ticks and 97 bytes, ⟨c,a⟩ has 1 tick (1 %) and 10
 * bytes (10 %): hidden; ⟨c,b,a⟩ has 1 tick but 50 bytes (52 %): kept
 * (Note [Pruning with allocations]), and hidden when the run did not
 * count allocations.
 *
 * merge (combine.h) of that profile, twice, with one that did not count
 * allocations: each history's bytes add up (2 x), the outside ones too,
 * and the result counted allocations.
 */
#include "model/combine.h"
#include "model_fixture.h"

static void build_mj_alloc(struct fixture *f)
{
	fx_init(f, 1);
	fx_ctx(f, "", 0, 0, 5);
	fx_ctx_alloc(f, 7, 1);
	fx_ctx(f, "[a]", 1, 0, 40);
	fx_ctx_alloc(f, 20, 2);
	fx_ctx(f, "[a] [b]", 1, 0, 40);
	fx_ctx_alloc(f, 10, 1);
	fx_ctx(f, "[a] [c]", 1, 0, 1);
	fx_ctx_alloc(f, 10, 1);
	fx_ctx(f, "[a] [b] [c]", 1, 0, 1);
	fx_ctx_alloc(f, 50, 5);
	f->p.alloc.outside_bytes = 100;
	f->p.alloc.outside_blocks = 3;
}

static void check_alloc(const struct model_alloc *a, uint64_t bytes, uint64_t blocks,
			const char *what)
{
	CHECK(a->bytes == bytes && a->blocks == blocks, "%s: %llu bytes, %llu blocks (want %llu, %llu)",
	      what, (unsigned long long)a->bytes, (unsigned long long)a->blocks,
	      (unsigned long long)bytes, (unsigned long long)blocks);
}

/* The identities of fx_check_identities, for allocations: Σ self + root
 * = total; the tree's root inherits the total; every node inherits its
 * own and its children's. */
static void check_alloc_identities(const struct model *m, const char *what)
{
	struct model_alloc self = m->root_alloc;
	for (uint32_t f = 0; f < m->nfns; f++)
		model_alloc_add(&self, m->fns[f].self_alloc);
	CHECK(self.bytes == m->total_alloc.bytes && self.blocks == m->total_alloc.blocks,
	      "%s: sum of self alloc + root = total", what);
	int ok = m->node_alloc != NULL;
	for (uint32_t k = 0; ok && k < m->nnodes; k++) {
		const struct model_node *x = &m->nodes[k];
		struct model_alloc sum = m->node_alloc[k].individual;
		for (uint32_t c = x->first_child; c != MODEL_NONE; c = m->nodes[c].next_sibling)
			model_alloc_add(&sum, m->node_alloc[c].inherited);
		ok &= sum.bytes == m->node_alloc[k].inherited.bytes &&
		      sum.blocks == m->node_alloc[k].inherited.blocks;
	}
	CHECK(ok, "%s: every node: inherited alloc = individual + children", what);
	if (ok && m->nnodes)
		check_alloc(&m->node_alloc[0].inherited, m->total_alloc.bytes, m->total_alloc.blocks,
			    "tree root inherits the total alloc");
}

/* The allocations of the stack-tree node at path (fx_node). */
static const struct model_node_alloc *node_alloc(const struct model *m, const char *path)
{
	const struct model_node *x = fx_node(m, path);
	if (!x || !m->node_alloc)
		fx_die(path);
	return &m->node_alloc[x - m->nodes];
}

static void flat_and_tree(void)
{
	static struct fixture f;
	struct model m;
	build_mj_alloc(&f);
	CHECK(fx_build(&m, &f) == 0, "M&J with allocations builds");
	CHECK(model_alloc_measured(&m), "measured");
	check_alloc(&m.total_alloc, 97, 10, "total alloc (outside not included)");
	check_alloc(&m.root_alloc, 7, 1, "root alloc");
	check_alloc(&fx_fn(&m, "a")->self_alloc, 20, 2, "COST(a)");
	check_alloc(&fx_fn(&m, "b")->self_alloc, 10, 1, "COST(b)");
	check_alloc(&fx_fn(&m, "c")->self_alloc, 60, 6, "COST(c)");
	check_alloc(&fx_fn(&m, "a")->inherited_alloc, 90, 9, "INHERITED(a)");
	check_alloc(&fx_fn(&m, "b")->inherited_alloc, 60, 6, "INHERITED(b)");
	check_alloc(&fx_fn(&m, "c")->inherited_alloc, 60, 6, "INHERITED(c)");
	CHECK_EQ_U(fx_fn(&m, "a")->self, 40, "time is still time: self(a)");
	check_alloc(&node_alloc(&m, "")->individual, 7, 1, "tree <root> individual");
	check_alloc(&node_alloc(&m, "a")->individual, 20, 2, "tree a individual");
	check_alloc(&node_alloc(&m, "a/b")->inherited, 60, 6, "tree a/b inherited");
	check_alloc(&node_alloc(&m, "a/b/c")->individual, 50, 5, "tree a/b/c individual");
	check_alloc(&node_alloc(&m, "a/c")->inherited, 10, 1, "tree a/c inherited");
	CHECK(m.by_self_alloc && m.by_self_alloc[0] == fx_id(&m, "c") &&
		      m.by_self_alloc[1] == fx_id(&m, "a") && m.by_self_alloc[2] == fx_id(&m, "b"),
	      "by_self_alloc: c 60, a 20, b 10");
	CHECK(m.by_calls != NULL, "by_calls is listed");
	CHECK(fabs(model_alloc_percent(&m, 50) - 5000.0 / 97) < 1e-9, "%%alloc of 50 bytes");
	check_alloc_identities(&m, "M&J alloc");
	fx_check_identities(&m, "M&J alloc (time)");
	model_free(&m);
}

static void not_measured(void)
{
	static struct fixture f;
	struct model m;
	build_mj_alloc(&f);
	f.p.alloc.measured = 0;
	CHECK(fx_build(&m, &f) == 0, "the same contexts, not measured, build");
	CHECK(!model_alloc_measured(&m) && m.by_self_alloc == NULL && m.node_alloc == NULL,
	      "not measured: no alloc order, no node allocations");
	model_free(&m);
}

static void deselect_b(void)
{
	static struct fixture f;
	struct viewed w;
	build_mj_alloc(&f);
	model_view_opts_init(&w.o);
	model_patterns_add(&w.o.deselect, "b");
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "b deselected builds");
	check_alloc(&fx_fn(&w.vm, "a")->self_alloc, 30, 3, "b deselected: COST(a)");
	check_alloc(&fx_fn(&w.vm, "c")->self_alloc, 60, 6, "b deselected: COST(c)");
	check_alloc(&fx_fn(&w.vm, "a")->inherited_alloc, 90, 9, "b deselected: INHERITED(a)");
	check_alloc(&fx_fn(&w.vm, "c")->inherited_alloc, 60, 6, "b deselected: INHERITED(c)");
	check_alloc(&fx_fn(&w.vm, "b")->self_alloc, 0, 0, "b deselected: b has none");
	check_alloc(&node_alloc(&w.vm, "a/c")->individual, 60, 6, "b deselected: tree a/c");
	check_alloc(&w.vm.total_alloc, 97, 10, "b deselected: the total is kept");
	check_alloc_identities(&w.vm, "b deselected");
	view_free(&w);
}

static void focus_and_callers(void)
{
	static struct fixture f;
	struct viewed w;
	build_mj_alloc(&f);
	model_view_opts_init(&w.o);
	model_patterns_add(&w.o.focus, "c");
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "focus c builds");
	check_alloc(&w.vm.total_alloc, 60, 6, "focus c: the view's total");
	check_alloc(&node_alloc(&w.vm, "c")->inherited, 60, 6, "focus c: tree rooted at c");
	check_alloc_identities(&w.vm, "focus c");
	view_free(&w);

	model_view_opts_init(&w.o);
	CHECK(view_of(&w, &f, MODEL_FLAT) == 0, "callers: the empty view builds");
	uint32_t c = fx_id(&w.vm, "c"), a = fx_id(&w.vm, "a"), b = fx_id(&w.vm, "b");
	model_callers(&w.vm, &c, 1);
	const struct model_tree *t = &w.vm.callers[0];
	uint64_t via_a = 0, via_b = 0;
	for (uint32_t k = 1; t->node_alloc && k < t->nnodes; k++) {
		const struct model_node *x = &t->nodes[k];
		if (x->depth == 1 && x->cc == a)
			via_a = t->node_alloc[k].inherited.bytes;
		if (x->depth == 1 && x->cc == b)
			via_b = t->node_alloc[k].inherited.bytes;
	}
	CHECK_EQ_U(model_node_alloc_at(t->node_alloc, 0).inherited.bytes, 60,
		   "callers(c): c's self alloc");
	CHECK_EQ_U(via_a, 10, "callers(c): from a directly");
	CHECK_EQ_U(via_b, 50, "callers(c): from b");
	view_free(&w);
}

/* The hidden line of a at 20 %: ⟨c,a⟩ (1 tick, 10 bytes).  measured 2:
 * the run counted allocations and found none, which prunes as not
 * measured (Note [Pruning with allocations]). */
static void prune(int measured)
{
	static struct fixture f;
	struct viewed w;
	build_mj_alloc(&f);
	f.p.alloc.measured = measured != 0;
	for (uint32_t k = 0; measured == 2 && k < f.threads[0].ncontexts; k++)
		f.threads[0].contexts[k].alloc_bytes = 0;
	model_view_opts_init(&w.o);
	w.o.prune.min_percent = 20;
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "prune 20 %% builds");
	const struct model_pruned *pr = &w.vm.tree_pruned;
	const struct model_node *a = fx_node(&w.vm, "a"), *abc = fx_node(&w.vm, "a/b/c");
	const struct model_hidden *h = &pr->rest[a - w.vm.nodes];
	if (measured == 1) {
		CHECK(!pr->hidden[abc - w.vm.nodes], "prune: a/b/c (52 %% of bytes) is kept");
		CHECK(h->count == 1 && h->time == 1, "prune: a hides a/c alone, with its tick");
		check_alloc(&h->alloc, 10, 1, "prune: the hidden line carries a/c's bytes");
		check_alloc(&pr->rest[fx_node(&w.vm, "a/b") - w.vm.nodes].alloc, 0, 0,
			    "prune: a/b hides nothing");
	} else {
		CHECK(pr->hidden[abc - w.vm.nodes], "prune, %s: a/b/c (1 tick) is hidden",
		      measured ? "no bytes" : "not measured");
		CHECK(h->count == 1, "prune, %s: a hides a/c", measured ? "no bytes" : "not measured");
	}
	view_free(&w);
}

/* Two threads: the same history in both adds up, each thread's model
 * has its own. */
static void threads(void)
{
	static struct fixture f;
	struct viewed w;
	build_mj_alloc(&f);
	fx_thread(&f);
	fx_ctx(&f, "[a] [b] [c]", 2, 0, 3);
	fx_ctx_alloc(&f, 4, 1);
	fx_ctx(&f, "[t]", 1, 0, 0);
	fx_ctx_alloc(&f, 1000, 10);
	model_view_opts_init(&w.o);
	CHECK(view_of(&w, &f, MODEL_ALL) == 0, "two threads build");
	check_alloc(&w.base.total_alloc, 1101, 21, "two threads: total");
	check_alloc(&fx_fn(&w.vm, "c")->self_alloc, 64, 7, "two threads: c's contexts merged");
	model_threads(&w.vm, MODEL_FLAT);
	struct model_thread t0, t1;
	model_thread_build(&t0, &w.vm, 0);
	model_thread_build(&t1, &w.vm, 1);
	check_alloc(&t0.m.total_alloc, 97, 10, "thread 1's total");
	check_alloc(&t1.m.total_alloc, 1004, 11, "thread 2's total");
	check_alloc(&fx_fn(&t1.m, "c")->self_alloc, 4, 1, "thread 2: COST(c)");
	CHECK(t1.m.by_self_alloc[0] == fx_id(&w.base, "t"), "thread 2: t allocates most");
	model_thread_free(&t0);
	model_thread_free(&t1);
	view_free(&w);
}

/* A profile built in memory may add up past 2^64 where a file cannot:
 * the merge refuses it as it refuses time. */
static void overflow(void)
{
	static struct fixture f;
	struct model m;
	fx_init(&f, 1);
	fx_ctx(&f, "[a]", 1, 0, 1);
	fx_ctx_alloc(&f, 1ull << 63, 1);
	fx_thread(&f);
	fx_ctx(&f, "[a]", 1, 0, 1);
	fx_ctx_alloc(&f, 1ull << 63, 1);
	char err[128] = "";
	CHECK(model_build(&m, &f.p, MODEL_ALL, err, sizeof err) != 0 &&
		      strstr(err, "allocations") != NULL,
	      "bytes past 2^64 are refused: %s", err);
	model_free(&m);
}

/* COST(fn) in allocations, in a model of p. */
static struct model_alloc self_alloc_of(const struct ccp_profile *p, const char *fn)
{
	char err[128];
	struct model m;
	struct model_alloc a = {0, 0};
	if (model_build(&m, p, MODEL_FLAT, err, sizeof err) == 0)
		a = fx_fn(&m, fn)->self_alloc;
	model_free(&m);
	return a;
}

static void merge(void)
{
	static struct fixture f, g;
	build_mj_alloc(&f);
	fx_init(&g, 1);
	fx_ctx(&g, "[a] [b] [c]", 1, 0, 9); /* no allocations counted */
	const struct ccp_profile *in[3] = {&f.p, &g.p, &f.p};
	const char *names[3] = {"f", "g", "f"};
	struct ccp_arena *arena = ccp_arena_new();
	struct ccp_profile sum;
	char err[256] = "";
	CHECK(combine_profiles(&sum, arena, in, names, 3, err, sizeof err) == 0, "merge f g f: %s",
	      err[0] ? err : "ok");
	CHECK(sum.alloc.measured == 1, "merge: measured, as f is");
	CHECK(sum.alloc.outside_bytes == 200 && sum.alloc.outside_blocks == 6,
	      "merge: outside 2 x 100 bytes, 2 x 3 blocks");
	struct model_alloc c = self_alloc_of(&sum, "c");
	CHECK(c.bytes == 120 && c.blocks == 12, "merge: COST(c) 2 x 60 bytes, 2 x 6 blocks");
	ccp_arena_free(arena);

	in[1] = &g.p;
	in[0] = in[2] = &g.p;
	arena = ccp_arena_new();
	CHECK(combine_profiles(&sum, arena, in, names, 3, err, sizeof err) == 0 &&
		      sum.alloc.measured == 0,
	      "merge g g g: not measured");
	ccp_arena_free(arena);

	f.threads[0].contexts[4].alloc_bytes = UINT64_MAX / 2 + 1; /* [a] [b] [c] */
	in[0] = in[2] = &f.p;
	arena = ccp_arena_new();
	CHECK(combine_profiles(&sum, arena, in, names, 3, err, sizeof err) != 0 &&
		      strstr(err, "f: calls, time or allocations would add up past 2^64"),
	      "merge: bytes past 2^64 refused: %s", err);
	ccp_arena_free(arena);
}

/* Arcs: with every context's bytes equal to its time, each arc's bytes
 * (in, out, self, child) equal its times: the same rule (docs/semantics.md,
 * "Costs other than time"), here on Spivey's mutual recursion, where _in
 * and _out differ. */
static void arcs_like_times(void)
{
	static const char *const spivey[] = {
		"[main]", "[main] [P]", "[main] [P] [Q]", "[main] [P] [Q] [R]",
		"[main] P [Q] [R] [P]", "[main] P Q [R] [P] [Q]", "[main] P R [P] [Q] [R]",
		"[main] P [Q] [R] [P] [S]",
	};
	static struct fixture f;
	struct model m;
	fx_init(&f, 1);
	for (uint32_t i = 0; i < sizeof spivey / sizeof spivey[0]; i++) {
		fx_ctx(&f, spivey[i], 2, i % 2, 10 * (i + 1));
		fx_ctx_alloc(&f, 10 * (i + 1), i + 1);
	}
	CHECK(fx_build(&m, &f) == 0 && m.arc_alloc != NULL, "Spivey with allocations: arcs");
	int same = 1, differ = 0;
	for (uint32_t k = 0; k < m.narcs; k++) {
		const struct model_arc *a = &m.arcs[k];
		const struct model_arc_alloc *x = &m.arc_alloc[k];
		same &= x->self_in.bytes == a->self_in && x->child_in.bytes == a->child_in &&
			x->self_out.bytes == a->self_out && x->child_out.bytes == a->child_out;
		differ |= a->self_in + a->child_in != a->self_out + a->child_out;
	}
	CHECK(same && differ, "every arc's bytes are its times (%u arcs, some with _in != _out)",
	      m.narcs);
	/* the cycle P → Q → R is in progress in the last four contexts */
	model_cycles(&m);
	CHECK(m.ncycles == 1 && m.cycles[0].time == 260 && m.cycles[0].alloc.bytes == 260 &&
		      m.cycles[0].alloc.blocks == 5 + 6 + 7 + 8,
	      "the cycle's bytes are its time (260), its blocks those of C4..C7 (26)");
	model_free(&m);
	fx_init(&f, 1);
	fx_ctx(&f, "[main] [P]", 1, 0, 5);
	CHECK(fx_build(&m, &f) == 0 && m.arc_alloc == NULL, "no allocation data: no arc_alloc");
	model_free(&m);
}

int main(void)
{
	flat_and_tree();
	arcs_like_times();
	not_measured();
	deselect_b();
	focus_and_callers();
	prune(1);
	prune(0);
	prune(2);
	threads();
	overflow();
	merge();
	return check_failures != 0;
}
