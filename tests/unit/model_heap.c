/*
 * model_heap.c - the live heap as a cost (Note [The live heap as a cost]
 * in model/heap.h) on hand-built contexts: Morgan & Jarvis's example of
 * model_alloc.c, each context holding part of what it allocated.
 *
 *   context        T   bytes blocks  live  blocks   sample 0  sample 1
 *   <root>         5      7     1      7      1          .         7
 *   [a]           40     20     2      8      1         20         8
 *   [a] [b]       40     10     1     10      1          .        10
 *   [a] [c]        1     10     1      0      0         10         .
 *   [a] [b] [c]    1     50     5     30      3         50        30
 *   outside:             100    3     16      1         40        16
 *   (sample times 1 ms and 2 ms)
 *
 *   live at end: 55 bytes, 6 blocks in contexts, 71 in all
 *     COST a 8, b 10, c 30;  INHERITED a 48, b 40, c 30   (blocks 1, 1, 3; 5, 4, 3)
 *     b deselected: COST a 18, c 30;  focus c: 30
 *   sample 0: 80 in contexts, 120 in all (the largest); a 20, c 60
 *     (inherited a 80), no blocks;  focus b: 50 of it
 *
 * The heap view of a view has its contexts and nodes numbered as that
 * view's, and its pruning: at 20 %, ⟨c,a⟩ (1 tick, 10 of 97 bytes
 * allocated) is hidden in both, and the hidden line has its live bytes
 * (0 at the end).
 */
#include "model/heap.h"
#include "model_fixture.h"
#include "output/escape.h"

static void build_mj_heap(struct fixture *f)
{
	static struct ccp_heap_record recs[] = {
		{0, 1, 20}, {0, 3, 10}, {0, 4, 50},           /* sample 0 */
		{0, 0, 7},  {0, 1, 8},  {0, 2, 10}, {0, 4, 30}, /* sample 1 */
	};
	static struct ccp_heap_sample samples[] = {
		{.time_ns = 1000000, .outside_bytes = 40, .nrecords = 3, .records = recs},
		{.time_ns = 2000000, .outside_bytes = 16, .nrecords = 4, .records = recs + 3},
	};
	static const struct {
		const char *hist;
		uint64_t t, bytes, blocks, live, live_blocks;
	} ctx[] = {
		{"", 5, 7, 1, 7, 1},          {"[a]", 40, 20, 2, 8, 1},
		{"[a] [b]", 40, 10, 1, 10, 1}, {"[a] [c]", 1, 10, 1, 0, 0},
		{"[a] [b] [c]", 1, 50, 5, 30, 3},
	};
	fx_init(f, 1000);
	for (size_t i = 0; i < sizeof ctx / sizeof ctx[0]; i++) {
		fx_ctx(f, ctx[i].hist, ctx[i].hist[0] != '\0', 0, ctx[i].t);
		fx_ctx_alloc(f, ctx[i].bytes, ctx[i].blocks);
		f->threads[0].contexts[i].live_bytes = ctx[i].live;
		f->threads[0].contexts[i].live_blocks = ctx[i].live_blocks;
	}
	f->p.alloc.outside_bytes = 100;
	f->p.alloc.outside_blocks = 3;
	f->p.heap = (struct ccp_heap){.measured = 1, .interval_ns = 1000000, .peak_bytes = 500,
				      .outside_live_bytes = 16, .outside_live_blocks = 1,
				      .nsamples = 2, .samples = samples};
}

static void check_alloc(struct model_alloc a, uint64_t bytes, uint64_t blocks, const char *what)
{
	CHECK(a.bytes == bytes && a.blocks == blocks, "%s: %llu bytes, %llu blocks (want %llu, %llu)",
	      what, (unsigned long long)a.bytes, (unsigned long long)a.blocks,
	      (unsigned long long)bytes, (unsigned long long)blocks);
}

static struct model_alloc node_live(const struct model *m, const char *path, int inherited)
{
	const struct model_node *x = fx_node(m, path);
	if (!x || !m->node_alloc)
		fx_die(path);
	return inherited ? m->node_alloc[x - m->nodes].inherited
			 : m->node_alloc[x - m->nodes].individual;
}

