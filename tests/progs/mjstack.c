/*
 * Morgan & Jarvis's compressed-stack example (DESIGN.md §4) as a real
 * program: a runs 3 units, calls b which runs 7, which calls a which runs
 * 1.  Stacks (top first) ⟨a⟩ 3, ⟨b,a⟩ 7, ⟨a,b⟩ 1, so COST a = 4, b = 7 and
 * INHERITED a = 11, b = 8 (not 12: a counts once).  argv[1] rounds
 * (default 100).  burn() is not instrumented: its time is its caller's.
 */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define UNIT 100000UL

static __attribute__((noinline, no_instrument_function)) void burn(unsigned long units)
{
	for (volatile unsigned long i = 0; i < units * UNIT; i++)
		;
}

NOINLINE void a(int inner);

NOINLINE void b(void)
{
	burn(7);
	a(1);
}

NOINLINE void a(int inner)
{
	burn(inner ? 1 : 3);
	if (!inner)
		b();
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 100;
	for (int r = 0; r < rounds; r++)
		a(0);
	printf("done %d rounds\n", rounds);
	return 0;
}
