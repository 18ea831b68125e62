/*
 * shortsort.h - qsort for the model's many short arrays: a function's
 * arcs (arcs.c), a node's children (tree.c).
 *
 * Most of those arrays have a handful of members, where qsort's set-up
 * and its calls through a pointer cost more than an insertion sort, so
 * short ones get that instead.  With a comparison that is a total order
 * (every caller's ends on a unique index), either sort gives the same
 * result.  static inline so that cmp, known where it is called, is
 * inlined into the loop like the hand-written sorts it replaces.
 */
#ifndef CCPROF_MODEL_SHORTSORT_H
#define CCPROF_MODEL_SHORTSORT_H

#include <stddef.h>
#include <stdlib.h>

#define SHORTSORT_MAX 16 /* longer arrays go to qsort */

static inline void shortsort_swap(unsigned char *a, unsigned char *b, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		unsigned char t = a[i];
		a[i] = b[i];
		b[i] = t;
	}
}

/* Sort n elements of `size` bytes at base by cmp, as qsort. */
static inline void shortsort(void *base, size_t n, size_t size,
			     int (*cmp)(const void *, const void *))
{
	if (n > SHORTSORT_MAX) {
		qsort(base, n, size, cmp);
		return;
	}
	unsigned char *a = base;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp(a + j * size, a + (j - 1) * size) < 0; j--)
			shortsort_swap(a + j * size, a + (j - 1) * size, size);
}

#endif
