/* Cost centres the tool names itself: a region with an empty name
 * ("<unnamed region>") and, recorded with a small --max-contexts, the
 * overflow context ("<overflow>") that the calls past it go to.  Each
 * of 8 functions calls every other once, depth 3: 8 * 7 * 6 contexts
 * and more, past a budget of 16. */
#include <stdio.h>

#include "ccprof.h"

static volatile unsigned long sink;
typedef void (*fn)(int);
static fn table[8];

#define F(i)                                             \
	__attribute__((noinline)) static void f##i(int d) \
	{                                                \
		sink += i;                               \
		for (int k = 0; d > 0 && k < 8; k++)     \
			if (k != i)                      \
				table[k](d - 1);         \
	}
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7)

int main(void)
{
	fn all[8] = { f0, f1, f2, f3, f4, f5, f6, f7 };
	ccprof_cc_t unnamed = ccprof_cc("");

	for (int i = 0; i < 8; i++)
		table[i] = all[i];
	ccprof_enter(unnamed);
	for (int i = 0; i < 8; i++)
		table[i](3);
	ccprof_leave(unnamed);
	printf("sink %lu\n", sink);
	return 0;
}
