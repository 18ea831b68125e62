/*
 * The average-time trap (README.md).  work(n) costs time proportional
 * to n.  f calls work(1000) twice; g calls work(1) eight times.  gprof
 * splits work's time between f and g by call counts, 2:8, and blames g for
 * 80 % of it.  The truth: f causes 2000/2008 = 99.6 %.
 */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

NOINLINE void work(int n)
{
	for (long i = 0; i < (long)n * 2000; i++)
		sink += (unsigned long)i;
}

NOINLINE void f(void)
{
	work(1000);
	work(1000);
}

NOINLINE void g(void)
{
	for (int i = 0; i < 8; i++)
		work(1);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 60;

	for (int r = 0; r < rounds; r++) {
		f();
		g();
	}
	printf("done %d rounds\n", rounds);
	return 0;
}
