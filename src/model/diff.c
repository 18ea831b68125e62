/*
 * diff.c - two profiles compared (see diff.h).
 *
 * Each side's rows are added into one table keyed by name (functions) or
 * by the names along the stack, each after its length ("4:main1:f"), so
 * matching costs one hash lookup per row.  A separator would not do:
 * region names are the program's strings, and can hold any byte but NUL.
 */
#include "model/diff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"

struct rows {
	struct htab tab;
	struct diff_row *v;
	const char **key;
	uint32_t n, cap;
};

/* The row for key, created (zeroed, only on `side`) if new. */
static struct diff_row *row_get(struct rows *r, struct ccp_arena *arena, const char *key,
				int side)
{
	uint64_t h = htab_hash_str(key);
	size_t i = htab_first(&r->tab, h);
	for (; r->tab.slot[i].item; i = htab_next(&r->tab, i))
		if (r->tab.slot[i].hash == h && strcmp(r->key[r->tab.slot[i].item - 1], key) == 0)
			return &r->v[r->tab.slot[i].item - 1];
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->v = xrealloc(r->v, r->cap, sizeof *r->v);
		r->key = xrealloc(r->key, r->cap, sizeof *r->key);
	}
	char *copy = ccp_arena_strdup(arena, key);
	if (!copy)
		xalloc_die(strlen(key) + 1, __func__);
	r->key[r->n] = copy;
	r->v[r->n] = (struct diff_row){.only = side == 0 ? DIFF_ONLY_A : DIFF_ONLY_B};
	htab_put(&r->tab, i, h, r->n);
	return &r->v[r->n++];
}

static void row_seen(struct diff_row *row, int side)
{
	if (row->only == (side == 0 ? DIFF_ONLY_B : DIFF_ONLY_A))
		row->only = DIFF_BOTH;
}

/* One side: its model, the scale of its times, and its live heap under
 * the same view (numbered alike: heap.h), or NULL. */
struct side {
	const struct model *m, *live;
	int index;
	double scale;
};

static void add_functions(struct rows *r, struct diff *d, const struct side *s)
{
	const struct model *m = s->m;
	int side = s->index;
	double scale = s->scale;
	for (uint32_t i = 0; i < m->nlisted; i++) {
		const struct model_fn *fn = &m->fns[m->by_self[i]];
		struct diff_row *row = row_get(r, d->arena, fn->name, side);
		row_seen(row, side);
		row->name = r->key[row - r->v];
		row->self[side] += model_seconds(m, fn->self) * scale;
		row->inherited[side] += model_seconds(m, fn->inherited) * scale;
		row->calls[side] += fn->calls;
		row->alloc[side] += d->alloc ? fn->self_alloc.bytes : 0;
		row->live[side] += d->live ? s->live->fns[m->by_self[i]].self_alloc.bytes : 0;
	}
}

/* The names along node k's stack, bottom first, and its key: each name
 * after its length in decimal and ':', so no two stacks share one. */
static const char **stack_names(struct diff *d, const struct model *m, uint32_t k,
				uint32_t depth, char **key)
{
	const char **names = ccp_arena_calloc(d->arena, depth ? depth : 1, sizeof *names);
	size_t len = 0;
	for (uint32_t i = depth, x = k; i-- > 0; x = m->nodes[x].parent) {
		names[i] = m->fns[m->nodes[x].cc].name;
		len += strlen(names[i]) + 21;
	}
	*key = xmalloc(len + 1);
	char *p = *key;
	for (uint32_t i = 0; i < depth; i++) {
		size_t n = strlen(names[i]);
		p += sprintf(p, "%zu:", n);
		memcpy(p, names[i], n);
		p += n;
	}
	*p = '\0';
	return names;
}

/* Stacks that some context has: entered, or with time of their own. */
static void add_stacks(struct rows *r, struct diff *d, const struct side *s)
{
	const struct model *m = s->m;
	int side = s->index;
	double scale = s->scale;
	for (uint32_t k = 1; k < m->nnodes; k++) {
		const struct model_node *x = &m->nodes[k];
		if (!x->entries && !x->individual &&
		    !(d->alloc && model_node_alloc_at(m->node_alloc, k).individual.bytes))
			continue;
		char *key;
		const char **names = stack_names(d, m, k, x->depth, &key);
		struct diff_row *row = row_get(r, d->arena, key, side);
		free(key);
		row_seen(row, side);
		row->stack = names;
		row->depth = x->depth;
		row->self[side] += model_seconds(m, x->individual) * scale;
		row->inherited[side] += model_seconds(m, x->inherited) * scale;
		row->calls[side] += x->entries;
		row->alloc[side] += d->alloc ? model_node_alloc_at(m->node_alloc, k).individual.bytes : 0;
		if (d->live)
			row->live[side] += model_node_alloc_at(s->live->node_alloc, k).individual.bytes;
	}
}

