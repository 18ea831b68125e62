/*
 * leftalloc.c - a signal handler leaves malloc by siglongjmp, for
 * tests/alloc.py (with the allocator library trapalloc.c, whose malloc
 * raises the signal).  The program goes on allocating, and those
 * allocations must be counted: main's 100 bytes after the jump, then
 * after's 5 blocks of 100 from one call deeper.
 */
#include <stdio.h>

#include "trapjump.h"

__attribute__((noinline)) void after(void)
{
	for (int i = 0; i < 5; i++) {
		sink = malloc(100);
		free(sink);
	}
}

int main(void)
{
	signal(SIGINT, on_int);
	if (!sigsetjmp(back, 1))
		interrupted();
	sink = malloc(100);
	free(sink);
	after();
	printf("done\n");
	return 0;
}
