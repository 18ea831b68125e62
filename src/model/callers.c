/*
 * callers.c - the inverted tree of a function (docs/views.md, "Callers")
 * and the butterfly view's list of functions.
 *
 * For each context running F, walk the history leftwards from F over
 * real arcs: an adjacent pair with at least one entry marked really ran,
 * so the left one called the right one; two unmarked neighbours are a
 * path A4/A5 elided, shown as "…".  The walks, as paths from F, form a
 * prefix tree rooted at F that carries F's self time and calls.
 *
 *   [main] P [Q] [R] [P]   ->  P ← R ← Q ← P ← main
 *   [main] P Q [R] [P] [Q] ->  Q ← P ← R ← Q ← … ← P ← main
 *
 * Compressed stacks cannot be used: ⟨main, C, B⟩ from main→B→C→B says
 * nothing about who called C.
 *
 * Under a view (view.h) the walk starts at the entry that gets the time
 * (the top-most selected one), stops at the focus cut, and steps over
 * deselected entries as a rerun without them would; the same function
 * twice in a row (a→d→a with d deselected) is one step, as A1 makes it.
 *
 * Nodes: individual = time (and allocations) of walks that end there (at
 * a thread root or the focus), inherited = of walks through it, entries = calls of F
 * made in contexts whose walk ends there; `calls` adds entries up over
 * each subtree (calls of F through that chain of callers).
 */
#include "model/view.h"

#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"

/* Add one context's walk from position pos (running F) down to start. */
static void callers_walk(struct model_nodes *b, const struct model_view *v,
			 const struct model_src *s, uint32_t start, uint32_t pos, int calls)
{
	const uint32_t *h = s->hist;
	uint32_t node = 0, last = CCP_ENTRY_CC(h[pos]);
	int gap = 0;
	for (uint32_t j = pos; j-- > start;) {
		uint32_t cc = CCP_ENTRY_CC(h[j]);
		gap |= !CCP_ENTRY_MARKED(h[j]) && !CCP_ENTRY_MARKED(h[j + 1]);
		if (!model_view_selected(v, cc))
			continue;
		if (gap)
			node = model_nodes_child(b, node, MODEL_GAP);
		if (gap || cc != last)
			node = model_nodes_child(b, node, cc);
		last = cc;
		gap = 0;
	}
	if (gap) /* an elided path below the focus cut */
		node = model_nodes_child(b, node, MODEL_GAP);
	b->nodes[node].individual += s->time;
	if (b->alloc)
		model_alloc_add(&b->alloc[node].individual, s->alloc);
	b->nodes[node].entries += calls ? s->entries + s->recursive : 0;
}

static void callers_calls(struct model *m, struct model_tree *t)
{
	t->calls = model_calloc(m, t->nnodes, sizeof *t->calls);
	model_subtree_entries(t->nodes, t->nnodes, t->calls);
}

/* Tree t of f from its builder b. */
static void callers_finish(struct model *m, uint32_t f, struct model_nodes *b,
			   struct model_tree *t)
{
	htab_free(&b->children);
	t->cc = f;
	t->nnodes = b->n;
	t->nodes = model_calloc(m, b->n, sizeof *t->nodes);
	memcpy(t->nodes, b->nodes, b->n * sizeof *b->nodes);
	free(b->nodes);
	if (b->alloc) {
		t->node_alloc = model_calloc(m, b->n, sizeof *t->node_alloc);
		memcpy(t->node_alloc, b->alloc, b->n * sizeof *b->alloc);
		free(b->alloc);
	}
	model_tree_finish(m, t->nodes, t->node_alloc, t->nnodes);
	callers_calls(m, t);
	if (m->pruning)
		model_prune_nodes(m, t->nodes, t->node_alloc, t->nnodes, &m->prune, &t->pruned);
}

/*
 * One pass over the contexts for all the trees: each context goes to the
 * trees of the function it runs (the same function may be asked for more
 * than once), in context order as if each tree had its own pass, so the
 * nodes are numbered the same.  A pass per tree made --callers with a
 * pattern matching a thousand functions a thousand passes.
 */
void model_callers(struct model *m, const uint32_t *fns, uint32_t n)
{
	m->callers = model_calloc(m, n ? n : 1, sizeof *m->callers);
	m->ncallers = n;
	if (n == 0)
		return;
	struct model_nodes *b = xnmalloc(n, sizeof *b);
	uint32_t *first = xnmalloc(m->nfns ? m->nfns : 1, sizeof *first); /* per CC: a tree */
	uint32_t *next = xnmalloc(n, sizeof *next); /* per tree: the next one of its CC */
	for (uint32_t cc = 0; cc < m->nfns; cc++)
		first[cc] = MODEL_NONE;
	for (uint32_t i = n; i-- > 0;) {
		model_nodes_init(&b[i], fns[i], model_alloc_measured(m));
		next[i] = first[fns[i]];
		first[fns[i]] = i;
	}
	uint32_t nsrc = model_src_count(m);
	for (uint32_t k = 0; k < nsrc; k++) {
		struct model_src s;
		uint32_t start;
		model_src_get(m, k, &s);
		uint32_t pos = model_view_place(m->view, s.hist, s.len, &start);
		if (pos == MODEL_NONE)
			continue;
		int calls = model_view_selected(m->view, CCP_ENTRY_CC(s.hist[s.len - 1]));
		for (uint32_t i = first[CCP_ENTRY_CC(s.hist[pos])]; i != MODEL_NONE; i = next[i])
			callers_walk(&b[i], m->view, &s, start, pos, calls);
	}
	for (uint32_t i = 0; i < n; i++)
		callers_finish(m, fns[i], &b[i], &m->callers[i]);
	free(b);
	free(first);
	free(next);
}

void model_around(struct model *m, const uint32_t *fns, uint32_t n)
{
	m->around = model_calloc(m, n ? n : 1, sizeof *m->around);
	if (n)
		memcpy(m->around, fns, n * sizeof *fns);
	m->naround = n;
}
