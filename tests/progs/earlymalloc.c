/*
 * earlymalloc.c - a preloaded library that measures what the process
 * allocates before a preloaded library's constructor runs, as the
 * runtime's does (Note [Blocks from before the start] in
 * src/runtime/heap.c): for tests/heap.py, which learns so what a C++
 * program's libstdc++ allocates at its start (its emergency exception
 * pool) rather than knowing it.  Its malloc, calloc, realloc and free
 * pass the call on to glibc's and, until its constructor, keep the live
 * blocks and their total; the constructor prints, on stderr, "early live
 * BYTES BLOCKS" and "early peak BYTES 0".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

#define MAX_BLOCKS 1024
static struct { void *p; size_t n; } blocks[MAX_BLOCKS];
static size_t live, peak;
static long nlive;
static int started, overflow;

static void note(void *p, size_t n)
{
	if (started || p == NULL)
		return;
	for (int i = 0; i < MAX_BLOCKS; i++)
		if (blocks[i].p == NULL) {
			blocks[i].p = p;
			blocks[i].n = n;
			live += n;
			nlive++;
			if (live > peak)
				peak = live;
			return;
		}
	overflow = 1;
}

static void forget(void *p)
{
	if (started || p == NULL)
		return;
	for (int i = 0; i < MAX_BLOCKS; i++)
		if (blocks[i].p == p) {
			blocks[i].p = NULL;
			live -= blocks[i].n;
			nlive--;
			return;
		}
}

void *malloc(size_t n)
{
	void *p = __libc_malloc(n);

	note(p, n);
	return p;
}

void *calloc(size_t n, size_t m)
{
	void *p = __libc_calloc(n, m);

	note(p, n * m);
	return p;
}

void *realloc(void *p, size_t n)
{
	void *q = __libc_realloc(p, n);

	if (q || n == 0)
		forget(p);
	note(q, n);
	return q;
}

void free(void *p)
{
	forget(p);
	__libc_free(p);
}

__attribute__((constructor)) static void earlymalloc_init(void)
{
	char line[128];
	int n;

	started = 1;
	n = overflow ? snprintf(line, sizeof line, "early overflow\n")
		     : snprintf(line, sizeof line, "early live %zu %ld\nearly peak %zu 0\n", live,
				nlive, peak);
	if (write(2, line, (size_t)n) < 0)
		_exit(3);
}
