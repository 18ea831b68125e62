/*
 * htab.h - open-addressing index tables for the model's passes.
 *
 * A table maps a 64-bit hash to a dense item index (uint32_t); the items
 * themselves live in the caller's arrays.  The caller probes and compares:
 *
 *     size_t i = htab_first(t, h);
 *     for (; t->slot[i].item; i = htab_next(t, i))
 *             if (t->slot[i].hash == h && same(t->slot[i].item - 1, key))
 *                     return t->slot[i].item - 1;
 *     htab_put(t, i, h, new_index);
 *
 * Slots hold index + 1, so 0 means empty.  The table keeps each slot's
 * full hash beside its index (one cache line per probe), so growing needs
 * no callback and most mismatches are rejected without touching the
 * items.
 *
 * For integer keys, htab_mix64 is a bijection: equal mixed values mean
 * equal keys, and htab_get_u64/htab_put_u64 compare only the hash.
 *
 * Note [Hash flooding]: a profile is input, and one built so that its
 * histories' hashes share their low bits would make every insertion walk
 * one cluster (quadratic: tests/fuzz/gen_seeds --flood).  So every hash
 * starts from htab_seed, a secret drawn once per process: the clusters of
 * a file made in advance fall apart.  Nothing the tool prints depends on
 * the order of a table's slots, so the output stays the same.
 */
#ifndef CCPROF_MODEL_HTAB_H
#define CCPROF_MODEL_HTAB_H

#include <stddef.h>
#include <stdint.h>

#define HTAB_NONE UINT32_MAX

struct htab_slot {
	uint64_t hash;
	uint32_t item; /* index + 1, or 0 for an empty slot */
};

struct htab {
	struct htab_slot *slot;
	size_t mask;   /* capacity - 1; capacity is a power of two */
	size_t count;
};

void htab_init(struct htab *t, size_t expect);
void htab_free(struct htab *t);
/* Store item in empty slot i found by a probe for h.  May grow the table,
 * which invalidates slot numbers found earlier. */
void htab_put(struct htab *t, size_t i, uint64_t h, uint32_t item);

static inline size_t htab_first(const struct htab *t, uint64_t h)
{
	return (size_t)h & t->mask;
}

static inline size_t htab_next(const struct htab *t, size_t i)
{
	return (i + 1) & t->mask;
}

/* Note [Hash flooding]: set before main (htab.c), never changed. */
extern uint64_t htab_seed;

/* Finaliser of MurmurHash3 on the seeded key: a bijection on 64 bits with
 * good avalanche. */
static inline uint64_t htab_mix64(uint64_t x)
{
	x ^= htab_seed;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* Hash of an array of 32-bit words (a history). */
uint64_t htab_hash_words(const uint32_t *w, size_t n);

/* Hash of a NUL-terminated string (FNV-1a, then mixed). */
uint64_t htab_hash_str(const char *s);

/* Integer-keyed use: the index stored for key, or HTAB_NONE. */
uint32_t htab_get_u64(const struct htab *t, uint64_t key);
/* Store item for a key known to be absent. */
void htab_put_u64(struct htab *t, uint64_t key, uint32_t item);
/* The slot holding key, or the empty slot where it belongs: look up and
 * insert with one probe sequence,
 *     size_t i = htab_slot_u64(t, key);
 *     if (!t->slot[i].item) htab_put(t, i, htab_mix64(key), new_index); */
size_t htab_slot_u64(const struct htab *t, uint64_t key);

#endif
