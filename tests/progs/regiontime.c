/* A manual region that computes without calling anything: under every
 * clock its time must be charged to the region itself. */
#include <stdio.h>
#include <time.h>

#include "ccprof.h"

static volatile unsigned long sink;

int main(void)
{
	ccprof_cc_t r = ccprof_cc("busy region");
	struct timespec t0, t;

	ccprof_enter(r);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 100000000L);
	ccprof_leave(r);
	printf("done\n");
	return 0;
}
