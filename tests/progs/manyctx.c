/* 2^K - 1 contexts from K functions: for every non-empty subset of
 * g0 .. g12, main enters its members in increasing order (g_a calls g_b
 * calls ...), and each such chain is a context of its own.  Making them,
 * and doubling the tables that find them, is the runtime's work, not the
 * program's (Note [The profiler's own time] in src/runtime/machine.c):
 * the chains themselves take a few microseconds.  Prints each g's calls
 * (2^(K-1) each). */
#include <stdio.h>

#define K 13

typedef void (*gfn)(unsigned mask);

static int calls[K];
static volatile unsigned sink;
static const gfn table[K];

/* The next member of the subset after `from`, if any. */
__attribute__((no_instrument_function)) static void next(unsigned mask, int from)
{
	unsigned rest = mask >> (from + 1);

	if (rest)
		table[from + 1 + __builtin_ctz(rest)](mask);
}

#define G(i)                                                      \
	__attribute__((noinline)) static void g##i(unsigned mask) \
	{                                                         \
		calls[i]++;                                       \
		sink += i;                                        \
		next(mask, i);                                    \
	}
G(0) G(1) G(2) G(3) G(4) G(5) G(6) G(7) G(8) G(9) G(10) G(11) G(12)

static const gfn table[K] = {g0, g1, g2, g3, g4, g5, g6, g7, g8, g9, g10, g11, g12};

int main(void)
{
	for (unsigned mask = 1; mask < 1u << K; mask++)
		next(mask, -1);
	for (int i = 0; i < K; i++)
		printf("calls g%d %d\n", i, calls[i]);
	return 0;
}
