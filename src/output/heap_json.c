/*
 * heap_json.c - the live heap in `report --json` (docs/json.md, "Heap"):
 * its members beside the allocations' wherever both exist, read from the
 * heap model of the same view (model/heap.h: contexts, nodes, arcs and
 * callers trees numbered alike), and the top-level "heap" object with the
 * peak, the totals and the samples.  A profile without heap data has none
 * of them.
 */
#include "model/heap.h"
#include "model/view.h"
#include "output/jrep.h"

void jr_heap_fn(struct jrep *r, uint32_t cc)
{
	const struct model_fn *fn;
	if (!r->heap)
		return;
	fn = &r->heap->fns[cc];
	json_kuint(&r->j, "self_live_bytes", fn->self_alloc.bytes);
	json_kuint(&r->j, "self_live_blocks", fn->self_alloc.blocks);
	json_kuint(&r->j, "inherited_live_bytes", fn->inherited_alloc.bytes);
	json_kuint(&r->j, "inherited_live_blocks", fn->inherited_alloc.blocks);
}

void jr_heap_ctx(struct jrep *r, const struct ccp_context *c)
{
	const struct model *m = r->m;
	const struct ccp_context *x;
	if (!r->heap || c < m->ctx || c >= m->ctx + m->nctx)
		return;
	x = &r->heap->ctx[c - m->ctx];
	json_kuint(&r->j, "live_bytes", x->alloc_bytes);
	json_kuint(&r->j, "live_blocks", x->alloc_blocks);
}

void jr_heap_node(struct jrep *r, const struct model_node_alloc *live, uint32_t k)
{
	struct model_node_alloc a;
	if (!r->heap)
		return;
	a = model_node_alloc_at(live, k);
	json_kuint(&r->j, "individual_live_bytes", a.individual.bytes);
	json_kuint(&r->j, "inherited_live_bytes", a.inherited.bytes);
}

void jr_heap_hidden(struct jrep *r, const struct model_pruned *live, uint32_t k)
{
	uint64_t bytes;
	if (!r->heap)
		return;
	bytes = live && live->rest ? live->rest[k].alloc.bytes : 0;
	json_kuint(&r->j, "individual_live_bytes", bytes);
	json_kuint(&r->j, "inherited_live_bytes", bytes);
}

const struct model_tree *jr_heap_callers(const struct jrep *r, uint32_t i)
{
	const struct model *live = r->heap;
	if (!live || live->ncallers != r->m->ncallers)
		return NULL;
	return live->callers[i].nnodes == r->m->callers[i].nnodes ? &live->callers[i] : NULL;
}

/* Arc k's live bytes from the heap model (a zero arc when it has none). */
static struct model_arc_alloc arc_live(const struct jrep *r, uint32_t k)
{
	const struct model_arc_alloc *x = heap_arc_alloc(r->heap, r->m, k);
	return x ? *x : (struct model_arc_alloc){{0, 0}, {0, 0}, {0, 0}, {0, 0}};
}

void jr_heap_arc(struct jrep *r, uint32_t k)
{
	struct model_arc_alloc x;
	if (!r->heap)
		return;
	x = arc_live(r, k);
	json_kuint(&r->j, "self_in_live_bytes", x.self_in.bytes);
	json_kuint(&r->j, "child_in_live_bytes", x.child_in.bytes);
	json_kuint(&r->j, "self_out_live_bytes", x.self_out.bytes);
	json_kuint(&r->j, "child_out_live_bytes", x.child_out.bytes);
}

void jr_heap_arc_side(struct jrep *r, uint32_t k, int incoming)
{
	struct model_arc_alloc x;
	if (!r->heap)
		return;
	x = arc_live(r, k);
	json_kuint(&r->j, "self_live_bytes", (incoming ? x.self_in : x.self_out).bytes);
	json_kuint(&r->j, "child_live_bytes", (incoming ? x.child_in : x.child_out).bytes);
}

const struct model *jr_heap_thread(struct jrep *r, uint32_t i, struct model_thread *one)
{
	const struct model *live = r->heap;
	if (!live || i >= live->nthread_models)
		return NULL;
	model_thread_build(one, live, i);
	json_kuint(&r->j, "total_live_bytes", one->m.total_alloc.bytes);
	return &one->m;
}

/* Each sample: its time, its bytes outside any context, and its bytes
 * in the view (all of them without a focus). */
static void jr_samples(struct jrep *r)
{
	const struct ccp_heap *h = &r->m->prof->heap;
	int focused = r->m->view && r->m->view->focus;
	json_key(&r->j, "samples");
	json_begin_array(&r->j);
	for (uint32_t k = 0; k < h->nsamples; k++) {
		const struct ccp_heap_sample *s = &h->samples[k];
		json_newline(&r->j);
		json_begin_object(&r->j);
		json_kuint(&r->j, "time_ns", s->time_ns);
		json_kuint(&r->j, "outside_bytes", focused ? 0 : s->outside_bytes);
		json_kuint(&r->j, "bytes", heap_sample_in_view(r->m, s));
		json_end_object(&r->j);
	}
	json_end_array(&r->j);
}

void jr_heap(struct jrep *r)
{
	const struct model *live = r->heap;
	const struct ccp_heap *h = &r->m->prof->heap;
	struct model_alloc total, outside;
	uint32_t largest;
	if (!live)
		return;
	total = model_alloc_total(live);
	outside = model_alloc_outside(live);
	largest = heap_largest_sample(r->m);
	json_newline(&r->j);
	json_key(&r->j, "heap");
	json_begin_object(&r->j);
	json_kuint(&r->j, "interval_ns", h->interval_ns);
	json_kuint(&r->j, "peak_bytes", h->peak_bytes);
	json_kuint(&r->j, "untracked_allocs", r->m->prof->stats.untracked_allocs);
	json_kuint(&r->j, "live_bytes", total.bytes);
	json_kuint(&r->j, "live_blocks", total.blocks);
	json_kuint(&r->j, "outside_live_bytes", outside.bytes);
	json_kuint(&r->j, "outside_live_blocks", outside.blocks);
	json_kuint(&r->j, "profile_live_bytes",
		   live->base ? model_alloc_total(live->base).bytes : total.bytes);
	json_key(&r->j, "largest_sample");
	if (largest == HEAP_AT_END)
		json_null(&r->j);
	else
		json_uint(&r->j, largest);
	json_newline(&r->j);
	jr_samples(r);
	json_end_object(&r->j);
}
