/* A program that blocks: sleeper() sleeps 150 ms, burner() computes for
 * about 150 ms of CPU.  Under clock=wall both are charged; under clock=cpu
 * the sleeper costs next to nothing.  Each times itself, elapsed and CPU,
 * and the program prints what they took, "spent sleeper WALL_NS CPU_NS
 * burner WALL_NS CPU_NS": on a loaded machine burner takes longer than its
 * CPU time, and that is what clock=wall must show. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>

static volatile unsigned long sink;

static __attribute__((no_instrument_function)) long long ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

__attribute__((noinline)) void sleeper(void)
{
	struct timespec ts = { 0, 150000000 };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) void burner(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 150000000L);
}

int main(void)
{
	long long w0 = ns(CLOCK_MONOTONIC), c0 = ns(CLOCK_THREAD_CPUTIME_ID);
	long long w1, c1, w2, c2;

	sleeper();
	w1 = ns(CLOCK_MONOTONIC);
	c1 = ns(CLOCK_THREAD_CPUTIME_ID);
	burner();
	w2 = ns(CLOCK_MONOTONIC);
	c2 = ns(CLOCK_THREAD_CPUTIME_ID);
	printf("done\nspent sleeper %lld %lld burner %lld %lld\n", w1 - w0, c1 - c0, w2 - w1, c2 - c1);
	return 0;
}
