/* A helper in a file of its own (tests/progs/hookcost.c): leaving it out
 * by file hides nothing else. */
#ifndef HOOKCOST_H
#define HOOKCOST_H

static unsigned long n_clamp01;

__attribute__((noinline)) static double clamp01(double x)
{
	n_clamp01++;
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

#endif