/* A view of the fixture and the live heap under it, at one moment. */
struct heaped {
	struct viewed w; /* set w.o's options after heaped_init */
	struct heap_base b;
	struct model m;
};

static void heaped_init(struct heaped *h)
{
	model_view_opts_init(&h->w.o);
}

/* The view of w.o, and the live heap at sample (HEAP_AT_END: at the end)
 * under it. */
static int heaped_build(struct heaped *h, struct fixture *f, uint32_t sample)
{
	char err[128] = "";
	if (view_of(&h->w, f, MODEL_ALL) != 0)
		return -1;
	if (heap_base_build(&h->b, h->w.vm.prof, sample, err, sizeof err) != 0) {
		printf("# heap_base_build: %s\n", err);
		return -1;
	}
	heap_view_build(&h->m, &h->b, &h->w.vm, MODEL_ALL);
	return 0;
}

static void heaped_free(struct heaped *h)
{
	model_free(&h->m);
	heap_base_free(&h->b);
	view_free(&h->w);
}

static void at_end(void)
{
	static struct fixture f;
	struct heaped h;
	const struct model *m = &h.m, *vm = &h.w.vm;
	build_mj_heap(&f);
	heaped_init(&h);
	CHECK(heaped_build(&h, &f, HEAP_AT_END) == 0, "the live heap at the end builds");
	check_alloc(fx_fn(m, "a")->self_alloc, 8, 1, "COST(a) live");
	check_alloc(fx_fn(m, "b")->self_alloc, 10, 1, "COST(b) live");
	check_alloc(fx_fn(m, "c")->self_alloc, 30, 3, "COST(c) live");
	check_alloc(fx_fn(m, "a")->inherited_alloc, 48, 5, "INHERITED(a) live");
	check_alloc(fx_fn(m, "b")->inherited_alloc, 40, 4, "INHERITED(b) live");
	check_alloc(m->total_alloc, 55, 6, "live in contexts");
	check_alloc(m->root_alloc, 7, 1, "live in the root context");
	check_alloc(model_alloc_outside(m), 16, 1, "live in no context");
	check_alloc(model_alloc_total(m), 71, 7, "live in all");
	check_alloc(heap_live_in_contexts(&f.p), 55, 6, "heap_live_in_contexts");
	check_alloc(node_live(m, "a/b/c", 0), 30, 3, "tree a/b/c live");
	check_alloc(node_live(m, "a/c", 0), 0, 0, "tree a/c: freed");
	CHECK_EQ_U(fx_fn(m, "a")->self, 40, "time is still time: self(a)");
	check_alloc(fx_fn(vm, "a")->self_alloc, 20, 2, "the original keeps its allocations");
	int same = m->nctx == vm->nctx && m->nnodes == vm->nnodes;
	for (uint32_t k = 0; same && k < m->nctx; k++)
		same = m->ctx[k].len == vm->ctx[k].len && m->ctx[k].time == vm->ctx[k].time;
	for (uint32_t k = 0; same && k < m->nnodes; k++)
		same = m->nodes[k].cc == vm->nodes[k].cc && m->nodes[k].parent == vm->nodes[k].parent;
	CHECK(same, "contexts and nodes numbered as the original view's");
	heaped_free(&h);
}

static void views(void)
{
	static struct fixture f;
	struct heaped h;
	build_mj_heap(&f);
	heaped_init(&h);
	model_patterns_add(&h.w.o.deselect, "b");
	CHECK(heaped_build(&h, &f, HEAP_AT_END) == 0, "b deselected builds");
	check_alloc(fx_fn(&h.m, "a")->self_alloc, 18, 2, "b deselected: COST(a) live");
	check_alloc(fx_fn(&h.m, "c")->self_alloc, 30, 3, "b deselected: COST(c) live");
	check_alloc(node_live(&h.m, "a/c", 0), 30, 3, "b deselected: tree a/c live");
	heaped_free(&h);

	heaped_init(&h);
	model_patterns_add(&h.w.o.focus, "c");
	CHECK(heaped_build(&h, &f, HEAP_AT_END) == 0, "focus c builds");
	check_alloc(model_alloc_total(&h.m), 30, 3, "focus c: 30 live, none outside");
	CHECK_EQ_U(heap_sample_in_view(&h.w.vm, &f.p.heap.samples[0]), 60,
		   "focus c: sample 0 has 60 bytes in the view");
	heaped_free(&h);
}

