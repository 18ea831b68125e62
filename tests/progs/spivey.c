/* Spivey's mutual recursion (docs/semantics.md): main calls P;
 * P -> Q -> R -> P repeats n times; finally P calls S.  n is argv[1]. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

NOINLINE void Q(int n);
NOINLINE void R(int n);

NOINLINE void S(void)
{
	sink++;
}

NOINLINE void P(int n)
{
	if (n > 0)
		Q(n);
	else
		S();
}

NOINLINE void Q(int n)
{
	R(n);
}

NOINLINE void R(int n)
{
	P(n - 1);
}

int main(int argc, char **argv)
{
	P(argc > 1 ? (int)strtol(argv[1], NULL, 10) : 2);
	printf("sink %lu\n", sink);
	return 0;
}
