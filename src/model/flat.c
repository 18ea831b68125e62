/*
 * flat.c - the flat profile pass: calls, self and inherited time per cost
 * centre, and the orders the reports list them in.
 *
 * docs/semantics.md, "The views", with run(C) = the last entry and
 * active(C) = the marked entries:
 *
 *   calls(F)     = Σ E(C) + R(C)  over C with run(C) = F
 *   self(F)      = Σ T(C)         over C with run(C) = F
 *   inherited(F) = Σ T(C)         over C with F ∈ active(C)
 *
 * and the same sums of the contexts' allocations (Note [Allocation as a
 * cost] in model.h).
 *
 * "Once per context" for inherited: a valid history marks each CC at most
 * once, but a stamp per CC makes that true even for a damaged one, at the
 * cost of one word per CC.
 */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"

static void flat_costs(struct model *m)
{
	uint32_t *stamp = xcalloc(m->nfns, sizeof *stamp); /* last context + 1 */
	for (uint32_t k = 0; k < m->nctx; k++) {
		const struct ccp_context *c = &m->ctx[k];
		if (c->len == 0)
			continue;
		struct model_fn *run = &m->fns[CCP_ENTRY_CC(c->hist[c->len - 1])];
		struct model_alloc alloc = model_ctx_alloc(c);
		run->calls += c->entries + c->recursive;
		run->self += c->time;
		model_alloc_add(&run->self_alloc, alloc);
		for (uint32_t i = 0; i < c->len; i++) {
			uint32_t cc = CCP_ENTRY_CC(c->hist[i]);
			if (!CCP_ENTRY_MARKED(c->hist[i]) || stamp[cc] == k + 1)
				continue;
			stamp[cc] = k + 1;
			m->fns[cc].inherited += c->time;
			model_alloc_add(&m->fns[cc].inherited_alloc, alloc);
		}
	}
	free(stamp);
}

/* Sort keys copied out, so the comparators need no global state. */
struct fn_key {
	uint64_t major, minor;
	const char *name;
	uint32_t cc;
};

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int cmp_fn_key(const void *pa, const void *pb)
{
	const struct fn_key *a = pa, *b = pb;
	int c = cmp_u64_desc(a->major, b->major);
	if (!c)
		c = cmp_u64_desc(a->minor, b->minor);
	if (!c)
		c = strcmp(a->name, b->name);
	if (!c)
		c = a->cc < b->cc ? -1 : a->cc > b->cc;
	return c;
}

/* The report orders (model.h): which costs sort, major then minor. */
enum flat_key { BY_SELF, BY_INHERITED, BY_CALLS, BY_SELF_ALLOC };

static struct fn_key fn_key_of(const struct model_fn *f, enum flat_key by)
{
	switch (by) {
	case BY_INHERITED: return (struct fn_key){f->inherited, f->self, NULL, 0};
	case BY_CALLS: return (struct fn_key){f->calls, f->self, NULL, 0};
	case BY_SELF_ALLOC: return (struct fn_key){f->self_alloc.bytes, f->self, NULL, 0};
	default: return (struct fn_key){f->self, f->calls, NULL, 0};
	}
}

/* The seen cost centres sorted by (major, minor) descending, then name. */
static uint32_t *flat_order(struct model *m, enum flat_key by)
{
	struct fn_key *keys = xnmalloc(m->nlisted ? m->nlisted : 1, sizeof *keys);
	uint32_t n = 0;
	for (uint32_t cc = 0; cc < m->nfns; cc++) {
		const struct model_fn *f = &m->fns[cc];
		if (!f->seen)
			continue;
		keys[n] = fn_key_of(f, by);
		keys[n].name = f->name;
		keys[n++].cc = cc;
	}
	qsort(keys, n, sizeof *keys, cmp_fn_key);
	uint32_t *order = model_calloc(m, n, sizeof *order);
	for (uint32_t i = 0; i < n; i++)
		order[i] = keys[i].cc;
	free(keys);
	return order;
}

void model_flat(struct model *m)
{
	flat_costs(m);
	m->nlisted = 0;
	for (uint32_t cc = 0; cc < m->nfns; cc++)
		m->nlisted += m->fns[cc].seen != 0;
	m->by_self = flat_order(m, BY_SELF);
	m->by_inherited = flat_order(m, BY_INHERITED);
	m->by_calls = flat_order(m, BY_CALLS);
	if (model_alloc_measured(m))
		m->by_self_alloc = flat_order(m, BY_SELF_ALLOC);
}
