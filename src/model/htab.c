/*
 * htab.c - open addressing with linear probing, kept at most half full
 * (see htab.h).
 */
#include "model/htab.h"

#include <stdlib.h>

#include "model/xalloc.h"

static void htab_alloc(struct htab *t, size_t cap)
{
	t->item = xcalloc(cap, sizeof *t->item);
	t->hash = xnmalloc(cap, sizeof *t->hash);
	t->mask = cap - 1;
	t->count = 0;
}

void htab_init(struct htab *t, size_t expect)
{
	size_t cap = 16;
	while (cap / 2 < expect)
		cap *= 2;
	htab_alloc(t, cap);
}

void htab_free(struct htab *t)
{
	free(t->item);
	free(t->hash);
	t->item = NULL;
	t->hash = NULL;
	t->mask = 0;
	t->count = 0;
}

static void htab_grow(struct htab *t)
{
	struct htab old = *t;
	htab_alloc(t, (old.mask + 1) * 2);
	for (size_t i = 0; i <= old.mask; i++) {
		if (!old.item[i])
			continue;
		size_t j = htab_first(t, old.hash[i]);
		while (t->item[j])
			j = htab_next(t, j);
		t->item[j] = old.item[i];
		t->hash[j] = old.hash[i];
	}
	t->count = old.count;
	htab_free(&old);
}

void htab_put(struct htab *t, size_t i, uint64_t h, uint32_t item)
{
	t->item[i] = item + 1;
	t->hash[i] = h;
	if (++t->count > (t->mask + 1) / 2)
		htab_grow(t);
}

uint64_t htab_hash_words(const uint32_t *w, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	for (size_t i = 0; i < n; i++)
		h = htab_mix64(h ^ w[i]) + 0x9e3779b97f4a7c15ULL;
	return htab_mix64(h);
}

uint32_t htab_get_u64(const struct htab *t, uint64_t key)
{
	uint64_t h = htab_mix64(key);
	for (size_t i = htab_first(t, h); t->item[i]; i = htab_next(t, i))
		if (t->hash[i] == h)
			return t->item[i] - 1;
	return HTAB_NONE;
}

void htab_put_u64(struct htab *t, uint64_t key, uint32_t item)
{
	uint64_t h = htab_mix64(key);
	size_t i = htab_first(t, h);
	while (t->item[i])
		i = htab_next(t, i);
	htab_put(t, i, h, item);
}
