/*
 * heapown.h - a test program's own account of its live heap, for heap
 * profiling (tests/heap.py): account() adds to the live total and keeps
 * its largest, say() prints one line, "[PREFIX]WHAT FN BYTES BLOCKS", on
 * stderr with write(2) only, so that no stdio buffer joins the heap.
 * Included by tests/progs/heapuse.c and heappool.cpp.
 */
#include <stdio.h>
#include <unistd.h>

static long live_now, live_peak;
static const char *prefix = "";

static void account(long bytes)
{
	live_now += bytes;
	if (live_now > live_peak)
		live_peak = live_now;
}

static void say(const char *what, const char *fn, long bytes, long blocks)
{
	char line[128];
	int n = snprintf(line, sizeof line, "%s%s %s %ld %ld\n", prefix, what, fn, bytes, blocks);

	if (write(2, line, (size_t)n) < 0)
		_exit(3);
}
