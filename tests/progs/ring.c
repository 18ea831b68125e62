/*
 * Spivey's mutual recursion (docs/semantics.md) with work in every function:
 * main calls P; P -> Q -> R -> P repeats n times (argv[1], default 5);
 * finally P calls S.  P, Q, R and S burn 1, 2, 3 and 10 units, so the
 * views show times, not zeros (docs/views.md).  argv[2] repeats it all.
 * burn() times itself (elapsed, as clock=cycles charges, tests/progs/
 * burn.h), and the program prints on stderr what each function burnt and
 * what was burnt while the recursion was in progress (one of P, Q, R
 * active twice: a cycle's time, docs/views.md), "spent P NS Q NS R NS S
 * NS cycle NS": what the profile must show.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, in burn.h */
#include <stdio.h>
#include <stdlib.h>
#include "burn.h"

#define NOINLINE __attribute__((noinline))
#define UNIT 100000UL

enum fn { FP, FQ, FR, FS };
static unsigned long long spent[4], in_cycle;
static int active[3]; /* activations of P, Q, R */

static __attribute__((noinline, no_instrument_function)) void work(enum fn f, unsigned long units)
{
	unsigned long long before = spent[f];

	burn(units * UNIT, &spent[f]);
	if (active[FP] > 1 || active[FQ] > 1 || active[FR] > 1)
		in_cycle += spent[f] - before;
}

NOINLINE void Q(int n);
NOINLINE void R(int n);

NOINLINE void S(void)
{
	work(FS, 10);
}

NOINLINE void P(int n)
{
	active[FP]++;
	work(FP, 1);
	if (n > 0)
		Q(n);
	else
		S();
	active[FP]--;
}

NOINLINE void Q(int n)
{
	active[FQ]++;
	work(FQ, 2);
	R(n);
	active[FQ]--;
}

NOINLINE void R(int n)
{
	active[FR]++;
	work(FR, 3);
	P(n - 1);
	active[FR]--;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 5, times = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 1;
	for (int i = 0; i < times; i++)
		P(n);
	printf("done\n");
	fprintf(stderr, "spent P %llu Q %llu R %llu S %llu cycle %llu\n", spent[FP], spent[FQ],
		spent[FR], spent[FS], in_cycle);
	return 0;
}
