/* Context explosion: walk() follows the bits of a counter through 12
 * functions, 8 levels deep, so the program reaches thousands of distinct
 * calling contexts.  Call counts are kept by the program. */
#include <stdio.h>

static unsigned long count[12];
static volatile unsigned long sink;
typedef void (*fn)(unsigned, int);
static fn table[12];

#define F(i) \
	__attribute__((noinline)) void f##i(unsigned x, int d) \
	{ \
		count[i]++; \
		if (d > 0) \
			table[x % 12](x / 12, d - 1); \
		else \
			sink++; \
	}
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11)

int main(void)
{
	fn init[12] = { f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11 };

	for (int i = 0; i < 12; i++)
		table[i] = init[i];
	for (unsigned x = 0; x < 20000; x++)
		f0(x * 2654435761u, 7);
	for (int i = 0; i < 12; i++)
		printf("calls f%d %lu\n", i, count[i]);
	return 0;
}
