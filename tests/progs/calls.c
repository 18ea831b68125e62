/*
 * Varied call patterns with counters kept by the program itself: calls
 * through function pointers, one callee with many callers, direct and
 * mutual recursion, a dispatch loop.  At exit it prints
 *   calls F N        for every function
 *   arc A B N        for every caller -> callee pair
 * which the test compares with ccprof's report.
 */
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))
#define MAXF 16

static const char *names[MAXF];
static unsigned long ncalls[MAXF];
static unsigned long arcs[MAXF][MAXF];
static int stack[4096], depth;

enum { MAIN, LEAF, ADD, MUL, DISPATCH, EVEN, ODD, DOWN, HUB, SPOKE1, SPOKE2, NFN };

__attribute__((no_instrument_function)) static void in(int f)
{
	if (depth > 0)
		arcs[stack[depth - 1]][f]++;
	ncalls[f]++;
	stack[depth++] = f;
}

__attribute__((no_instrument_function)) static void out(void)
{
	depth--;
}

static volatile unsigned long sink;

NOINLINE void leaf(void) { in(LEAF); sink++; out(); }
NOINLINE void add(int i) { in(ADD); sink += (unsigned long)i; leaf(); out(); }
NOINLINE void mul(int i) { in(MUL); sink *= (unsigned long)i | 1; if (i % 3 == 0) leaf(); out(); }

NOINLINE void dispatch(int n)
{
	void (*ops[])(int) = { add, mul, add };
	int i;

	in(DISPATCH);
	for (i = 0; i < n; i++)
		ops[i % 3](i);
	out();
}

NOINLINE int odd(int n);
NOINLINE int even(int n) { int r; in(EVEN); r = n == 0 ? 1 : odd(n - 1); out(); return r; }
NOINLINE int odd(int n) { int r; in(ODD); r = n == 0 ? 0 : even(n - 1); out(); return r; }

NOINLINE void down(int n) { in(DOWN); if (n > 0) down(n - 1); else leaf(); out(); }

NOINLINE void hub(void) { in(HUB); leaf(); out(); }
NOINLINE void spoke1(void) { in(SPOKE1); hub(); hub(); out(); }
NOINLINE void spoke2(void) { in(SPOKE2); hub(); leaf(); out(); }

int main(void)
{
	int i, f, g;

	names[MAIN] = "main"; names[LEAF] = "leaf"; names[ADD] = "add"; names[MUL] = "mul";
	names[DISPATCH] = "dispatch"; names[EVEN] = "even"; names[ODD] = "odd";
	names[DOWN] = "down"; names[HUB] = "hub"; names[SPOKE1] = "spoke1";
	names[SPOKE2] = "spoke2";
	in(MAIN);
	for (i = 0; i < 50; i++) {
		dispatch(i);
		even(i % 7);
		down(i % 5);
		if (i % 2)
			spoke1();
		else
			spoke2();
		hub();
	}
	out();
	for (f = 0; f < NFN; f++)
		printf("calls %s %lu\n", names[f], ncalls[f]);
	for (f = 0; f < NFN; f++)
		for (g = 0; g < NFN; g++)
			if (arcs[f][g])
				printf("arc %s %s %lu\n", names[f], names[g], arcs[f][g]);
	return 0;
}
