/*
 * contexts.c - the contexts listing pass: every merged context, most
 * expensive first (time, then entries, then first seen, so the order is
 * deterministic for equal costs).
 */
#include "model/model.h"

#include <stdlib.h>

#include "model/xalloc.h"

struct ctx_key {
	uint64_t time, entries;
	uint32_t ctx;
};

static int cmp_ctx_key(const void *pa, const void *pb)
{
	const struct ctx_key *a = pa, *b = pb;
	if (a->time != b->time)
		return a->time > b->time ? -1 : 1;
	if (a->entries != b->entries)
		return a->entries > b->entries ? -1 : 1;
	return a->ctx < b->ctx ? -1 : a->ctx > b->ctx;
}

void model_contexts(struct model *m)
{
	struct ctx_key *keys = xnmalloc(m->nctx ? m->nctx : 1, sizeof *keys);
	for (uint32_t k = 0; k < m->nctx; k++)
		keys[k] = (struct ctx_key){m->ctx[k].time, m->ctx[k].entries, k};
	qsort(keys, m->nctx, sizeof *keys, cmp_ctx_key);
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