static void pruned(void)
{
	static struct fixture f;
	struct heaped h;
	build_mj_heap(&f);
	heaped_init(&h);
	h.w.o.prune.min_percent = 20;
	CHECK(heaped_build(&h, &f, HEAP_AT_END) == 0, "pruned at 20 %% builds");
	const struct model_pruned *live = &h.m.tree_pruned, *vm = &h.w.vm.tree_pruned;
	uint32_t k = (uint32_t)(fx_node(&h.w.vm, "a/c") - h.w.vm.nodes);
	uint32_t a = (uint32_t)(fx_node(&h.w.vm, "a") - h.w.vm.nodes);
	CHECK(live->hidden && live->hidden[k] && vm->hidden[k], "a/c hidden in both");
	CHECK(live->rest[a].count == 1 && live->rest[a].alloc.bytes == 0 &&
		      vm->rest[a].alloc.bytes == 10 && live->rest[a].time == vm->rest[a].time,
	      "a's hidden line: the same node, its time, 0 live of 10 allocated");
	heaped_free(&h);
}

static void samples(void)
{
	static struct fixture f;
	struct heaped h;
	build_mj_heap(&f);
	heaped_init(&h);
	CHECK(heaped_build(&h, &f, 0) == 0, "sample 0 builds");
	CHECK_EQ_U(heap_largest_sample(&h.w.vm), 0, "sample 0 is the largest");
	check_alloc(fx_fn(&h.m, "a")->self_alloc, 20, 0, "sample 0: COST(a), no blocks");
	check_alloc(fx_fn(&h.m, "c")->self_alloc, 60, 0, "sample 0: COST(c)");
	check_alloc(fx_fn(&h.m, "a")->inherited_alloc, 80, 0, "sample 0: INHERITED(a)");
	check_alloc(model_alloc_outside(&h.m), 40, 0, "sample 0: outside");
	check_alloc(h.m.root_alloc, 0, 0, "sample 0: the root context holds none");
	CHECK_EQ_U(heap_sample_in_view(&h.w.vm, &f.p.heap.samples[0]), 120,
		   "sample 0 in the whole view: all of it, its total");
	heaped_free(&h);

	heaped_init(&h);
	model_patterns_add(&h.w.o.focus, "b");
	CHECK(heaped_build(&h, &f, 0) == 0, "focus b builds");
	CHECK_EQ_U(heap_sample_in_view(&h.w.vm, &f.p.heap.samples[0]), 50,
		   "focus b: 50 bytes of sample 0, none outside");
	CHECK_EQ_U(heap_largest_sample(&h.w.vm), 0, "focus b: sample 0 is its largest too");
	heaped_free(&h);

	static struct ccp_profile none;
	none.heap.measured = 1;
	struct model nothing = {.prof = &none};
	CHECK_EQ_U(heap_largest_sample(&nothing), HEAP_AT_END, "no samples: no largest");
}

/* The .hp export's escapes (export_hp.c): a band name has no
 * whitespace, a string doubles its quotes. */
static void hp_escapes(void)
{
	static const char name[] = "operator new(a b)\t\n\x01\xff", job[] = "say \"hi\"\n";
	char out[ESCAPE_MAX(sizeof name)];
	size_t n = escape_mem(out, &escape_hp_name, name, sizeof name - 1);
	CHECK(n == 21 && memcmp(out, "operator_new(a_b)___?", 21) == 0,
	      "hp band name: whitespace and control characters '_', bad UTF-8 '?' (%.*s)", (int)n,
	      out);
	n = escape_mem(out, &escape_hp_string, job, sizeof job - 1);
	CHECK(n == 11 && memcmp(out, "say \"\"hi\"\"?", 11) == 0,
	      "hp string: quotes doubled, a newline '?' (%.*s)", (int)n, out);
}

int main(void)
{
	hp_escapes();
	at_end();
	views();
	pruned();
	samples();
	return check_failures != 0;
}
