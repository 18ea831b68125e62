/*
 * tree.c - the stack tree pass (GHC's cost-centre-stack report).
 *
 * docs/semantics.md, "The views": project each context to its compressed
 * stack (its marked entries, in order), add the costs of contexts with the
 * same projection, and arrange the stacks as a prefix tree.  Individual =
 * the node's own costs, inherited = individual + Σ children's inherited,
 * entries = Σ E+R; time and allocations alike (these beside the nodes:
 * Note [Node allocations] in model.h).
 * A prefix that no context projects to is still a node, with 0 entries:
 * in Spivey's example (docs/semantics.md, "Cost centres and contexts")
 * ⟨main, Q⟩ and ⟨main, Q, R⟩ are such intermediate stacks on the way to
 * ⟨main, Q, R, P⟩.
 *
 * Compressed stacks are ordered by most recent entry, not by who called
 * whom (main→B→C→B compresses to main, C, B), as in Morgan & Jarvis; the
 * report says so where it prints the tree.
 *
 * Nodes are created parent-first, so every child has a larger index than
 * its parent: one backwards sweep sums inherited costs, with no recursion
 * however deep the tree.  The callers trees (callers.c) are built and
 * finished by the same code (model_nodes_*, model_tree_finish), and the
 * writers walk either kind with model_walk.
 */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

#include "model/shortsort.h"
#include "model/xalloc.h"

/* ---- building any tree of model_nodes (model.h) ---------------------------- */

/*
 * Note [Child lookup]: a node's child for a cost centre is found by walking
 * the node's children (linked through first_child and next_sibling while
 * the tree is built) as long as it has few, and in the hash table only for
 * the rare wide nodes, whose children all go in it once they are more than
 * CHILD_WALK.  A table of every node took 32 bytes per node and a cache
 * miss per lookup; the walk reads a few nodes, mostly made together.
 */
#define CHILD_WALK 8

static uint64_t child_key(uint32_t parent, uint32_t cc)
{
	return (uint64_t)parent << 32 | cc;
}

static uint32_t nodes_new(struct model_nodes *b, uint32_t parent, uint32_t cc)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->nodes = xrealloc(b->nodes, b->cap, sizeof *b->nodes);
		if (b->alloc)
			b->alloc = xrealloc(b->alloc, b->cap, sizeof *b->alloc);
	}
	uint32_t k = b->n++;
	if (b->alloc)
		b->alloc[k] = (struct model_node_alloc){{0, 0}, {0, 0}};
	b->nodes[k] = (struct model_node){
		.cc = cc,
		.parent = parent,
		.first_child = MODEL_NONE,
		.next_sibling = MODEL_NONE,
		.depth = parent == MODEL_NONE ? 0 : b->nodes[parent].depth + 1,
	};
	return k;
}

void model_nodes_init(struct model_nodes *b, uint32_t root_cc, int with_alloc)
{
	*b = (struct model_nodes){.n = 0};
	if (with_alloc) /* grows with the nodes (nodes_new) */
		b->alloc = xnmalloc(1, sizeof *b->alloc);
	htab_init(&b->children, 64); /* Note [Child lookup]: grows with the wide nodes */
	nodes_new(b, MODEL_NONE, root_cc);
}

/* The child of parent for cc, or MODEL_NONE. */
static uint32_t child_find(const struct model_nodes *b, uint32_t parent, uint32_t cc)
{
	const struct model_node *p = &b->nodes[parent];
	if (p->nchildren > CHILD_WALK)
		return htab_get_u64(&b->children, child_key(parent, cc));
	for (uint32_t k = p->first_child; k != MODEL_NONE; k = b->nodes[k].next_sibling)
		if (b->nodes[k].cc == cc)
			return k;
	return MODEL_NONE;
}

/* Link the new node k under parent; a parent that becomes wide moves
 * its children to the table. */
static void child_add(struct model_nodes *b, uint32_t parent, uint32_t k)
{
	struct model_node *p = &b->nodes[parent];
	b->nodes[k].next_sibling = p->first_child;
	p->first_child = k;
	if (++p->nchildren == CHILD_WALK + 1) {
		for (uint32_t c = k; c != MODEL_NONE; c = b->nodes[c].next_sibling)
			htab_put_u64(&b->children, child_key(parent, b->nodes[c].cc), c);
	} else if (p->nchildren > CHILD_WALK + 1) {
		htab_put_u64(&b->children, child_key(parent, b->nodes[k].cc), k);
	}
}

