/*
 * heappool.cpp - a C++ program, whose libstdc++ allocates its emergency
 * exception pool before the runtime starts (Note [Blocks from before the
 * start] in src/runtime/heap.c), for tests/heap.py.  It keeps account of
 * its own heap as heapuse.c does (heapown.h), and prints, on stderr,
 * what keep holds ("live keep BYTES BLOCKS") and the largest total of
 * its own blocks ("peak main BYTES 0"); what libstdc++ allocated before
 * is measured by tests/progs/earlymalloc.c.
 */
#include <vector>

#include "heapown.h"

static char *volatile sink;

/* Kept to the end.  (extern "C": the profile's names are not demangled
 * for tests/heapdump.c.) */
extern "C" __attribute__((noinline)) void keep()
{
	sink = new char[333];
	account(333);
}

/* 100,000 bytes for a moment: the peak, with keep's. */
extern "C" __attribute__((noinline)) void briefly()
{
	std::vector<char> v(100000);

	account(100000);
	sink = v.data();
	account(-100000);
}

int main()
{
	keep();
	briefly();
	say("live", "keep", 333, 1);
	say("peak", "main", live_peak, 0);
	return 0;
}
