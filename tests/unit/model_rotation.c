/*
 * model_rotation.c - model_least_rotation (cycles.c), the key under which
 * `report --cycles` adds up a cycle's rotations, against the obvious
 * quadratic search on random and periodic sequences: all items equal,
 * (x y)^k, powers of random words, and lengths 0, 1 and 2.  The output
 * must be the same sequence (for a periodic input several starts give
 * it; which one is not part of the contract).
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "model/model.h"

#define MAXN 300

static uint32_t rng = 20261121;
static uint32_t rnd(uint32_t n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

static void naive(const uint32_t *a, uint32_t n, uint32_t *out)
{
	uint32_t best = 0;
	for (uint32_t r = 1; r < n; r++)
		for (uint32_t i = 0; i < n; i++) {
			uint32_t x = a[(r + i) % n], y = a[(best + i) % n];
			if (x != y) {
				if (x < y)
					best = r;
				break;
			}
		}
	for (uint32_t i = 0; i < n; i++)
		out[i] = a[(best + i) % n];
}

static int failed;

static void one(const uint32_t *a, uint32_t n, const char *what)
{
	uint32_t want[MAXN + 1], got[MAXN + 1];
	got[n] = want[n] = 0xabcd; /* nothing past n is written */
	naive(a, n, want);
	model_least_rotation(a, n, got);
	if (memcmp(want, got, (n + 1) * sizeof *got) != 0) {
		if (failed++ < 5)
			CHECK(0, "%s, length %u: differs from the quadratic search", what, n);
	}
}

int main(void)
{
	uint32_t a[MAXN] = {0}, tested = 0;
	/* Lengths 0, 1, 2 with every order of values. */
	one(a, 0, "empty");
	a[0] = 7;
	one(a, 1, "one item");
	for (uint32_t x = 0; x < 3; x++)
		for (uint32_t y = 0; y < 3; y++) {
			a[0] = x, a[1] = y;
			one(a, 2, "two items");
		}
	tested += 10;
	/* All equal, and (x y)^k in both orders, with the large values a
	 * cycle's items take (MODEL_GAP). */
	for (uint32_t n = 1; n <= 64; n++) {
		for (uint32_t i = 0; i < n; i++)
			a[i] = 5;
		one(a, n, "all equal");
		for (uint32_t i = 0; i < n; i++)
			a[i] = i % 2 ? MODEL_GAP : 3;
		one(a, n, "x y x y ...");
		for (uint32_t i = 0; i < n; i++)
			a[i] = i % 2 ? 3 : MODEL_GAP;
		one(a, n, "y x y x ...");
		tested += 3;
	}
	/* Powers of random words, rotated, over few values (many ties). */
	for (int t = 0; t < 3000; t++) {
		uint32_t w = 1 + rnd(12), k = 1 + rnd(20), v = 1 + rnd(4), rot;
		uint32_t word[12];
		for (uint32_t i = 0; i < w; i++)
			word[i] = rnd(v);
		uint32_t n = w * k;
		rot = rnd(n);
		for (uint32_t i = 0; i < n; i++)
			a[i] = word[(i + rot) % w];
		one(a, n, "a power of a random word");
		tested++;
	}
	/* Random sequences over 1 to 5 values, and with one change in a
	 * periodic one (the near-ties that make a naive scan long). */
	for (int t = 0; t < 5000; t++) {
		uint32_t n = rnd(MAXN + 1), v = 1 + rnd(5);
		for (uint32_t i = 0; i < n; i++)
			a[i] = rnd(v);
		one(a, n, "random");
		for (uint32_t i = 0; i < n; i++)
			a[i] = i % 3 == 2;
		if (n)
			a[rnd(n)] = rnd(3);
		one(a, n, "periodic with one change");
		tested += 2;
	}
	CHECK(failed == 0, "least rotation: the linear search agrees with the quadratic one on "
	      "%u sequences (%d differ)", tested, failed);
	return check_failures != 0;
}
