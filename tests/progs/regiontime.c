/* A manual region that computes without calling anything: under every
 * clock its time must be charged to the region itself.  The program
 * times the region, elapsed and CPU, and prints "spent WALL_NS CPU_NS". */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>

#include "ccprof.h"

static volatile unsigned long sink;

static long long ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(void)
{
	ccprof_cc_t r = ccprof_cc("busy region");
	struct timespec t0, t;
	long long w0, c0, w1, c1;

	ccprof_enter(r);
	w0 = ns(CLOCK_MONOTONIC);
	c0 = ns(CLOCK_THREAD_CPUTIME_ID);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 100000000L);
	w1 = ns(CLOCK_MONOTONIC);
	c1 = ns(CLOCK_THREAD_CPUTIME_ID);
	ccprof_leave(r);
	printf("done\nspent %lld %lld\n", w1 - w0, c1 - c0);
	return 0;
}
