/*
 * pagepool.c - single pages for a thread's lookups, kept when given back.
 *
 * Note [Pages for the next thread]: a thread's transition and context
 * tables start as one page each, and its memo of cost centres is one;
 * an ended thread gives them back (rt_release_lookups in machine.c).
 * Unmapped, each written page made the kernel flush the TLB of every
 * CPU the process ran on: with the shadow stack a new thread cleared by
 * madvise (clear_shadow in threads.c), 29 of the 33 us a short thread
 * cost the runtime (10,000 threads one after another, each making two
 * calls, on a 2-CPU VM; 4 us now).  So up to POOL_PAGES such pages wait here, zeroed
 * again when taken, for the next thread's first tables; the rest, and
 * the tables that grew, are unmapped as before.  The pool is an array of
 * slots, each taken or filled by one atomic exchange: a page given back
 * in a signal handler's slow path, or by two threads at once, is had by
 * one of them only, and a fork child inherits a consistent pool.  What
 * stays mapped is at most POOL_PAGES pages, whatever the number of
 * threads.
 */
#include <string.h>

#include "runtime.h"

#define POOL_PAGES 64

static void *pool[POOL_PAGES];

/* One of the n slots' pointers, its slot emptied, or NULL if all are
 * empty; each slot taken by one atomic exchange (Note above). */
void *rt_slot_take(void **slots, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		void *p = __atomic_exchange_n(&slots[i], NULL, __ATOMIC_ACQUIRE);

		if (p != NULL)
			return p;
	}
	return NULL;
}

/* p into an empty one of the n slots: 1, or 0 if all are full. */
int rt_slot_give(void **slots, int n, void *p)
{
	int i;

	for (i = 0; i < n; i++) {
		void *none = NULL;

		if (__atomic_compare_exchange_n(&slots[i], &none, p, 0, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			return 1;
	}
	return 0;
}

/* A zeroed page of RT_POOL_PAGE bytes: one given back, or a new one. */
void *rt_page_take(void)
{
	void *p = rt_slot_take(pool, POOL_PAGES);

	if (p == NULL)
		return rt_map(RT_POOL_PAGE);
	memset(p, 0, RT_POOL_PAGE);
	return p;
}

/* A page from rt_page_take, no longer used: kept, or unmapped. */
void rt_page_give(void *p)
{
	if (!rt_slot_give(pool, POOL_PAGES, p))
		rt_unmap(p, RT_POOL_PAGE);
}
