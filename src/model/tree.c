/*
 * tree.c - the stack tree pass (GHC's cost-centre-stack report).
 *
 * DESIGN.md §3: project each context to its compressed stack (its marked
 * entries, in order), add the costs of contexts with the same projection,
 * and arrange the stacks as a prefix tree.  Individual = the node's own
 * costs, inherited = individual + Σ children's inherited, entries = Σ E+R.
 * A prefix that no context projects to is still a node, with 0 entries:
 * in Spivey's example ⟨main, Q⟩ and ⟨main, Q, R⟩ are such intermediate
 * stacks on the way to ⟨main, Q, R, P⟩.
 *
 * Compressed stacks are ordered by most recent entry, not by who called
 * whom (main→B→C→B compresses to main, C, B), as in Morgan & Jarvis; the
 * report says so where it prints the tree.
 *
 * Nodes are created parent-first, so every child has a larger index than
 * its parent: one backwards sweep sums inherited costs, with no recursion
 * however deep the tree.  The callers trees (callers.c) are built and
 * finished by the same code (model_nodes_*, model_tree_finish).
 */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"

/* ---- building any tree of model_nodes (model.h) ---------------------------- */

static uint32_t nodes_new(struct model_nodes *b, uint32_t parent, uint32_t cc)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->nodes = xrealloc(b->nodes, b->cap, sizeof *b->nodes);
	}
	uint32_t k = b->n++;
	b->nodes[k] = (struct model_node){
		.cc = cc,
		.parent = parent,
		.first_child = MODEL_NONE,
		.next_sibling = MODEL_NONE,
		.depth = parent == MODEL_NONE ? 0 : b->nodes[parent].depth + 1,
	};
	return k;
}

void model_nodes_init(struct model_nodes *b, size_t expect, uint32_t root_cc)
{
	*b = (struct model_nodes){.n = 0};
	htab_init(&b->children, expect);
	nodes_new(b, MODEL_NONE, root_cc);
}

uint32_t model_nodes_child(struct model_nodes *b, uint32_t parent, uint32_t cc)
{
	uint64_t key = (uint64_t)parent << 32 | cc;
	size_t i = htab_slot_u64(&b->children, key);
	if (b->children.slot[i].item)
		return b->children.slot[i].item - 1;
	uint32_t k = nodes_new(b, parent, cc);
	htab_put(&b->children, i, htab_mix64(key), k);
	return k;
}

/* ---- the stack tree -------------------------------------------------------- */

struct tree_build {
	struct model_nodes nodes;
	/* Note [Shared prefix]: the previous context and, for each of its
	 * entries, the node of its compressed stack up to that entry. */
	const uint32_t *prev;
	uint32_t prev_len;
	uint32_t *path;
	uint32_t path_cap;
};

/*
 * The node of c's compressed stack, created with its prefixes if new.
 *
 * Note [Shared prefix]: contexts created one after another usually share a
 * long prefix (the runtime creates them along call paths, and the file
 * keeps that order), and equal history prefixes have equal compressed
 * prefixes.  So the walk starts where the previous context's differs,
 * from the node remembered there: for a million contexts that saves tens
 * of millions of hash lookups.  Any order is still correct, just slower.
 */
static uint32_t tree_insert(struct tree_build *b, const struct ccp_context *c)
{
	uint32_t same = model_common_prefix(b->prev, b->prev_len, c->hist, c->len);
	uint32_t node = same ? b->path[same - 1] : 0;
	if (c->len > b->path_cap) {
		b->path_cap = c->len * 2;
		b->path = xrealloc(b->path, b->path_cap, sizeof *b->path);
	}
	for (uint32_t i = same; i < c->len; i++) {
		if (CCP_ENTRY_MARKED(c->hist[i]))
			node = model_nodes_child(&b->nodes, node, CCP_ENTRY_CC(c->hist[i]));
		b->path[i] = node;
	}
	b->prev = c->hist;
	b->prev_len = c->len;
	return node;
}

static void tree_inherit(struct model_node *nodes, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		nodes[k].inherited = nodes[k].individual;
	for (uint32_t k = n; k-- > 1;)
		nodes[nodes[k].parent].inherited += nodes[k].inherited;
}

struct node_key {
	uint64_t inherited, entries;
	const char *name;
	uint32_t node;
};

static int cmp_node_key(const void *pa, const void *pb)
{
	const struct node_key *a = pa, *b = pb;
	if (a->inherited != b->inherited)
		return a->inherited > b->inherited ? -1 : 1;
	if (a->entries != b->entries)
		return a->entries > b->entries ? -1 : 1;
	int c = strcmp(a->name, b->name);
	if (c)
		return c;
	return a->node < b->node ? -1 : a->node > b->node;
}

/*
 * Link each node's children, most inherited time first.  Children are
 * grouped by parent with a counting pass, then each group is sorted on
 * its own: most groups have one or two members, so this is far cheaper
 * than one sort of every node.
 */
static void tree_order(const struct model *m, struct model_node *nodes, uint32_t n)
{
	uint32_t *start = xcalloc((size_t)n + 1, sizeof *start);
	struct node_key *keys = xnmalloc(n, sizeof *keys);
	for (uint32_t k = 1; k < n; k++)
		start[nodes[k].parent + 1]++;
	for (uint32_t k = 0; k < n; k++)
		start[k + 1] += start[k];
	uint32_t *fill = xnmalloc(n, sizeof *fill);
	memcpy(fill, start, n * sizeof *fill);
	for (uint32_t k = 1; k < n; k++) {
		const struct model_node *x = &nodes[k];
		keys[fill[x->parent]++] = (struct node_key){
			.inherited = x->inherited,
			.entries = x->entries,
			.name = x->cc == MODEL_GAP ? "" : m->fns[x->cc].name,
			.node = k,
		};
	}
	free(fill);
	for (uint32_t p = 0; p < n; p++) {
		uint32_t lo = start[p], hi = start[p + 1];
		if (hi - lo > 1)
			qsort(keys + lo, hi - lo, sizeof *keys, cmp_node_key);
		for (uint32_t i = lo; i < hi; i++) {
			uint32_t next = i + 1 < hi ? keys[i + 1].node : MODEL_NONE;
			nodes[keys[i].node].next_sibling = next;
		}
		nodes[p].first_child = lo < hi ? keys[lo].node : MODEL_NONE;
	}
	free(keys);
	free(start);
}

void model_tree(struct model *m)
{
	struct tree_build b = {.prev = NULL};
	model_nodes_init(&b.nodes, m->nctx, MODEL_NONE);
	for (uint32_t k = 0; k < m->nctx; k++) {
		const struct ccp_context *c = &m->ctx[k];
		uint32_t node = tree_insert(&b, c); /* may move b.nodes.nodes */
		struct model_node *x = &b.nodes.nodes[node];
		x->entries += c->entries + c->recursive;
		x->individual += c->time;
	}
	htab_free(&b.nodes.children);
	free(b.path);
	m->nodes = b.nodes.nodes;
	m->nnodes = b.nodes.n;
	model_tree_finish(m, m->nodes, m->nnodes);
}

void model_subtree_entries(const struct model_node *nodes, uint32_t n, uint64_t *out)
{
	for (uint32_t k = n; k-- > 0;) {
		out[k] += nodes[k].entries;
		if (k > 0)
			out[nodes[k].parent] += out[k];
	}
}

void model_tree_finish(const struct model *m, struct model_node *nodes, uint32_t n)
{
	if (n == 0)
		return;
	tree_inherit(nodes, n);
	tree_order(m, nodes, n);
}
