/* What the hooks cost, by function (report --hook-cost): work() calls
 * add_one 2,000,000 times and scale 1,000,000 times, both of which do
 * almost nothing; rescale does 50,000 loop iterations per call, 400 calls;
 * clamp01, from hookcost.h, does almost nothing 1,000,000 times.  scale's
 * name is part of rescale's, so gcc's substring match cannot leave scale
 * out by name alone.  It prints its own call counts. */
#include <stdio.h>

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

int main(void)
{
	work();
	printf("calls add_one %lu\ncalls scale %lu\ncalls rescale %lu\ncalls clamp01 %lu\n",
	       n_add_one, n_scale, n_rescale, n_clamp01);
	return 0;
}
