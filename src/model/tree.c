/*
 * tree.c - the stack tree pass (GHC's cost-centre-stack report).
 *
 * DESIGN.md §3: project each context to its compressed stack (its marked
 * entries, in order), add the costs of contexts with the same projection,
 * and arrange the stacks as a prefix tree.  Individual = the node's own
 * costs, inherited = individual + Σ children's inherited, entries = Σ E+R.
 * A prefix that no context projects to is still a node (0 entries): that
 * is how `main` → `P` → `Q` gets a `P` node when every context running P
 * has Q marked after it, for example.
 *
 * Compressed stacks are ordered by most recent entry, not by who called
 * whom (main→B→C→B compresses to main, C, B), as in Morgan & Jarvis; the
 * report says so where it prints the tree.
 *
 * Nodes are created parent-first, so every child has a larger index than
 * its parent: one backwards sweep sums inherited costs, with no recursion
 * however deep the tree.
 */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"

struct tree_build {
	struct htab children; /* (parent << 32 | cc) -> node */
	uint32_t cap;
};

static uint32_t tree_new_node(struct model *m, struct tree_build *b, uint32_t parent, uint32_t cc)
{
	if (m->nnodes == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 256;
		m->nodes = xrealloc(m->nodes, b->cap, sizeof *m->nodes);
	}
	uint32_t k = m->nnodes++;
	m->nodes[k] = (struct model_node){
		.cc = cc,
		.parent = parent,
		.first_child = MODEL_NONE,
		.next_sibling = MODEL_NONE,
		.depth = parent == MODEL_NONE ? 0 : m->nodes[parent].depth + 1,
	};
	return k;
}

static uint32_t tree_child(struct model *m, struct tree_build *b, uint32_t parent, uint32_t cc)
{
	uint64_t key = (uint64_t)parent << 32 | cc;
	uint32_t k = htab_get_u64(&b->children, key);
	if (k == HTAB_NONE) {
		k = tree_new_node(m, b, parent, cc);
		htab_put_u64(&b->children, key, k);
	}
	return k;
}

/* The node of c's compressed stack, created with its prefixes if new. */
static uint32_t tree_insert(struct model *m, struct tree_build *b, const struct model_ctx *c)
{
	uint32_t node = 0;
	for (uint32_t i = 0; i < c->len; i++)
		if (CCP_ENTRY_MARKED(c->hist[i]))
			node = tree_child(m, b, node, CCP_ENTRY_CC(c->hist[i]));
	return node;
}

static void tree_inherit(struct model *m)
{
	for (uint32_t k = 0; k < m->nnodes; k++)
		m->nodes[k].inherited = m->nodes[k].individual;
	for (uint32_t k = m->nnodes; k-- > 1;)
		m->nodes[m->nodes[k].parent].inherited += m->nodes[k].inherited;
}

struct node_key {
	uint32_t parent;
	uint64_t inherited, entries;
	const char *name;
	uint32_t node;
};

static int cmp_node_key(const void *pa, const void *pb)
{
	const struct node_key *a = pa, *b = pb;
	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	if (a->inherited != b->inherited)
		return a->inherited > b->inherited ? -1 : 1;
	if (a->entries != b->entries)
		return a->entries > b->entries ? -1 : 1;
	int c = strcmp(a->name, b->name);
	if (c)
		return c;
	return a->node < b->node ? -1 : a->node > b->node;
}

/* Link each node's children, most inherited time first. */
static void tree_order(struct model *m)
{
	uint32_t n = m->nnodes - 1; /* every node but the root */
	struct node_key *keys = xnmalloc(n ? n : 1, sizeof *keys);
	for (uint32_t k = 1; k < m->nnodes; k++) {
		const struct model_node *x = &m->nodes[k];
		keys[k - 1] = (struct node_key){
			.parent = x->parent,
			.inherited = x->inherited,
			.entries = x->entries,
			.name = m->fns[x->cc].name,
			.node = k,
		};
	}
	qsort(keys, n, sizeof *keys, cmp_node_key);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = keys[i].node;
		if (i > 0 && keys[i - 1].parent == keys[i].parent)
			m->nodes[keys[i - 1].node].next_sibling = k;
		else
			m->nodes[keys[i].parent].first_child = k;
	}
	free(keys);
}

void model_tree(struct model *m)
{
	struct tree_build b = {.cap = 0};
	htab_init(&b.children, m->nctx);
	tree_new_node(m, &b, MODEL_NONE, MODEL_NONE);
	for (uint32_t k = 0; k < m->nctx; k++) {
		const struct model_ctx *c = &m->ctx[k];
		uint32_t node = tree_insert(m, &b, c); /* may move m->nodes */
		struct model_node *x = &m->nodes[node];
		x->entries += c->entries + c->recursive;
		x->individual += c->time;
	}
	htab_free(&b.children);
	tree_inherit(m);
	tree_order(m);
}
