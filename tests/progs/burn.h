/* burn.h - burn(iterations, spent): a loop of known length that is not
 * instrumented, so that its time is its caller's own, and that adds the
 * elapsed time it took (as clock=cycles charges it) to *spent, for the
 * timed worked examples (mj.c, mjstack.c) to print what each place
 * really burnt. */
#ifndef CCPROF_TEST_BURN_H
#define CCPROF_TEST_BURN_H

#include <time.h>

static __attribute__((noinline, no_instrument_function)) unsigned long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ULL + (unsigned long long)t.tv_nsec;
}

static __attribute__((noinline, no_instrument_function)) void burn(unsigned long iterations,
								  unsigned long long *spent)
{
	unsigned long long t0 = now_ns();

	for (volatile unsigned long i = 0; i < iterations; i++)
		;
	*spent += now_ns() - t0;
}

#endif
