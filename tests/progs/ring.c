/*
 * Spivey's mutual recursion (DESIGN.md §4) with work in every function:
 * main calls P; P -> Q -> R -> P repeats n times (argv[1], default 5);
 * finally P calls S.  P, Q, R and S burn 1, 2, 3 and 10 units, so the
 * views show times, not zeros (docs/views.md).  argv[2] repeats it all.
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

NOINLINE void Q(int n);
NOINLINE void R(int n);

NOINLINE void S(void)
{
	burn(10);
}

NOINLINE void P(int n)
{
	burn(1);
	if (n > 0)
		Q(n);
	else
		S();
}

NOINLINE void Q(int n)
{
	burn(2);
	R(n);
}

NOINLINE void R(int n)
{
	burn(3);
	P(n - 1);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 5, times = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 1;
	for (int i = 0; i < times; i++)
		P(n);
	printf("done\n");
	return 0;
}
