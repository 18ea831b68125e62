/* What the hooks cost, by function (report --hook-cost): work() calls
 * add_one 2,000,000 times and scale 1,000,000 times, both of which do
 * almost nothing; rescale does 50,000 loop iterations per call, 400 calls;
 * clamp01, from hookcost.h, does almost nothing 1,000,000 times.  scale's
 * name is part of rescale's, so gcc's substring match cannot leave scale
 * out by name alone.  It prints its own call counts, and on stderr the
 * elapsed and CPU time work() took, "work elapsed_ns N cpu_ns N": under
 * clock=cycles the time the thread was descheduled is charged to the
 * function it was in, and a run descheduled for long (a loaded machine)
 * is no measure of what the helpers cost. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <time.h>

#include "hookcost.h"

#define NOINLINE __attribute__((noinline))

static volatile double sink;
static unsigned long n_add_one, n_scale, n_rescale;

NOINLINE int add_one(int x)
{
	n_add_one++;
	return x + 1;
}

NOINLINE double scale(double x)
{
	n_scale++;
	return x * 0.5;
}

NOINLINE double rescale(double x)
{
	double acc = x;

	n_rescale++;
	for (int i = 0; i < 50000; i++)
		acc = acc * 0.999 + 1.0;
	return acc;
}

NOINLINE void work(void)
{
	int k = 0;
	double d = 0;

	for (int i = 0; i < 1000000; i++) {
		k = add_one(add_one(k));
		d += scale((double)i) + clamp01((double)i / 1e6);
	}
	for (int i = 0; i < 400; i++)
		d += rescale(d);
	sink = d + k;
}

static __attribute__((no_instrument_function)) long long ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(void)
{
	long long w0 = ns(CLOCK_MONOTONIC), c0 = ns(CLOCK_THREAD_CPUTIME_ID);

	work();
	fprintf(stderr, "work elapsed_ns %lld cpu_ns %lld\n", ns(CLOCK_MONOTONIC) - w0,
		ns(CLOCK_THREAD_CPUTIME_ID) - c0);
	printf("calls add_one %lu\ncalls scale %lu\ncalls rescale %lu\ncalls clamp01 %lu\n",
	       n_add_one, n_scale, n_rescale, n_clamp01);
	return 0;
}
