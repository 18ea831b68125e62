/*
 * heap.c - the live heap as a cost of contexts (heap.h, Note [The live
 * heap as a cost]): a profile's copy whose allocations are the live heap
 * of one moment, and the views of it.
 */
#include "model/heap.h"

#include <stdlib.h>
#include <string.h>

#include "model/view.h"
#include "model/xalloc.h"

/* Every context of p with its live heap at the write as allocations
 * (a sample's records set them afterwards: heap_base_build). */
static void copy_contexts(struct heap_base *b, const struct ccp_profile *p, int at_end)
{
	size_t total = 0, at = 0;
	for (uint32_t t = 0; t < p->nthreads; t++)
		total += p->threads[t].ncontexts;
	b->contexts = xnmalloc(total ? total : 1, sizeof *b->contexts);
	b->prof.threads = xnmalloc(p->nthreads ? p->nthreads : 1, sizeof *b->prof.threads);
	for (uint32_t t = 0; t < p->nthreads; t++) {
		const struct ccp_thread *th = &p->threads[t];
		b->prof.threads[t] = *th;
		b->prof.threads[t].contexts = b->contexts + at;
		for (uint32_t i = 0; i < th->ncontexts; i++) {
			struct ccp_context *x = &b->contexts[at + i];
			*x = th->contexts[i];
			x->alloc_bytes = at_end ? x->live_bytes : 0;
			x->alloc_blocks = at_end ? x->live_blocks : 0;
		}
		at += th->ncontexts;
	}
}

/* A sample's live bytes as the copy's allocations (no blocks: a sample
 * has none).  The reader checked the records name existing contexts. */
static void set_sample(struct heap_base *b, const struct ccp_heap_sample *s)
{
	for (uint32_t r = 0; r < s->nrecords; r++) {
		const struct ccp_heap_record *x = &s->records[r];
		b->prof.threads[x->thread].contexts[x->context].alloc_bytes = x->bytes;
	}
	b->prof.alloc.outside_bytes = s->outside_bytes;
	b->prof.alloc.outside_blocks = 0;
}

int heap_base_build(struct heap_base *b, const struct ccp_profile *p, uint32_t sample, char *err,
		    size_t errlen)
{
	memset(b, 0, sizeof *b);
	b->model.root_ctx = MODEL_NONE;
	b->prof = *p;
	b->prof.threads = NULL; /* until copy_contexts makes the copy's */
	copy_contexts(b, p, sample == HEAP_AT_END);
	if (sample == HEAP_AT_END) {
		b->prof.alloc.outside_bytes = p->heap.outside_live_bytes;
		b->prof.alloc.outside_blocks = p->heap.outside_live_blocks;
	} else {
		set_sample(b, &p->heap.samples[sample]);
	}
	return model_merge(&b->model, &b->prof, err, errlen);
}

void heap_base_free(struct heap_base *b)
{
	model_free(&b->model);
	free(b->contexts);
	free(b->prof.threads);
	memset(b, 0, sizeof *b);
}

/*
 * A tree of m whose nodes are numbered as a tree of like (heap.h), pruned
 * as like's is (lp): the same nodes hidden, and each "(n hidden)" line
 * with the costs of m's hidden children, as model_prune_nodes adds them
 * up.  Pruning m by its own bytes would hide other nodes than the report
 * shows (Note [Pruning with allocations] in prune.c).
 */
static void prune_nodes_like(struct model *m, const struct model_node *nodes,
			     const struct model_node_alloc *alloc, uint32_t n,
			     const struct model_pruned *lp, struct model_pruned *out)
{
	out->hidden = model_calloc(m, n ? n : 1, sizeof *out->hidden);
	out->rest = model_calloc(m, n ? n : 1, sizeof *out->rest);
	memcpy(out->hidden, lp->hidden, n * sizeof *lp->hidden);
	uint64_t *sub = xcalloc(n ? n : 1, sizeof *sub);
	model_subtree_entries(nodes, n, sub);
	for (uint32_t k = 1; k < n; k++) {
		uint32_t p = nodes[k].parent;
		if (!lp->hidden[k] || lp->hidden[p])
			continue;
		struct model_hidden *h = &out->rest[p];
		h->count++;
		h->entries += sub[k];
		h->time += nodes[k].inherited;
		model_alloc_add(&h->alloc, model_node_alloc_at(alloc, k).inherited);
	}
	free(sub);
}

