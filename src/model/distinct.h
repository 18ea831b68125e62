/*
 * distinct.h - does one thread list a history twice?  Asked of every
 * single-thread profile while the merge walks its contexts, so cheaply
 * that a thread whose histories all differ can keep being borrowed (Note
 * [Duplicate histories] in distinct.c).
 *
 *     struct model_repeats r;
 *     model_repeats_init(&r, n);
 *     for each context, in order: model_repeats_add(&r, hist, len, same);
 *     if (model_repeats_finish(&r)) merge the thread's contexts;
 *
 * `same` is how many entries the history shares with the last non-empty
 * one added before it (0 is always right, only slower): the walk that
 * checks the histories finds it anyway, and what it shares need not be
 * hashed again.
 */
#ifndef CCPROF_MODEL_DISTINCT_H
#define CCPROF_MODEL_DISTINCT_H

#include <stddef.h>
#include <stdint.h>

#define MODEL_REPEATS_AHEAD 16 /* hashes computed before their slot is read */

struct model_repeats {
	uint64_t *prefix;  /* prefix[i]: hash chain over the last history's first i entries */
	size_t prefix_cap;
	uint32_t *slot;    /* fingerprints, 0 = empty, at most half full */
	size_t mask;
	unsigned shift;    /* a hash's first slot is hash >> shift */
	uint64_t ahead[MODEL_REPEATS_AHEAD]; /* the last hashes added, slots prefetched */
	uint32_t added;
	int met;           /* a fingerprint was met again */
};

/* For a thread of n contexts. */
void model_repeats_init(struct model_repeats *r, uint32_t n);
/* The next context's history h[0..len), sharing `same` entries with the
 * last non-empty one added. */
void model_repeats_add(struct model_repeats *r, const uint32_t *h, uint32_t len, uint32_t same);
/* 1 if some history may have been added twice, 0 if surely none was;
 * frees r. */
int model_repeats_finish(struct model_repeats *r);

#endif
