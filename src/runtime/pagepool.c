/*
 * pagepool.c - pages for a thread's lookups, kept when given back.
 *
 * Note [Pages for the next thread]: a thread's transition and context
 * tables start as one page each, and its memo of cost centres is one;
 * an ended thread gives them back (rt_release_lookups in machine.c).
 * Unmapped, each written page made the kernel flush the TLB of every
 * CPU the process ran on: with the shadow stack a new thread cleared by
 * madvise (rt_shadow_clear in shadow.c), 29 of the 33 us a short thread
 * cost the runtime (10,000 threads one after another, each making two
 * calls, on a 2-CPU VM; 4 us now).  So up to POOL_PAGES such pages wait
 * here, zeroed again when taken, for the next thread's first tables; the
 * rest are unmapped as before.  Tables that grew wait here too, up to
 * POOL_BIGGEST pages (2, 4 or 8 pages, POOL_BIG of each size): a thread
 * that called 100 functions unmapped two tables of 2 pages as it ended,
 * two more flushes (tests/robust.py wide_thread_calls;
 * docs/performance.md, session 29).  Larger tables (a thread's over 512
 * transitions or contexts) are unmapped.  The pool is an array of slots,
 * each taken or filled by one atomic exchange: a page given back in a
 * signal handler's slow path, or by two threads at once, is had by one
 * of them only, and a fork child inherits a consistent pool.  What stays
 * mapped is at most POOL_PAGES + POOL_BIG * (2 + 4 + 8) pages (1.4 MiB),
 * whatever the number of threads.  POOL_PAGES was 64, enough for 21
 * threads' first tables at once: 50 threads started together, 100 times
 * (bench/workloads/churn.c), mapped and unmapped three pages a thread
 * (with the alternate stacks' pool, altstack.c, 2,117 munmaps more than
 * bare for 20 rounds of 50, now 29), and ran 2.23 times their bare CPU
 * time, now 1.18 (docs/performance.md, session 41).
 */
#include <string.h>

#include "runtime.h"

#define POOL_PAGES 256
#define POOL_BIG 8
#define POOL_BIGGEST 8 /* pages */
#define POOL_CLASSES 3 /* 2, 4, 8 pages */

static void *pool[POOL_PAGES];
static void *big_pool[POOL_CLASSES][POOL_BIG];

/* One of the n slots' pointers, its slot emptied, or NULL if all are
 * empty; each slot taken by one atomic exchange (Note above), and
 * looked at with a plain load first: a locked exchange of each empty
 * slot cost a thousand of them to a thread that found the altstack
 * pool empty. */
void *rt_slot_take(void **slots, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		void *p;

		if (__atomic_load_n(&slots[i], __ATOMIC_RELAXED) == NULL)
			continue;
		p = __atomic_exchange_n(&slots[i], NULL, __ATOMIC_ACQUIRE);
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

		if (__atomic_load_n(&slots[i], __ATOMIC_RELAXED) == NULL &&
		    __atomic_compare_exchange_n(&slots[i], &none, p, 0, __ATOMIC_RELEASE,
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
		return rt_map_written(RT_POOL_PAGE); /* Note [Pages written first] in sys.c */
	memset(p, 0, RT_POOL_PAGE);
	return p;
}

/* A page from rt_page_take, no longer used: kept, or unmapped. */
void rt_page_give(void *p)
{
	if (!rt_slot_give(pool, POOL_PAGES, p))
		rt_unmap(p, RT_POOL_PAGE);
}

/* The pool class of a block of `bytes` (0 for 2 pages, 1 for 4, 2 for 8),
 * or -1 if it is not pooled. */
static int big_class(size_t bytes)
{
	size_t pages = (bytes + RT_POOL_PAGE - 1) / RT_POOL_PAGE;
	int k = 0;

	if (pages <= 1 || pages > POOL_BIGGEST)
		return -1;
	while ((size_t)2 << k < pages)
		k++;
	return k;
}

/* What is mapped for a block of `bytes`: a pooled one takes its class's
 * size, so that any block of the class can serve it. */
static size_t mapped_bytes(size_t bytes)
{
	int k = big_class(bytes);

	return k < 0 ? bytes : (size_t)RT_POOL_PAGE << (k + 1);
}

/* Zeroed memory of at least `bytes`: a page from rt_page_take, a pooled
 * block given back, or a new mapping (written first: Note [Pages written
 * first] in sys.c). */
void *rt_pages_take(size_t bytes)
{
	int k = big_class(bytes);
	void *p;

	if (bytes <= RT_POOL_PAGE)
		return rt_page_take();
	if (k >= 0 && (p = rt_slot_take(big_pool[k], POOL_BIG)) != NULL) {
		memset(p, 0, mapped_bytes(bytes));
		return p;
	}
	return rt_map_written(mapped_bytes(bytes));
}

/* A block from rt_pages_take of the same `bytes`, no longer used: kept,
 * or unmapped. */
void rt_pages_give(void *p, size_t bytes)
{
	int k = big_class(bytes);

	if (bytes <= RT_POOL_PAGE)
		rt_page_give(p);
	else if (k < 0 || !rt_slot_give(big_pool[k], POOL_BIG, p))
		rt_unmap(p, mapped_bytes(bytes));
}

/* The memory a block of `bytes` from rt_pages_take holds: what a
 * thread's memory counts (machine.c). */
size_t rt_pages_bytes(size_t bytes)
{
	return bytes <= RT_POOL_PAGE ? RT_POOL_PAGE : mapped_bytes(bytes);
}
