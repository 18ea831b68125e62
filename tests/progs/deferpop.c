/* A call's stack argument left pushed across the hooks of the inlined
 * copy entered next (gcc's -fdefer-pop, at -O1 and up): `emit` calls
 * `seven` with its seventh argument on the stack, and gcc pops it only
 * after it has called the enter hook of `outer`, inlined into `caller`
 * beside emit.  That entry's stack pointer is 16 bytes below the frame's,
 * and `inner`, inlined into outer and entered after the pop, took it for
 * a frame gone: every call of inner showed as caller's (Note [Arguments
 * not yet popped] in src/runtime/machine.c).  And the rule's edge
 * (helper-174): `sibs` calls `jumper` and then `plain` from one indirect
 * call instruction; jumper, whose frame is deeper, leaves by
 * __builtin_longjmp, which the runtime does not see, and its entry, from
 * the same call site just below plain's frame, is not plain's frame's
 * own: plain is sibs' callee.  The program counts its own calls; at
 * every optimisation level the contexts must be those of -O0, inner
 * called from outer alone, plain from sibs.  deferpop ROUNDS */
#include <stdio.h>
#include <stdlib.h>

static long emits, outers, inners, sevens, leaves, others, jumpers, plains, sibss;
static long sink;
static void *jump_buf[5];

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

__attribute__((noinline, noreturn)) void dojump(void)
{
	__builtin_longjmp(jump_buf, 1);
}

/* Values live across its calls: a larger frame than plain's. */
__attribute__((noinline)) void jumper(long x)
{
	long a = sink, b = sink * 3, c = sink * 5, d = sink * 7;

	jumpers++;
	leaf(x);
	sink += a;
	leaf(b);
	sink += b + a + c + d;
	leaf(c);
	sink += d;
	dojump();
}

__attribute__((noinline)) void plain(long x)
{
	plains++;
	leaf(x);
}

void (*volatile siblings[2])(long) = {jumper, plain};

__attribute__((noinline)) void sibs(void)
{
	sibss++;
	for (int i = 0; i < 2; i++)
		if (__builtin_setjmp(jump_buf) == 0)
			siblings[i](i);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1000;

	for (long i = 0; i < rounds; i++)
		caller(i + argc, i);
	for (long i = 0; i < rounds; i++)
		sibs();
	printf("calls emit %ld\ncalls outer %ld\ncalls inner %ld\n", emits, outers, inners);
	printf("calls seven %ld\ncalls leaf %ld\ncalls other %ld\n", sevens, leaves, others);
	printf("calls jumper %ld\ncalls plain %ld\ncalls sibs %ld\n", jumpers, plains, sibss);
	printf("sum %ld\n", sink);
	return 0;
}
