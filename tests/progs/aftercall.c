/*
 * aftercall.c - a caller that works after its callee has returned:
 * `caller` calls `callee`, which burns 1 unit, then burns 9 units of its
 * own, argv[1] times (default 40).  A profile that timed each call
 * (clock=cycles) gives callee about a ninth of caller's own time; one
 * that lost the exits would give it caller's time after the call too,
 * until the next call found the frame gone.  The program prints what
 * each burnt on stderr, "spent callee NS caller NS".
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, in burn.h */
#include <stdio.h>
#include <stdlib.h>
#include "burn.h"

#define NOINLINE __attribute__((noinline))
#define UNIT 200000UL /* about 0.1 ms: the hooks' own time a small part */

static unsigned long long spent_callee, spent_caller;

NOINLINE void callee(void)
{
	burn(UNIT, &spent_callee);
}

NOINLINE void caller(void)
{
	callee();
	burn(9 * UNIT, &spent_caller);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 40;

	for (int r = 0; r < rounds; r++)
		caller();
	printf("done %d rounds\n", rounds);
	fprintf(stderr, "spent callee %llu caller %llu\n", spent_callee, spent_caller);
	return 0;
}
