/* A plugin for tests/progs/plugins.c, built twice with different
 * VARIANTs: the code differs, the offsets do not. */
#ifndef VARIANT
#define VARIANT 1
#endif

int plug(int n)
{
	volatile int s = 0; /* a loop clang cannot fold: microseconds of work */

	for (int i = 0; i < n; i++)
		s += i * VARIANT;
	return s;
}
