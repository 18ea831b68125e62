/*
 * prune.c - hiding small nodes of a tree (view.h, model_prune_opts).
 *
 * A node is small when its inherited time is under the thresholds, or
 * when its whole subtree was entered fewer than min_calls times (a node
 * entered once whose children run a million calls is not small).  A small
 * node is hidden with everything below it, and its parent gets one
 * "(n hidden)" line carrying what the hidden children inherit, so every
 * shown node still has inherited = individual + Σ shown children + the
 * hidden line.  The root is never hidden.
 *
 * Nodes are numbered parent-first (tree.c, callers.c), so one forward
 * sweep decides each node after its parent, and one backward sweep adds
 * up subtree entries.
 */
#include "model/view.h"

#include <math.h>
#include <stdlib.h>

#include "model/xalloc.h"

/* Threshold in ticks for a time in seconds, rounded up: a node at
 * exactly the threshold stays. */
static uint64_t ticks_of(double secs, uint64_t tps)
{
	double t = ceil(secs * (double)tps);
	return t >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)t;
}

static int is_small(const struct model_node *x, uint64_t subtree_entries, uint64_t total,
		    uint64_t min_ticks, const struct model_prune_opts *o)
{
	if (o->min_percent > 0 && 100.0 * (double)x->inherited < o->min_percent * (double)total)
		return 1;
	if (o->min_time > 0 && x->inherited < min_ticks)
		return 1;
	return o->min_calls > 0 && subtree_entries < o->min_calls;
}

void model_prune_nodes(struct model *m, const struct model_node *nodes, uint32_t n,
		       const struct model_prune_opts *o, struct model_pruned *out)
{
	out->hidden = model_calloc(m, n ? n : 1, sizeof *out->hidden);
	out->rest = model_calloc(m, n ? n : 1, sizeof *out->rest);
	if (n == 0)
		return;
	uint64_t *sub = xcalloc(n, sizeof *sub); /* entries in each subtree */
	model_subtree_entries(nodes, n, sub);
	uint64_t total = nodes[0].inherited;
	uint64_t min_ticks = ticks_of(o->min_time, m->prof ? m->prof->ticks_per_sec : 0);
	for (uint32_t k = 1; k < n; k++) {
		uint32_t p = nodes[k].parent;
		if (out->hidden[p]) {
			out->hidden[k] = 1;
		} else if (is_small(&nodes[k], sub[k], total, min_ticks, o)) {
			out->hidden[k] = 1;
			out->rest[p].count++;
			out->rest[p].entries += sub[k];
			out->rest[p].time += nodes[k].inherited;
		}
	}
	free(sub);
}

/* The stack tree and the callers trees that exist; callers trees made
 * later are pruned by model_callers with the options remembered here. */
void model_prune(struct model *m, const struct model_prune_opts *o)
{
	m->pruning = 1;
	m->prune = *o;
	if (m->nodes)
		model_prune_nodes(m, m->nodes, m->nnodes, o, &m->tree_pruned);
	for (uint32_t i = 0; i < m->ncallers; i++) {
		struct model_tree *t = &m->callers[i];
		model_prune_nodes(m, t->nodes, t->nnodes, o, &t->pruned);
	}
}

static uint32_t shown(const struct model_node *nodes, const uint8_t *hidden, uint32_t k)
{
	while (k != MODEL_NONE && hidden && hidden[k])
		k = nodes[k].next_sibling;
	return k;
}

void model_walk(const struct model_node *nodes, const uint8_t *hidden, model_visit *visit,
		void *arg)
{
	uint32_t k = 0;
	visit(arg, 0, 0);
	for (;;) {
		uint32_t c = shown(nodes, hidden, nodes[k].first_child);
		if (c != MODEL_NONE) {
			k = c;
			visit(arg, k, 0);
			continue;
		}
		for (;;) { /* leave k and every ancestor with no shown sibling left */
			visit(arg, k, 1);
			if (k == 0)
				return;
			uint32_t s = shown(nodes, hidden, nodes[k].next_sibling);
			if (s != MODEL_NONE) {
				k = s;
				visit(arg, k, 0);
				break;
			}
			k = nodes[k].parent;
		}
	}
}
