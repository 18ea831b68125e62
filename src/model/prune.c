/*
 * prune.c - hiding small nodes of a tree (view.h, model_prune_opts).
 *
 * A node is small when its inherited time is under the thresholds (and
 * its bytes too, Note [Pruning with allocations]), or
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

static int under_percent(uint64_t part, uint64_t total, double percent)
{
	return 100.0 * (double)part < percent * (double)total;
}

/* What a node is measured against: the tree's totals and the options. */
struct prune_limits {
	const struct model_prune_opts *o;
	const struct model_node *nodes;
	const struct model_node_alloc *alloc; /* the nodes' allocations, or NULL */
	uint64_t min_ticks;                   /* o->min_time in ticks */
};

/*
 * Note [Pruning with allocations]: with allocation data a node is small
 * by --min-percent only when it is small in time and in bytes alike (as
 * GHC lists a cost centre above 1 % of either): a node that allocates
 * half the bytes in no time is what `--sort alloc` is looking for.  A
 * cost of which the tree has none (no bytes allocated, or no time
 * charged) has no say, so a profile that counted allocations and found
 * none prunes as one that did not count them.
 */
static int small_share(const struct prune_limits *l, uint32_t k, double percent)
{
	const struct model_node *x = &l->nodes[k], *root = &l->nodes[0];
	uint64_t all_bytes = l->alloc ? l->alloc[0].inherited.bytes : 0;
	int time = under_percent(x->inherited, root->inherited, percent);
	if (!all_bytes)
		return time;
	int bytes = under_percent(l->alloc[k].inherited.bytes, all_bytes, percent);
	return root->inherited ? time && bytes : bytes;
}

static int is_small(const struct prune_limits *l, uint32_t k, uint64_t subtree_entries)
{
	const struct model_prune_opts *o = l->o;
	if (o->min_percent > 0 && small_share(l, k, o->min_percent))
		return 1;
	if (o->min_time > 0 && l->nodes[k].inherited < l->min_ticks)
		return 1;
	return o->min_calls > 0 && subtree_entries < o->min_calls;
}

/* Node k is hidden under its shown parent p: p's "(n hidden)" line takes it. */
static void hide(struct model_pruned *out, const struct prune_limits *l, uint32_t k, uint32_t p,
		 uint64_t subtree_entries)
{
	out->hidden[k] = 1;
	out->rest[p].count++;
	out->rest[p].entries += subtree_entries;
	out->rest[p].time += l->nodes[k].inherited;
	if (l->alloc)
		model_alloc_add(&out->rest[p].alloc, l->alloc[k].inherited);
}

void model_prune_nodes(struct model *m, const struct model_node *nodes,
		       const struct model_node_alloc *alloc, uint32_t n,
		       const struct model_prune_opts *o, struct model_pruned *out)
{
	out->hidden = model_calloc(m, n ? n : 1, sizeof *out->hidden);
	out->rest = model_calloc(m, n ? n : 1, sizeof *out->rest);
	if (n == 0)
		return;
	uint64_t *sub = xcalloc(n, sizeof *sub); /* entries in each subtree */
	model_subtree_entries(nodes, n, sub);
	struct prune_limits l = {
		.o = o,
		.nodes = nodes,
		.alloc = alloc,
		.min_ticks = ticks_of(o->min_time, m->prof ? m->prof->ticks_per_sec : 0),
	};
	for (uint32_t k = 1; k < n; k++) {
		uint32_t p = nodes[k].parent;
		if (out->hidden[p])
			out->hidden[k] = 1;
		else if (is_small(&l, k, sub[k]))
			hide(out, &l, k, p, sub[k]);
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
		model_prune_nodes(m, m->nodes, m->node_alloc, m->nnodes, o, &m->tree_pruned);
	for (uint32_t i = 0; i < m->ncallers; i++) {
		struct model_tree *t = &m->callers[i];
		model_prune_nodes(m, t->nodes, t->node_alloc, t->nnodes, o, &t->pruned);
	}
}
