/*
 * mmapfail.c - a shared library, preloaded beside the runtime, whose
 * mmap fails with ENOMEM every anonymous mapping while the program has
 * it on (mmapfail_set(1), which the program finds by dlsym): the
 * runtime's block table then cannot grow, while the program's small
 * blocks still come from malloc's brk heap (heapuse nomem; Note [A
 * table without memory] in src/runtime/heap.c).  Files still map.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);

static int failing;

void mmapfail_set(int on)
{
	__atomic_store_n(&failing, on, __ATOMIC_RELEASE);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static mmap_fn real;

	if ((flags & MAP_ANONYMOUS) && __atomic_load_n(&failing, __ATOMIC_ACQUIRE)) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	if (real == NULL)
		real = (mmap_fn)dlsym(RTLD_NEXT, "mmap");
	return real(addr, len, prot, flags, fd, off);
}
