/*
 * arena.h - region allocator: many small allocations, one free.
 *
 * The profile reader builds a whole struct ccp_profile in one arena, so
 * ccp_profile_free releases everything at once and no error path has to
 * unwind half-built structures.  The tool uses arenas the same way for its
 * analysis trees.
 *
 * Every block is aligned for any type (max_align_t), except those of
 * ccp_arena_dense.  Allocation returns
 * NULL when malloc fails or a size computation would overflow; nothing is
 * printed and nothing exits, because the runtime links this file too.  One
 * arena must not be used by two threads at once.
 */
#ifndef CCPROF_FORMAT_ARENA_H
#define CCPROF_FORMAT_ARENA_H

#include <stddef.h>

struct ccp_arena;

/* A new empty arena, or NULL if out of memory. */
struct ccp_arena *ccp_arena_new(void);

/* Free the arena and every block allocated from it.  NULL is allowed. */
void ccp_arena_free(struct ccp_arena *a);

/* size bytes, uninitialised. */
void *ccp_arena_alloc(struct ccp_arena *a, size_t size);

/* n * size bytes, zeroed; NULL if n * size overflows. */
void *ccp_arena_calloc(struct ccp_arena *a, size_t n, size_t size);

/* n * size bytes, uninitialised; NULL if n * size overflows. */
void *ccp_arena_array(struct ccp_arena *a, size_t n, size_t size);

/* n elements of size bytes, uninitialised, aligned only for size (a power
 * of two up to max_align_t's alignment): dense arrays of small elements,
 * such as the histories of a million contexts, without rounding each up
 * to max_align_t.  NULL if n * size overflows or size is not such. */
void *ccp_arena_dense(struct ccp_arena *a, size_t n, size_t size);

/* Copies of a string: the first n bytes plus a NUL, or all of s. */
char *ccp_arena_strndup(struct ccp_arena *a, const char *s, size_t n);
char *ccp_arena_strdup(struct ccp_arena *a, const char *s);

/* Bytes obtained from malloc so far (for memory statistics). */
size_t ccp_arena_size(const struct ccp_arena *a);

#endif
