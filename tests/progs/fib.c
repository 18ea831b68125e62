/* Direct recursion: one context for fib however deep; calls must equal the
 * count the program keeps itself. */
#include <stdio.h>
#include <stdlib.h>

static unsigned long calls;

__attribute__((noinline)) unsigned long fib(int n)
{
	calls++;
	return n < 2 ? (unsigned long)n : fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
	unsigned long r = fib(argc > 1 ? (int)strtol(argv[1], NULL, 10) : 20);

	printf("fib %lu\ncalls fib %lu\n", r, calls);
	return 0;
}
