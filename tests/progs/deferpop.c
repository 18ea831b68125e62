/* A call's stack argument left pushed across the hooks of the inlined
 * copy entered next (gcc's -fdefer-pop, at -O1 and up): `emit` calls
 * `seven` with its seventh argument on the stack, and gcc pops it only
 * after it has called the enter hook of `outer`, inlined into `caller`
 * beside emit.  That entry's stack pointer is 16 bytes below the frame's,
 * and `inner`, inlined into outer and entered after the pop, took it for
 * a frame gone: every call of inner showed as caller's (Note [Arguments
 * not yet popped] in src/runtime/machine.c).  The program counts its own
 * calls; at every optimisation level the contexts must be those of -O0,
 * inner called from outer alone.  deferpop ROUNDS */
#include <stdio.h>
#include <stdlib.h>

static long emits, outers, inners, sevens, leaves, others;
static long sink;

__attribute__((noinline)) long seven(long a, long b, long c, long d, long e, long f,
				     const char *what)
{
	sevens++;
	sink += a + b + c + d + e + f + what[0];
	return sink;
}

__attribute__((noinline)) void leaf(long x)
{
	leaves++;
	sink ^= x;
}

__attribute__((noinline)) void other(long x)
{
	others++;
	sink += x;
}

static inline long emit(long x, long y)
{
	long r;

	emits++;
	r = seven(x, y, 3, 4, 5, 6, "what");
	other(r);
	return r;
}

static inline void inner(long x)
{
	inners++;
	leaf(x);
}

/* Entered unconditionally after emit's exit: gcc calls its enter hook
 * before popping seven's argument. */
static inline void outer(long x, long y)
{
	outers++;
	if (x & 1)
		inner(x);
	if (y)
		inner(y);
}

__attribute__((noinline)) void caller(long x, long y)
{
	outer(emit(x, y), y);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1000;

	for (long i = 0; i < rounds; i++)
		caller(i + argc, i);
	printf("calls emit %ld\ncalls outer %ld\ncalls inner %ld\n", emits, outers, inners);
	printf("calls seven %ld\ncalls leaf %ld\ncalls other %ld\n", sevens, leaves, others);
	printf("sum %ld\n", sink);
	return 0;
}