/* like's pruning of the stack tree on m. */
static void prune_like(struct model *m, const struct model *like)
{
	const struct model_pruned *lp = &like->tree_pruned;
	if (!like->pruning || !lp->hidden || !m->nodes || m->nnodes != like->nnodes)
		return;
	m->pruning = 1;
	m->prune = like->prune;
	prune_nodes_like(m, m->nodes, m->node_alloc, m->nnodes, lp, &m->tree_pruned);
}

void heap_view_build(struct model *m, const struct heap_base *b, const struct model *like,
		     unsigned passes)
{
	model_view_build(m, &b->model, like->view, passes);
	model_names_like(m, like); /* --short-names: like's are shortened */
	prune_like(m, like);
}

/* like's callers trees of m's contexts, pruned as like's are.  Their
 * nodes are numbered alike: model_callers makes them in context order
 * from the histories, as the stack tree's. */
static void callers_like(struct model *m, const struct model *like)
{
	uint32_t n = like->ncallers;
	uint32_t *fns = xnmalloc(n, sizeof *fns);
	int pruning = m->pruning;
	for (uint32_t i = 0; i < n; i++)
		fns[i] = like->callers[i].cc;
	m->pruning = 0; /* not by m's own bytes: prune_nodes_like */
	model_callers(m, fns, n);
	m->pruning = pruning;
	free(fns);
	for (uint32_t i = 0; i < n; i++) {
		struct model_tree *t = &m->callers[i];
		const struct model_pruned *lp = &like->callers[i].pruned;
		if (lp->hidden && t->nnodes == like->callers[i].nnodes)
			prune_nodes_like(m, t->nodes, t->node_alloc, t->nnodes, lp, &t->pruned);
	}
}

void heap_views_like(struct model *m, const struct model *like)
{
	if (like->ncallers)
		callers_like(m, like);
	if (like->nthread_models)
		model_threads(m, MODEL_FLAT);
}

const struct model_arc_alloc *heap_arc_alloc(const struct model *live, const struct model *m,
					     uint32_t k)
{
	const struct model_arc *a = &m->arcs[k];
	if (!live || !live->arc_alloc)
		return NULL;
	if (k < live->narcs && live->arcs[k].caller == a->caller &&
	    live->arcs[k].callee == a->callee)
		return &live->arc_alloc[k];
	/* not expected (heap.h), but a wrong arc's bytes would be silent */
	k = model_arc_index_find(&live->arc_index, live->arcs, a->caller, a->callee);
	return k == MODEL_NONE ? NULL : &live->arc_alloc[k];
}

struct model_alloc heap_live_in_contexts(const struct ccp_profile *p)
{
	struct model_alloc sum = {0, 0};
	for (uint32_t t = 0; t < p->nthreads; t++)
		for (uint32_t i = 0; i < p->threads[t].ncontexts; i++) {
			const struct ccp_context *c = &p->threads[t].contexts[i];
			model_alloc_add(&sum, (struct model_alloc){c->live_bytes, c->live_blocks});
		}
	return sum;
}

/* Whether the view of m keeps the context of record x. */
static int view_keeps(const struct model *m, const struct ccp_heap_record *x)
{
	const struct model_view *v = m->view;
	const struct ccp_context *c;
	uint32_t start;
	if (!v)
		return 1;
	if (v->thread != MODEL_NONE && v->thread != x->thread)
		return 0;
	if (!v->focus)
		return 1;
	c = &m->prof->threads[x->thread].contexts[x->context];
	return model_view_place(v, c->hist, c->len, &start) != MODEL_NONE;
}

uint64_t heap_sample_in_view(const struct model *m, const struct ccp_heap_sample *s)
{
	int focused = m->view && m->view->focus;
	uint64_t total = focused ? 0 : s->outside_bytes;
	for (uint32_t r = 0; r < s->nrecords; r++)
		if (view_keeps(m, &s->records[r]))
			total += s->records[r].bytes;
	return total;
}

uint32_t heap_largest_sample(const struct model *m)
{
	const struct ccp_heap *h = &m->prof->heap;
	uint32_t best = HEAP_AT_END;
	uint64_t most = 0;
	for (uint32_t k = 0; k < h->nsamples; k++) {
		uint64_t total = heap_sample_in_view(m, &h->samples[k]);
		if (best == HEAP_AT_END || total > most) {
			best = k;
			most = total;
		}
	}
	return best;
}
