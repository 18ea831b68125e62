/*
 * arcindex.c - the model's index of arcs: (caller, callee) -> arc.
 *
 * The arcs pass looks up an arc for every new pair of adjacent entries,
 * a million times for a million contexts, in a table as large as the
 * arcs.  The general table (htab.h) keeps a 64-bit hash and the index in
 * 16 bytes per slot; here a slot is 8 bytes, the arc's number and the top
 * half of the key's hash, and a match is confirmed on the arc itself
 * (caller and callee), which the pass reads next anyway: half the memory
 * to fault in and to miss in the cache.
 *
 * A key's home slot is the top bits of its hash, which the slot keeps:
 * growing moves each entry from the old slots, in order, to the new slots
 * in order (home h becomes 2h or 2h + 1), instead of to random places.
 * Linear probing, at most half full.  Keys are hashed with htab_mix64,
 * which is seeded (Note [Hash flooding] in htab.h).
 */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"

#define MIN_BITS 6
#define MAX_BITS 32 /* homes come from the 32 bits a slot keeps */

static uint32_t arc_tag(uint32_t caller, uint32_t callee)
{
	return (uint32_t)(htab_mix64((uint64_t)caller << 32 | callee) >> 32);
}

static size_t home(const struct model_arc_index *x, uint32_t tag)
{
	return (size_t)(tag >> (32 - x->bits));
}

/* The slot for (caller, callee): the arc's, or the empty one where it
 * belongs. */
static size_t arc_slot(const struct model_arc_index *x, const struct model_arc *arcs,
		       uint32_t caller, uint32_t callee)
{
	uint32_t tag = arc_tag(caller, callee);
	size_t i = home(x, tag);
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
static void index_alloc(struct model_arc_index *x, unsigned bits)
{
	if (bits > MAX_BITS)
		xalloc_die(SIZE_MAX, __func__);
	size_t cap = (size_t)1 << bits;
	x->slot = xnmalloc(cap, sizeof *x->slot);
	memset(x->slot, 0, cap * sizeof *x->slot);
	x->mask = cap - 1;
	x->bits = bits;
}

void model_arc_index_init(struct model_arc_index *x)
{
	index_alloc(x, MIN_BITS);
	x->count = 0;
}

void model_arc_index_free(struct model_arc_index *x)
{
	free(x->slot);
	x->slot = NULL;
	x->mask = x->count = 0;
	x->bits = 0;
}

uint32_t model_arc_index_find(const struct model_arc_index *x, const struct model_arc *arcs,
			      uint32_t caller, uint32_t callee)
{
	if (!x->slot)
		return MODEL_NONE;
	uint32_t arc = x->slot[arc_slot(x, arcs, caller, callee)].arc;
	return arc ? arc - 1 : MODEL_NONE;
}

static void slot_put(struct model_arc_index *x, struct model_arc_slot s)
{
	size_t i = home(x, s.tag);
	while (x->slot[i].arc)
		i = (i + 1) & x->mask;
	x->slot[i] = s;
}

/* Twice the slots, filled in the order of the old ones.  Entries that
 * wrapped past the end (probing from a home near it) go last, so that
 * the writes stay in order.  (Any order would be correct.) */
static void index_grow(struct model_arc_index *x)
{
	struct model_arc_index old = *x;
	index_alloc(x, old.bits + 1);
	size_t start = 0;
	while (old.slot[start].arc && home(&old, old.slot[start].tag) > start)
		start++; /* wrapped entries at the start: they belong at the end */
	for (size_t k = 0; k <= old.mask; k++) {
		struct model_arc_slot s = old.slot[(start + k) & old.mask];
		if (s.arc)
			slot_put(x, s);
	}
	free(old.slot);
}

void model_arc_index_add(struct model_arc_index *x, const struct model_arc *arcs, uint32_t k)
{
	if (++x->count > (x->mask + 1) / 2)
		index_grow(x);
	size_t i = arc_slot(x, arcs, arcs[k].caller, arcs[k].callee);
	x->slot[i].arc = k + 1;
	x->slot[i].tag = arc_tag(arcs[k].caller, arcs[k].callee);
}

void model_arc_index_prefetch(const struct model_arc_index *x, uint32_t caller, uint32_t callee)
{
	__builtin_prefetch(&x->slot[home(x, arc_tag(caller, callee))]);
}
