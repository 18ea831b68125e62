/* cpuspin.h - spin_cpu(ns): spend ns of the calling thread's CPU time,
 * inlined into the caller and hooked by no one (gcc hooks inlined copies
 * too), so that the time is the caller's own, for tests that check a
 * child's or a thread's charged time against the CPU it spent. */
#ifndef CCPROF_TEST_CPUSPIN_H
#define CCPROF_TEST_CPUSPIN_H

#include <time.h>

static __attribute__((noinline, no_instrument_function)) long cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

static inline __attribute__((always_inline, no_instrument_function)) void spin_cpu(long ns)
{
	long end = cpu_ns() + ns;

	while (cpu_ns() < end)
		;
}

#endif
