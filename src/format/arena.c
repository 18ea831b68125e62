/*
 * arena.c - region allocator (see arena.h).
 *
 * Blocks are carved from chunks by bumping an offset.  Chunks grow
 * geometrically (1 KiB doubling to 1 MiB) so a big profile needs few
 * mallocs and a tiny one wastes little: `report --threads` makes a model,
 * and so an arena, per thread, 50,000 of them for 50,000 threads.  A request larger than a quarter of
 * the next chunk gets a chunk of its own, linked behind the current one, so
 * the space left in the current chunk is not thrown away.
 */
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

#define ALIGN alignof(max_align_t)
#define CHUNK_MIN ((size_t)1 << 10)
#define CHUNK_MAX ((size_t)1 << 20)

struct chunk {
	struct chunk *next;
	size_t cap;  /* usable bytes in data */
	size_t used; /* bytes handed out (ccp_arena_dense: not always aligned) */
	alignas(max_align_t) unsigned char data[];
};

struct ccp_arena {
	struct chunk *head; /* the chunk being carved; older chunks follow */
	size_t next_cap;    /* size of the next ordinary chunk */
	size_t total;       /* bytes malloc'd, headers included */
};

struct ccp_arena *ccp_arena_new(void)
{
	struct ccp_arena *a = malloc(sizeof *a);
	if (a) {
		a->head = NULL;
		a->next_cap = CHUNK_MIN;
		a->total = sizeof *a;
	}
	return a;
}

void ccp_arena_free(struct ccp_arena *a)
{
	if (!a)
		return;
	for (struct chunk *c = a->head, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	free(a);
}

static struct chunk *chunk_new(struct ccp_arena *a, size_t cap)
{
	if (cap > SIZE_MAX - sizeof(struct chunk))
		return NULL;
	struct chunk *c = malloc(sizeof *c + cap);
	if (c) {
		c->cap = cap;
		c->used = 0;
		a->total += sizeof *c + cap;
	}
	return c;
}

/* Make room for size bytes (already rounded): a dedicated chunk for big
 * requests, else a fresh ordinary chunk that becomes the head. */
static struct chunk *chunk_for(struct ccp_arena *a, size_t size)
{
	if (size > a->next_cap / 4) {
		struct chunk *c = chunk_new(a, size);
		if (!c)
			return NULL;
		if (a->head) { /* keep carving the current head afterwards */
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = NULL;
			a->head = c;
		}
		return c;
	}
	struct chunk *c = chunk_new(a, a->next_cap);
	if (!c)
		return NULL;
	c->next = a->head;
	a->head = c;
	if (a->next_cap < CHUNK_MAX)
		a->next_cap *= 2;
	return c;
}

/* size bytes (a multiple of align, which is a power of two <= ALIGN) at
 * an address aligned to align. */
static void *carve(struct ccp_arena *a, size_t size, size_t align)
{
	struct chunk *c = a->head;
	size_t at = c ? (c->used + align - 1) & ~(align - 1) : 0;
	if (!c || at > c->cap || c->cap - at < size) {
		c = chunk_for(a, size); /* a fresh chunk: used is 0 */
		if (!c)
			return NULL;
		at = 0;
	}
	c->used = at + size;
	return c->data + at;
}

void *ccp_arena_alloc(struct ccp_arena *a, size_t size)
{
	if (size > SIZE_MAX - ALIGN)
		return NULL;
	size = (size + ALIGN - 1) & ~(ALIGN - 1);
	if (size == 0)
		size = ALIGN; /* distinct pointers for distinct requests */
	return carve(a, size, ALIGN);
}

void *ccp_arena_dense(struct ccp_arena *a, size_t n, size_t size)
{
	if (size == 0 || size > ALIGN || (size & (size - 1)) || n > SIZE_MAX / size)
		return NULL;
	return carve(a, n ? n * size : size, size);
}

void *ccp_arena_array(struct ccp_arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return ccp_arena_alloc(a, n * size);
}

void *ccp_arena_calloc(struct ccp_arena *a, size_t n, size_t size)
{
	void *p = ccp_arena_array(a, n, size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

char *ccp_arena_strndup(struct ccp_arena *a, const char *s, size_t n)
{
	if (n == SIZE_MAX)
		return NULL;
	char *d = ccp_arena_alloc(a, n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

char *ccp_arena_strdup(struct ccp_arena *a, const char *s)
{
	return ccp_arena_strndup(a, s, strlen(s));
}

size_t ccp_arena_size(const struct ccp_arena *a)
{
	return a->total;
}
