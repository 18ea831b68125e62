/*
 * Morgan & Jarvis's compressed-stack example (from their paper, "Profiling
 * large-scale lazy functional programs") as a real program: a runs 3 units, calls b which runs 7, which
 * calls a which runs 1.  Stacks (top first) ⟨a⟩ 3, ⟨b,a⟩ 7, ⟨a,b⟩ 1, so
 * COST a = 4, b = 7 and INHERITED a = 11, b = 8 (not 12: a counts once,
 * docs/semantics.md, "The views").  argv[1] rounds (default 100).  burn()
 * is not instrumented: its time is its caller's.  It also times itself
 * (elapsed, as clock=cycles charges), and the program prints what each of
 * its three places burnt on stderr, "spent a NS b NS inner NS": on a
 * loaded machine a unit can take longer than another, and then these are
 * what the profile must show.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, in burn.h */
#include <stdio.h>
#include <stdlib.h>
#include "burn.h"

#define NOINLINE __attribute__((noinline))
#define UNIT 100000UL

enum place { A_OUTER, B, A_INNER };
static unsigned long long spent[3];

NOINLINE void a(int inner);

NOINLINE void b(void)
{
	burn(7 * UNIT, &spent[B]);
	a(1);
}

NOINLINE void a(int inner)
{
	if (inner)
		burn(1 * UNIT, &spent[A_INNER]);
	else
		burn(3 * UNIT, &spent[A_OUTER]);
	if (!inner)
		b();
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 100;
	for (int r = 0; r < rounds; r++)
		a(0);
	printf("done %d rounds\n", rounds);
	fprintf(stderr, "spent a %llu b %llu inner %llu\n", spent[A_OUTER], spent[B], spent[A_INNER]);
	return 0;
}
