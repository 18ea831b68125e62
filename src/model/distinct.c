/*
 * distinct.c - does one thread list a history twice (see distinct.h)?
 */
#include "model/distinct.h"

#include <stdlib.h>
#include <string.h>

#include "model/htab.h"
#include "model/xalloc.h"

/*
 * Note [Duplicate histories]: the runtime keeps one context per history,
 * so the contexts of a one-thread profile are distinct and the merge
 * borrows them (Note [Borrowed contexts] in model.h).  A hand-made or
 * damaged file can still list a history twice in a thread, and then the
 * thread is merged exactly as several threads are: one context per
 * history, its counters added.  Telling the two apart must cost far less
 * than merging, which copies 40 bytes and fills a 16-byte slot of a
 * half-empty table per context (72 MB for a million).  So:
 *
 *   - Each history is hashed from where it leaves the previous one: a
 *     hash chain over its entries, whose values for the shared prefix are
 *     kept from the previous history (contexts in file order share most of
 *     their history; the format stores them as such deltas).  A context
 *     costs one multiplication per entry of its own, and one htab_mix64,
 *     which is seeded (Note [Hash flooding]): a file cannot be made to
 *     crowd a part of the table.
 *   - The hash's top bits choose the first slot of a linear probe in a
 *     table of 4-byte fingerprints (the hash's low 32 bits, 1 forced on so
 *     that 0 means empty), kept at most half full.  Equal histories have
 *     equal hashes, so the second one meets the first one's fingerprint on
 *     its way to an empty slot: if no history meets its own fingerprint,
 *     no two are the same.
 *   - One that does is a repeat, or two different histories agreeing on
 *     the 31 bits compared: at most half full, the table compares about
 *     half a fingerprint per context, so that happens about once in 5,000
 *     runs on a million contexts (the seed changes with every run).  The
 *     caller merges either way, and the merge compares whole histories, so
 *     the result is exact: a false alarm only costs the merge's time.
 *
 * Reading a slot as soon as its hash is known would wait for memory once
 * per context (the table is 8 MB for a million contexts): the slot is
 * prefetched and read MODEL_REPEATS_AHEAD contexts later.  On the
 * million-context bench profile the whole check costs about 10 ms (3 % of
 * `report`) and no peak memory (docs/performance.md, "Report speed").
 */

#define CHAIN_MUL 0x9e3779b97f4a7c15ULL
#define CHAIN_START CHAIN_MUL /* the empty history */

void model_repeats_init(struct model_repeats *r, uint32_t n)
{
	unsigned log2 = 4;
	while (((size_t)1 << log2) < 2 * (size_t)n)
		log2++;
	*r = (struct model_repeats){.prefix_cap = 64, .mask = ((size_t)1 << log2) - 1,
				    .shift = 64 - log2};
	r->prefix = xnmalloc(r->prefix_cap, sizeof *r->prefix);
	r->prefix[0] = CHAIN_START;
	/* Cleared by writing, not by calloc: each slot is read before it is
	 * written, and a page first read maps the zero page, then faults a
	 * second time on the write. */
	r->slot = xnmalloc(r->mask + 1, sizeof *r->slot);
	memset(r->slot, 0, (r->mask + 1) * sizeof *r->slot);
}

/* The hash of h[0..len); prefix[0..same] are h's already. */
static uint64_t history_hash(struct model_repeats *r, const uint32_t *h, uint32_t len,
			     uint32_t same)
{
	if (len >= r->prefix_cap) {
		r->prefix_cap = 2 * (size_t)len;
		r->prefix = xrealloc(r->prefix, r->prefix_cap, sizeof *r->prefix);
	}
	for (uint32_t i = same; i < len; i++)
		r->prefix[i + 1] = (r->prefix[i] ^ h[i]) * CHAIN_MUL;
	return htab_mix64(r->prefix[len]);
}

/* Put hash's fingerprint in the table, or note that it is there already. */
static void fingerprint_add(struct model_repeats *r, uint64_t hash)
{
	uint32_t fp = (uint32_t)hash | 1;
	size_t i = (size_t)(hash >> r->shift);
	for (; r->slot[i]; i = (i + 1) & r->mask)
		if (r->slot[i] == fp) {
			r->met = 1;
			return;
		}
	r->slot[i] = fp;
}

void model_repeats_add(struct model_repeats *r, const uint32_t *h, uint32_t len, uint32_t same)
{
	if (r->met)
		return;
	uint64_t hash = history_hash(r, h, len, same);
	__builtin_prefetch(&r->slot[hash >> r->shift], 1);
	uint64_t *at = &r->ahead[r->added++ % MODEL_REPEATS_AHEAD];
	if (r->added > MODEL_REPEATS_AHEAD)
		fingerprint_add(r, *at);
	*at = hash;
}

int model_repeats_finish(struct model_repeats *r)
{
	uint32_t n = r->added < MODEL_REPEATS_AHEAD ? r->added : MODEL_REPEATS_AHEAD;
	for (uint32_t k = r->added - n; k < r->added && !r->met; k++)
		fingerprint_add(r, r->ahead[k % MODEL_REPEATS_AHEAD]);
	int met = r->met;
	free(r->prefix);
	free(r->slot);
	memset(r, 0, sizeof *r);
	return met;
}
