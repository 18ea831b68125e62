/*
 * elfsym.h - function names from an ELF file's symbol tables.
 *
 * Shared by the runtime (names resolved when a profile is written) and the
 * tool (names for profiles written by a crash handler, which stores only
 * module and offset).  libc only; every offset read from the file is
 * checked, so a hostile file gives an error, not a crash.
 */
#ifndef CCPROF_ELFSYM_H
#define CCPROF_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

struct elfsym {
	uint64_t addr; /* st_value: an offset from the load base for PIE/.so */
	uint64_t size;
	const char *name;
	int global;
	uint32_t index; /* in the file's table: the last tie-break of aliases */
};

/* Memory for a table where malloc must not be called: the runtime's
 * write at exit, which may run in a signal handler that interrupted
 * malloc (Note [Names without malloc] in the runtime's dump.c).  alloc
 * gives n bytes or NULL; release gives back what alloc gave (it may do
 * nothing).  A table loaded with one keeps it, elfsym_free gives its
 * memory back to it, and the load sorts without qsort, which may call
 * malloc. */
struct elfsym_mem {
	void *(*alloc)(void *ctx, size_t n);
	void (*release)(void *ctx, void *p);
	void *ctx;
};

struct elfsym_table {
	struct elfsym *syms; /* sorted by addr, one per address (the global first) */
	size_t n;
	char *strings; /* owns the names: only those of syms */
	const struct elfsym_mem *mem; /* where syms and strings come from; NULL: malloc */
};

/* Load STT_FUNC/IFUNC symbols from .symtab, or .dynsym when the file is
 * stripped.  Returns 0, or -1 if the file cannot be read or is not ELF. */
int elfsym_load(const char *path, struct elfsym_table *t);

/* elfsym_load, if the file is the one with `build_id` (lowercase hex of
 * NT_GNU_BUILD_ID, as in a profile's MODULES; "" for a file without one):
 * -2 when its build-id differs, as for a binary replaced since it was
 * loaded.  A NULL build_id checks nothing. */
int elfsym_load_as(const char *path, const char *build_id, struct elfsym_table *t);

/* elfsym_load_as for lookups of `offsets` only (n of them, ascending,
 * distinct): the table holds just the symbols at those addresses.  That
 * costs one pass over the file's symbols instead of sorting them all: a
 * forked child of bash names its 100 functions, not bash's 4,300.  When
 * some offset is no symbol's address, the whole table is loaded, so that
 * elfsym_find gives for each offset what it gives on the whole table. */
int elfsym_load_for(const char *path, const char *build_id, const uint64_t *offsets, size_t n,
		    struct elfsym_table *t);

/* elfsym_load_for with the table's memory from `mem` (NULL: malloc),
 * and no malloc at all with one. */
int elfsym_load_for_in(const char *path, const char *build_id, const uint64_t *offsets, size_t n,
		       struct elfsym_table *t, const struct elfsym_mem *mem);

/* qsort's sort, in place and allocating nothing (glibc's qsort may call
 * malloc): a heap sort, so not stable. */
void elfsym_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* Whether path is an ELF file with that build-id ("" for none). */
int elfsym_is_build(const char *path, const char *build_id);

/* The function containing `offset`, or NULL. */
const char *elfsym_find(const struct elfsym_table *t, uint64_t offset);

/* The symbol of the function containing `offset` (the global one when
 * several share its address), or NULL.  Its `global` flag says whether
 * the function is exported (STB_GLOBAL). */
const struct elfsym *elfsym_lookup(const struct elfsym_table *t, uint64_t offset);

void elfsym_free(struct elfsym_table *t);

/* The name of the function containing `offset` in the file at `path`,
 * copied into buf.  Allocates nothing and uses only system calls (open,
 * mmap), so a crash handler may call it; a linear scan, so call it for a
 * few addresses only.  Returns 0, or -1 if not found. */
int elfsym_find_unbuffered(const char *path, uint64_t offset, char *buf, size_t len);

/* elfsym_find_unbuffered in the file with `build_id` only (as in
 * elfsym_load_as; NULL checks nothing): -1 for another file. */
int elfsym_find_unbuffered_as(const char *path, const char *build_id, uint64_t offset, char *buf,
			      size_t len);

#endif
