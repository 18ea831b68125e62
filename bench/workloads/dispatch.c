/*
 * dispatch.c - calls through function pointers: an operation table indexed
 * by pseudo-random numbers, a callback passed to an iterator, and qsort's
 * comparator (instrumented code called back from uninstrumented libc).
 *
 * Usage: dispatch [UNITS]; prints a checksum, and "calls N" on stderr.
 */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

typedef unsigned long (*op_fn)(unsigned long, unsigned long);

static unsigned long op_add(unsigned long a, unsigned long b) { return a + b; }
static unsigned long op_sub(unsigned long a, unsigned long b) { return a - b; }
static unsigned long op_xor(unsigned long a, unsigned long b) { return a ^ b; }
static unsigned long op_mul(unsigned long a, unsigned long b) { return a * (b | 1); }
static unsigned long op_rol(unsigned long a, unsigned long b) { return a << (b & 7) | a >> (64 - (b & 7) - 1) >> 1; }
static unsigned long op_and(unsigned long a, unsigned long b) { return (a & b) + 1; }
static unsigned long op_or(unsigned long a, unsigned long b) { return (a | b) - b; }
static unsigned long op_mix(unsigned long a, unsigned long b) { return (a ^ (a >> 13)) + b; }

static const op_fn ops[8] = { op_add, op_sub, op_xor, op_mul, op_rol, op_and, op_or, op_mix };

static unsigned long ncalls = 1; /* main */

NOINLINE static unsigned long run_ops(unsigned long acc, unsigned n)
{
	unsigned long r = 0x9e3779b97f4a7c15ul;

	for (unsigned i = 0; i < n; i++) {
		r = r * 6364136223846793005ul + 1442695040888963407ul;
		acc = ops[r >> 61](acc, i);
	}
	ncalls += 1 + n;
	return acc;
}

struct item {
	unsigned key;
	unsigned val;
};

static int cmp_items(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;

	ncalls++;
	return (a->key > b->key) - (a->key < b->key);
}

typedef void (*visit_fn)(struct item *, void *);

static void accumulate(struct item *it, void *arg)
{
	*(unsigned long *)arg += it->key ^ it->val;
}

NOINLINE static void each(struct item *v, unsigned n, visit_fn f, void *arg)
{
	for (unsigned i = 0; i < n; i++)
		f(&v[i], arg);
	ncalls += 1 + n;
}

int main(int argc, char **argv)
{
	unsigned units = argc > 1 ? (unsigned)atoi(argv[1]) : 100;
	enum { N = 4096 };
	static struct item v[N];
	unsigned long acc = 1, seed = 12345;

	for (unsigned u = 0; u < units; u++) {
		acc = run_ops(acc, 200000);
		for (unsigned i = 0; i < N; i++) {
			seed = seed * 6364136223846793005ul + 1;
			v[i].key = (unsigned)(seed >> 40);
			v[i].val = i;
		}
		qsort(v, N, sizeof v[0], cmp_items);
		each(v, N, accumulate, &acc);
	}
	printf("dispatch: units %u checksum %lu\n", units, acc);
	fprintf(stderr, "calls %lu\n", ncalls);
	return 0;
}
