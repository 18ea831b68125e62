/* Optimised builds: gcc hooks inlined functions too (their hooks run in
 * the caller's frame, at its stack pointer), and at -O2 the exit hook is
 * reached by a sibling call after the epilogue.  The contexts must be the
 * same at every optimisation level. */
#include <stdio.h>

static int acc;

static inline void leaf(int i)
{
	acc += i;
}

__attribute__((noinline)) void work(void)
{
	for (volatile int i = 0; i < 100; i++)
		acc += i;
}

__attribute__((noinline)) void outer(int i)
{
	leaf(i);
	work();
	leaf(i + 1);
}

int main(void)
{
	for (int i = 0; i < 100; i++)
		outer(i);
	printf("%d\n", acc);
	return 0;
}
