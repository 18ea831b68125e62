/*
 * floordepth.c - a program of known depth for make bench's floors
 * (bench/floor_hooks.c, bench/helper_thread.c; tests/bench_stats.py):
 * main calls down(N), which calls itself down to down(0), so the
 * deepest shadow stack holds N + 2 entries.  It prints the depth it
 * counted and how many threads the process has at the end, from
 * /proc/self/task (a preloaded helper thread makes it 2).
 *
 *     floordepth N
 */
#include <stdio.h>
#include <stdlib.h>

#include "tasks.h"

__attribute__((noinline)) static int down(int n)
{
	int below;

	if (n == 0)
		return 0;
	below = down(n - 1);
	__asm__ __volatile__("" : "+r"(below)); /* no tail call, no loop */
	return below + 1;
}

int main(int argc, char **argv)
{
	int depth = down(argc > 1 ? atoi(argv[1]) : 100);

	printf("depth %d threads %d\n", depth, tasks());
	return 0;
}
