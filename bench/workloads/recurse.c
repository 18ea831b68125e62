/*
 * recurse.c - deep and mutual recursion.
 *
 *   fib(n)              tree recursion, 2*F(n+1)-1 calls, shallow
 *   is_even/is_odd(n)   mutual recursion n+1 levels deep
 *   walk(d)             one deep chain of d frames calling a leaf at each
 *
 * Usage: recurse [UNITS]; prints a checksum and the number of calls of
 * instrumented functions (main included) on stderr as "calls N".
 */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned sink;

NOINLINE static unsigned fib(unsigned n)
{
	if (n < 2)
		return n;
	return fib(n - 1) + fib(n - 2);
}

NOINLINE static unsigned is_odd(unsigned n);

NOINLINE static unsigned is_even(unsigned n)
{
	if (n == 0)
		return 1;
	return is_odd(n - 1) * 3u + (n & 1); /* not a tail call */
}

NOINLINE static unsigned is_odd(unsigned n)
{
	if (n == 0)
		return 0;
	return is_even(n - 1) ^ (n << 1);
}

NOINLINE static unsigned leaf(unsigned x)
{
	return x * 2654435761u >> 7;
}

NOINLINE static unsigned walk(unsigned d)
{
	if (d == 0)
		return 7;
	return walk(d - 1) + leaf(d);
}

/* Not a measured function: keep it out of the count. */
__attribute__((no_instrument_function)) static unsigned long long fib_calls(unsigned n)
{
	unsigned long long a = 0, b = 1; /* F(0), F(1) */
	for (unsigned i = 0; i <= n; i++) {
		unsigned long long c = a + b;
		a = b;
		b = c;
	}
	return 2 * a - 1; /* a = F(n+1) */
}

int main(int argc, char **argv)
{
	unsigned units = argc > 1 ? (unsigned)atoi(argv[1]) : 100;
	unsigned long long calls = 1; /* main */
	unsigned sum = 0;

	for (unsigned u = 0; u < units; u++) {
		unsigned n = 20 + u % 3, depth = 3000 + u % 1000;

		sum += fib(n);
		calls += fib_calls(n);
		for (int k = 0; k < 8; k++) {
			sum += is_even(depth + (unsigned)k);
			calls += depth + (unsigned)k + 1;
		}
		sum += walk(depth);
		calls += 2ull * depth + 1;
	}
	sink = sum;
	printf("recurse: units %u checksum %u\n", units, sum);
	fprintf(stderr, "calls %llu\n", calls);
	return 0;
}
