/*
 * bumpalloc.c - a replacement allocator in a shared library, as jemalloc
 * or tcmalloc are, for tests/alloc.py: libccprof-alloc.so must pass
 * calls on to it, not to glibc, or the program's other calls into it
 * (here bump_owns, as malloc_usable_size is for jemalloc) would meet
 * blocks it never made.  A bump pointer in a static arena; free does
 * nothing.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ARENA (16u << 20)
static _Alignas(4096) unsigned char arena[ARENA];
static size_t used;

static void *take(size_t align, size_t n)
{
	size_t at = (used + 16 + align - 1) & ~(align - 1);

	if (n > ARENA || at + n > ARENA)
		return NULL;
	memcpy(arena + at - sizeof n, &n, sizeof n);
	used = at + n;
	return arena + at;
}

int bump_owns(const void *p)
{
	return (const unsigned char *)p >= arena && (const unsigned char *)p < arena + ARENA;
}

void *malloc(size_t n) { return take(16, n); }
void free(void *p) { (void)p; }
void *calloc(size_t n, size_t m) { return n && m > SIZE_MAX / n ? NULL : take(16, n * m); }
void *memalign(size_t a, size_t n) { return take(a < 16 ? 16 : a, n); }
void *aligned_alloc(size_t a, size_t n) { return memalign(a, n); }
void *valloc(size_t n) { return take(4096, n); }
void *pvalloc(size_t n) { return take(4096, (n + 4095) & ~(size_t)4095); }

int posix_memalign(void **out, size_t a, size_t n)
{
	void *p = memalign(a, n);

	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

size_t malloc_usable_size(void *p)
{
	size_t n = 0;

	if (p && bump_owns(p))
		memcpy(&n, (unsigned char *)p - sizeof n, sizeof n);
	return n;
}

void *realloc(void *p, size_t n)
{
	void *q = malloc(n);
	size_t old = malloc_usable_size(p);

	if (q && p)
		memcpy(q, p, old < n ? old : n);
	return q;
}
