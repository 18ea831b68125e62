/*
 * contexts.c - the contexts listing pass: every merged context, most
 * expensive first (time, then entries, then first seen, so the order is
 * deterministic for equal costs).
 */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"

struct ctx_key {
	uint64_t time, entries;
	uint32_t ctx;
};

/*
 * Note [Radix sort]: the order is total (time descending, then entries
 * descending, then first seen), so any correct sort gives the same
 * result; a million contexts sort several times faster by radix than by
 * qsort's comparisons through a function pointer.  Least significant
 * byte first, each pass stable: first the bytes of the entries, then
 * those of the time, each complemented so that larger sorts first; the
 * keys start in context order, which stability keeps for ties.  Bytes
 * that are the same in every key (the top bytes, mostly) need no pass.
 */
#define RADIX 256
#define KEY_BYTES 16 /* entries bytes 0..7, then time bytes 8..15 */

static unsigned key_byte(const struct ctx_key *k, unsigned b)
{
	uint64_t v = b < 8 ? ~k->entries : ~k->time;
	return (unsigned)(v >> (8 * (b % 8))) & (RADIX - 1);
}

static void radix_sort(struct ctx_key *keys, uint32_t n)
{
	uint32_t (*count)[RADIX] = xcalloc(KEY_BYTES, sizeof *count);
	for (uint32_t i = 0; i < n; i++)
		for (unsigned b = 0; b < KEY_BYTES; b++)
			count[b][key_byte(&keys[i], b)]++;
	struct ctx_key *tmp = xnmalloc(n ? n : 1, sizeof *tmp), *from = keys, *to = tmp;
	for (unsigned b = 0; b < KEY_BYTES; b++) {
		if (n == 0 || count[b][key_byte(&keys[0], b)] == n)
			continue; /* the same byte everywhere */
		uint32_t start[RADIX], sum = 0;
		for (unsigned d = 0; d < RADIX; d++) {
			start[d] = sum;
			sum += count[b][d];
		}
		for (uint32_t i = 0; i < n; i++)
			to[start[key_byte(&from[i], b)]++] = from[i];
		struct ctx_key *t = from;
		from = to;
		to = t;
	}
	if (from != keys)
		memcpy(keys, from, (size_t)n * sizeof *keys);
	free(tmp);
	free(count);
}

void model_contexts(struct model *m)
{
	struct ctx_key *keys = xnmalloc(m->nctx ? m->nctx : 1, sizeof *keys);
	for (uint32_t k = 0; k < m->nctx; k++)
		keys[k] = (struct ctx_key){m->ctx[k].time, m->ctx[k].entries, k};
	radix_sort(keys, m->nctx);
	m->ctx_by_time = model_calloc(m, m->nctx, sizeof *m->ctx_by_time);
	for (uint32_t k = 0; k < m->nctx; k++)
		m->ctx_by_time[k] = keys[k].ctx;
	free(keys);
}

/*
 * Note [Prefetch]: in an order by cost (the contexts listings) consecutive
 * contexts and their histories are far apart, and with a million of them
 * each visit would wait twice for main memory: once for the context, once
 * for its history.  So a walk asks for the ones a few steps ahead.  Out of
 * line on purpose: gcc 12 drops the prefetches of this body when it
 * inlines it.
 */
#define PREFETCH_CTX 16 /* contexts this far ahead */
#define PREFETCH_HIST 8 /* histories this far ahead (their context is there) */

void model_ctx_prefetch(const struct model *m, const uint32_t *order, uint32_t i)
{
	if (i + PREFETCH_CTX < m->nctx)
		__builtin_prefetch(&m->ctx[order[i + PREFETCH_CTX]]);
	if (i + PREFETCH_HIST < m->nctx)
		__builtin_prefetch(m->ctx[order[i + PREFETCH_HIST]].hist);
}
