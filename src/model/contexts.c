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
