/*
 * heapleft.c - frees right after a signal handler left malloc by
 * siglongjmp, for tests/heap.py (with the allocator library trapalloc.c,
 * whose malloc raises the signal).  Before the jump, held() allocates two
 * blocks; after it, main frees one and reallocates the other before any
 * other allocation: both leave held's live heap (Note [Nested
 * allocations] in alloc_shim.c), and the reallocated one is live.
 */
#include <stdio.h>

#include "trapjump.h"

__attribute__((noinline)) void *held(size_t n)
{
	return malloc(n);
}

int main(void)
{
	void *a, *b;

	signal(SIGINT, on_int);
	a = held(1000);
	b = held(2000);
	if (!sigsetjmp(back, 1))
		interrupted();
	free(a);
	sink = realloc(b, 100000);
	printf("done\n");
	return 0;
}