static int cmp_abs_desc(double a, double b)
{
	a = fabs(a);
	b = fabs(b);
	return a > b ? -1 : a < b;
}

static int cmp_row(const void *pa, const void *pb)
{
	const struct diff_row *a = pa, *b = pb;
	int c = cmp_abs_desc(a->self[1] - a->self[0], b->self[1] - b->self[0]);
	if (!c)
		c = cmp_abs_desc(a->inherited[1] - a->inherited[0],
				 b->inherited[1] - b->inherited[0]);
	if (!c)
		c = cmp_abs_desc((double)a->calls[1] - (double)a->calls[0],
				 (double)b->calls[1] - (double)b->calls[0]);
	if (!c)
		c = cmp_abs_desc((double)a->alloc[1] - (double)a->alloc[0],
				 (double)b->alloc[1] - (double)b->alloc[0]);
	if (!c)
		c = cmp_abs_desc((double)a->live[1] - (double)a->live[0],
				 (double)b->live[1] - (double)b->live[0]);
	if (!c && a->name && b->name)
		c = strcmp(a->name, b->name);
	for (uint32_t i = 0; !c && a->stack && i < a->depth && i < b->depth; i++)
		c = strcmp(a->stack[i], b->stack[i]);
	if (!c && a->stack)
		c = a->depth < b->depth ? -1 : a->depth > b->depth;
	return c;
}

/* Move the rows into the arena, sorted. */
static struct diff_row *rows_finish(struct diff *d, struct rows *r, uint32_t *n)
{
	if (r->n > 1)
		qsort(r->v, r->n, sizeof *r->v, cmp_row);
	struct diff_row *out = ccp_arena_calloc(d->arena, r->n ? r->n : 1, sizeof *out);
	if (!out)
		xalloc_die(r->n * sizeof *out, __func__);
	if (r->n)
		memcpy(out, r->v, r->n * sizeof *out);
	*n = r->n;
	free(r->v);
	free(r->key);
	htab_free(&r->tab);
	return out;
}

void diff_build(struct diff *d, const struct model *a, const struct model *b, int normalize)
{
	diff_build_live(d, a, b, NULL, NULL, normalize);
}

void diff_build_live(struct diff *d, const struct model *a, const struct model *b,
		     const struct model *live_a, const struct model *live_b, int normalize)
{
	memset(d, 0, sizeof *d);
	if (!(d->arena = ccp_arena_new()))
		xalloc_die(0, __func__);
	d->total[0] = model_seconds(a, a->total_time);
	d->total[1] = model_seconds(b, b->total_time);
	d->total_calls[0] = a->total_calls;
	d->total_calls[1] = b->total_calls;
	d->scale = normalize && d->total[1] > 0 ? d->total[0] / d->total[1] : 1.0;
	d->alloc = model_alloc_measured(a) && model_alloc_measured(b);
	d->live = live_a && live_b;

	struct side sa = {a, live_a, 0, 1.0}, sb = {b, live_b, 1, d->scale};
	struct rows fr = {.n = 0}, sr = {.n = 0};
	htab_init(&fr.tab, (size_t)a->nlisted + b->nlisted);
	htab_init(&sr.tab, (size_t)a->nnodes + b->nnodes);
	add_functions(&fr, d, &sa);
	add_functions(&fr, d, &sb);
	add_stacks(&sr, d, &sa);
	add_stacks(&sr, d, &sb);
	d->fns = rows_finish(d, &fr, &d->nfns);
	d->stacks = rows_finish(d, &sr, &d->nstacks);
}

void diff_free(struct diff *d)
{
	ccp_arena_free(d->arena);
	memset(d, 0, sizeof *d);
}

double diff_rel(double a, double b)
{
	return a != 0 ? (b - a) / a : NAN;
}
