/*
 * arcindex.c - the model's index of arcs: (caller, callee) -> arc.
 *
 * The arcs pass looks up an arc for every new pair of adjacent entries,
 * a million times for a million contexts, in a table as large as the
 * arcs.  The general table (htab.h) keeps a 64-bit hash and the index in
 * 16 bytes per slot; here a slot is 8 bytes, the arc's number and the top
 * half of the key's hash, and a match is confirmed on the arc itself
 * (caller and callee), which the pass reads next anyway.  Half the memory
 * to fault in and to miss in the cache.  Growing rehashes from the arcs,
 * in order.  Linear probing, at most half full; keys are hashed with
 * htab_mix64, which is seeded (Note [Hash flooding] in htab.h).
 */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"

static uint64_t arc_hash(uint32_t caller, uint32_t callee)
{
	return htab_mix64((uint64_t)caller << 32 | callee);
}

/* The slot for (caller, callee): the arc's, or the empty one where it
 * belongs. */
static size_t arc_slot(const struct model_arc_index *x, const struct model_arc *arcs,
		       uint32_t caller, uint32_t callee)
{
	uint64_t h = arc_hash(caller, callee);
	uint32_t tag = (uint32_t)(h >> 32);
	size_t i = (size_t)h & x->mask;
	for (; x->slot[i].arc; i = (i + 1) & x->mask) {
		const struct model_arc *a = &arcs[x->slot[i].arc - 1];
		if (x->slot[i].tag == tag && a->caller == caller && a->callee == callee)
			break;
	}
	return i;
}

/* Zeroed by hand, not by calloc: a fresh large calloc block is the
 * kernel's shared zero page until written, so a probe (a read) then an
 * insert (a write) would fault twice on each page. */
static void index_alloc(struct model_arc_index *x, size_t cap)
{
	x->slot = xnmalloc(cap, sizeof *x->slot);
	memset(x->slot, 0, cap * sizeof *x->slot);
	x->mask = cap - 1;
}

void model_arc_index_init(struct model_arc_index *x)
{
	index_alloc(x, 64);
	x->count = 0;
}

void model_arc_index_free(struct model_arc_index *x)
{
	free(x->slot);
	x->slot = NULL;
	x->mask = x->count = 0;
}

uint32_t model_arc_index_find(const struct model_arc_index *x, const struct model_arc *arcs,
			      uint32_t caller, uint32_t callee)
{
	if (!x->slot)
		return MODEL_NONE;
	uint32_t arc = x->slot[arc_slot(x, arcs, caller, callee)].arc;
	return arc ? arc - 1 : MODEL_NONE;
}

static void index_put(struct model_arc_index *x, const struct model_arc *arcs, uint32_t k)
{
	size_t i = arc_slot(x, arcs, arcs[k].caller, arcs[k].callee);
	x->slot[i].arc = k + 1;
	x->slot[i].tag = (uint32_t)(arc_hash(arcs[k].caller, arcs[k].callee) >> 32);
}

void model_arc_index_add(struct model_arc_index *x, const struct model_arc *arcs, uint32_t k)
{
	if (++x->count > (x->mask + 1) / 2) {
		free(x->slot);
		index_alloc(x, (x->mask + 1) * 2);
		for (uint32_t a = 0; a < k; a++)
			index_put(x, arcs, a);
	}
	index_put(x, arcs, k);
}