uint32_t model_nodes_child(struct model_nodes *b, uint32_t parent, uint32_t cc)
{
	uint32_t k = child_find(b, parent, cc);
	if (k == MODEL_NONE) {
		k = nodes_new(b, parent, cc);
		child_add(b, parent, k);
	}
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

/* The same for allocations, in their own sweep (Note [Node allocations]). */
static void tree_inherit_alloc(const struct model_node *nodes, struct model_node_alloc *alloc,
			       uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		alloc[k].inherited = alloc[k].individual;
	for (uint32_t k = n; k-- > 1;)
		model_alloc_add(&alloc[nodes[k].parent].inherited, alloc[k].inherited);
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
 * Link each node's children, most inherited time first.  The children are
 * first linked in node order from the parent fields alone (any tree
 * numbered parent-first will do), then each group of two or more is
 * sorted on its own in a buffer as large as the largest group: most
 * groups have one or two members, and nothing the size of the tree is
 * allocated.
 */
static void tree_order(const struct model *m, struct model_node *nodes, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		nodes[k].first_child = MODEL_NONE;
	nodes[0].next_sibling = MODEL_NONE;
	for (uint32_t k = n; k-- > 1;) {
		struct model_node *x = &nodes[k];
		x->next_sibling = nodes[x->parent].first_child;
		nodes[x->parent].first_child = k;
	}
	struct node_key *keys = NULL;
	uint32_t cap = 0;
	for (uint32_t p = 0; p < n; p++) {
		uint32_t first = nodes[p].first_child, g = 0;
		if (first == MODEL_NONE || nodes[first].next_sibling == MODEL_NONE)
			continue; /* no child or one: nothing to order */
		for (uint32_t k = first; k != MODEL_NONE; k = nodes[k].next_sibling) {
			if (g == cap) {
				cap = cap ? 2 * cap : 64;
				keys = xrealloc(keys, cap, sizeof *keys);
			}
			keys[g++] = (struct node_key){
				.inherited = nodes[k].inherited,
				.entries = nodes[k].entries,
				.name = nodes[k].cc == MODEL_GAP ? "" : m->fns[nodes[k].cc].name,
				.node = k,
			};
		}
		shortsort(keys, g, sizeof *keys, cmp_node_key);
		for (uint32_t i = 0; i < g; i++)
			nodes[keys[i].node].next_sibling = i + 1 < g ? keys[i + 1].node : MODEL_NONE;
		nodes[p].first_child = keys[0].node;
	}
	free(keys);
}

void model_tree(struct model *m)
{
	struct tree_build b = {.prev = NULL};
	model_nodes_init(&b.nodes, MODEL_NONE, model_alloc_measured(m));
	for (uint32_t k = 0; k < m->nctx; k++) {
		const struct ccp_context *c = &m->ctx[k];
		uint32_t node = tree_insert(&b, c); /* may move b.nodes.nodes */
		struct model_node *x = &b.nodes.nodes[node];
		x->entries += c->entries + c->recursive;
		x->individual += c->time;
		if (b.nodes.alloc)
			model_alloc_add(&b.nodes.alloc[node].individual, model_ctx_alloc(c));
	}
	htab_free(&b.nodes.children);
	free(b.path);
	m->nodes = b.nodes.nodes;
	m->node_alloc = b.nodes.alloc;
	m->nnodes = b.nodes.n;
	model_tree_finish(m, m->nodes, m->node_alloc, m->nnodes);
}

void model_subtree_entries(const struct model_node *nodes, uint32_t n, uint64_t *out)
{
	for (uint32_t k = n; k-- > 0;) {
		out[k] += nodes[k].entries;
		if (k > 0)
			out[nodes[k].parent] += out[k];
	}
}

void model_tree_finish(const struct model *m, struct model_node *nodes,
		       struct model_node_alloc *alloc, uint32_t n)
{
	if (n == 0)
		return;
	tree_inherit(nodes, n);
	if (alloc)
		tree_inherit_alloc(nodes, alloc, n);
	tree_order(m, nodes, n);
}

/* ---- walking any tree of model_nodes (model.h) ----------------------------- */

/* Node k, or the first of its later siblings that is not hidden, or
 * MODEL_NONE. */
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
