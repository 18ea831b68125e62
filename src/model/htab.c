/*
 * htab.c - open addressing with linear probing, kept at most half full
 * (see htab.h).
 */
#include "model/htab.h"

#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "model/xalloc.h"

uint64_t htab_seed;

/* Note [Hash flooding] in htab.h.  A constructor, so that no hash is ever
 * computed with another seed; without getrandom, the clock, the process
 * id and where the stack is (ASLR) are secret enough for this. */
__attribute__((constructor)) static void htab_seed_init(void)
{
	uint64_t s = 0;
	if (getrandom(&s, sizeof s, GRND_NONBLOCK) != (ssize_t)sizeof s) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 32 ^ (uint64_t)getpid() << 16 ^
		    (uint64_t)(uintptr_t)&ts;
	}
	htab_seed = s;
}

static void htab_alloc(struct htab *t, size_t cap)
{
	t->slot = xcalloc(cap, sizeof *t->slot);
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
	free(t->slot);
	t->slot = NULL;
	t->mask = 0;
	t->count = 0;
}

static void htab_grow(struct htab *t)
{
	struct htab old = *t;
	htab_alloc(t, (old.mask + 1) * 2);
	for (size_t i = 0; i <= old.mask; i++) {
		if (!old.slot[i].item)
			continue;
		size_t j = htab_first(t, old.slot[i].hash);
		while (t->slot[j].item)
			j = htab_next(t, j);
		t->slot[j] = old.slot[i];
	}
	t->count = old.count;
	htab_free(&old);
}

void htab_put(struct htab *t, size_t i, uint64_t h, uint32_t item)
{
	t->slot[i].item = item + 1;
	t->slot[i].hash = h;
	if (++t->count > (t->mask + 1) / 2)
		htab_grow(t);
}

uint64_t htab_hash_words(const uint32_t *w, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n ^ htab_seed;
	for (size_t i = 0; i < n; i++)
		h = htab_mix64(h ^ w[i]) + 0x9e3779b97f4a7c15ULL;
	return htab_mix64(h);
}

uint32_t htab_get_u64(const struct htab *t, uint64_t key)
{
	uint32_t item = t->slot[htab_slot_u64(t, key)].item;
	return item ? item - 1 : HTAB_NONE;
}

void htab_put_u64(struct htab *t, uint64_t key, uint32_t item)
{
	htab_put(t, htab_slot_u64(t, key), htab_mix64(key), item);
}

size_t htab_slot_u64(const struct htab *t, uint64_t key)
{
	uint64_t h = htab_mix64(key);
	size_t i = htab_first(t, h);
	while (t->slot[i].item && t->slot[i].hash != h)
		i = htab_next(t, i);
	return i;
}

uint64_t htab_hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return htab_mix64(h);
}
