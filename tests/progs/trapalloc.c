/*
 * trapalloc.c - an allocator library whose malloc can be interrupted, for
 * tests/alloc.py: when the program has set trap_hook, the next malloc
 * calls it (once) before allocating, as a signal arriving inside malloc
 * would run its handler there.  The blocks are glibc's (__libc_malloc),
 * so free and the rest stay glibc's.
 */
#include <stddef.h>

extern void *__libc_malloc(size_t);

void (*trap_hook)(void);

void *malloc(size_t n)
{
	void (*h)(void) = trap_hook;

	if (h) {
		trap_hook = NULL;
		h();
	}
	return __libc_malloc(n);
}
