/*
 * shadow.c - the memory of a thread's shadow stack: segments that never
 * move (Note [Shadow stack segments] in runtime.h), what they hold
 * resident, how deep they went, and their pages given back or cleared
 * when a thread ends or another takes them over.  The hooks push, pop
 * and scan (hotpath.h, hooks.c, machine.c); they come here only to go
 * on to the next segment.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "runtime.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000 /* Linux 4.17 */
#endif

/* 1,024 segments at most (2 GiB of address space, 64 Mi entries less
 * one a segment); the hooks count calls past that end (Note [Calls past
 * the end left] in machine.c). */
#define MAX_SEGMENTS 1024u
#define SHADOW_PAGE 4096u /* what mincore and madvise count in here */
#define PER_PAGE (SHADOW_PAGE / sizeof(struct rt_shadow))

_Static_assert(sizeof(struct rt_shadow) * RT_SEGMENT_ENTRIES == RT_SEGMENT_BYTES,
	       "RT_SEGMENT_BYTES");

/* Its address is a link's fn: no exit matches it. */
const char rt_segment_link;

static void *map_segment_at(uintptr_t at, size_t n)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (at ? MAP_FIXED_NOREPLACE : 0);
	void *p = mmap((void *)at, n, PROT_READ | PROT_WRITE, flags, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* A segment at `at` exactly, or 0.  A kernel without
 * MAP_FIXED_NOREPLACE (before 4.17) takes the address as a hint, and
 * may map elsewhere: that one goes. */
static uintptr_t map_segment_exactly(uintptr_t at, size_t n)
{
	uintptr_t p = (uintptr_t)map_segment_at(at, n);

	if (p != 0 && p != at) {
		munmap((void *)p, n);
		p = 0;
	}
	return p;
}

/* Under an address-space limit with no room for twice the size: where
 * a segment's size fits, it is free, and so, most often, is the aligned
 * block below or above it. */
static uintptr_t map_aligned_tightly(uintptr_t n)
{
	uintptr_t p = (uintptr_t)map_segment_at(0, n), below = p & ~(n - 1), at;

	if (p == 0 || p == below)
		return p;
	munmap((void *)p, n);
	if ((at = map_segment_exactly(below, n)) == 0)
		at = map_segment_exactly(below + n, n);
	return at;
}

/*
 * Note [Resident pages from the bottom]: a thread's shadow stack is
 * touched from its bottom up, so its resident pages are the first ones
 * (rt_shadow_trim gives back only pages above those), and mincore over
 * the whole reserve (512 pages: 1.9 us on a 2-CPU VM) was asked twice
 * for a thread that used one page.  So the pages are asked about in
 * chunks from the bottom, 16 pages first and each chunk twice the one
 * before, until a chunk whose last page is not resident: one call for a
 * thread that used fewer than 16 pages.  (It went on to a chunk with
 * none resident: two calls, and 4 a thread in all, each taking the
 * kernel's lock on the address space, which 1,000 threads started
 * together waited for: session 42.)  A page resident above such a page
 * (pages in between swapped out) is not visited: the thread's deepest
 * entry is then read lower, and one its shadow stack's next thread left
 * there is not cleared; neither is read by a hook.  Each segment is
 * asked about so.
 */
#define FIRST_CHUNK 16u
#define LAST_CHUNK 4096u

/* Each of a segment's pages that is resident (touched), to visit, lowest
 * first.  -1 if mincore fails. */
static int each_resident_page(struct rt_shadow *seg, void (*visit)(char *page, void *arg),
			      void *arg)
{
	size_t npages = RT_SEGMENT_BYTES / SHADOW_PAGE, done, i, chunk = FIRST_CHUNK;
	unsigned char vec[RT_SEGMENT_BYTES / SHADOW_PAGE]; /* a chunk's, at most a segment's */

	for (done = 0; done < npages; done += chunk, chunk *= chunk < LAST_CHUNK ? 2 : 1) {
		size_t n = npages - done < chunk ? npages - done : chunk, seen = 0;
		char *at = (char *)seg + done * SHADOW_PAGE;

		if (mincore(at, n * SHADOW_PAGE, vec) != 0)
			return -1;
		for (i = 0; i < n; i++)
			if (vec[i] & 1) {
				seen++;
				visit(at + i * SHADOW_PAGE, arg);
			}
		if (seen == 0 || !(vec[n - 1] & 1))
			break;
	}
	return 0;
}

/*
 * Note [Segment pool]: each segment was a mapping of its own, aligned,
 * which its neighbours seldom joined: 5.25 mappings a running thread
 * (bare: 2), towards the kernel's limit of 65,530, and four system calls
 * a thread (mmap, two munmap, madvise).  Segments now come from chunks,
 * each one mapping of 1, 2, 4 ... 32 segments (twice the one before),
 * aligned to a segment: a chunk of 32 serves 32 threads with one mapping
 * and no system call but its own.  A chunk grows with the threads a
 * program runs, so one with a thread or two reserves as little address
 * space as before, and at most the chunk being handed out is reserved
 * ahead (62 MiB), untouched; under a limit that counts it (`ulimit -v`,
 * `ulimit -d`), or once a chunk could not be mapped, nothing is: a chunk
 * is one segment.  The newest chunk's next segment and how many are left
 * are one word (pool_next: the count in the address's low bits), taken
 * by a compare-and-swap, so a signal handler's call may take one at any
 * time; of two threads that both map a new chunk, the second to publish
 * finds the first's (unless it is used up already: then it publishes its
 * own) and unmaps its own.  Nothing else is unmapped: a segment given
 * back (the calibration's, a thread state's that failed, a handler's
 * race lost in segment_add) is cleared and kept on a stack (pool_free),
 * which a new segment is taken from first; its head has a count in its
 * low bits that every push and pop moves on, so that a pop that read the
 * head before another thread popped it and pushed it back fails its
 * compare-and-swap.
 */
#define CHUNK_SHIFT 5 /* chunks of up to 32 segments: 64 MiB */
#define LOW_BITS (RT_SEGMENT_BYTES - 1)

static uintptr_t pool_next;  /* the newest chunk's next segment | how many are left, or 0 */
static unsigned pool_chunks; /* chunks published: the next has 2^pool_chunks segments */
static uintptr_t pool_free;  /* segments given back: the newest | a count */

/* A free segment's entry 0 keeps the one below it on pool_free: its sp
 * (read without a lock: it may be another thread's by then). */
static uintptr_t free_below(const struct rt_shadow *seg)
{
	return RT_LOAD(&seg->sp);
}

static void free_push(struct rt_shadow *seg)
{
	uintptr_t head = RT_LOAD(&pool_free), to;

	do {
		RT_STORE(&seg->sp, head & ~LOW_BITS);
		to = (uintptr_t)seg | ((head + 1) & LOW_BITS);
	} while (!__atomic_compare_exchange_n(&pool_free, &head, to, 1, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
}

/* A segment given back, its entry 0 zero again, or NULL. */
static struct rt_shadow *free_pop(void)
{
	uintptr_t head = RT_ACQUIRE(&pool_free), to;
	struct rt_shadow *seg;

	do {
		seg = (struct rt_shadow *)(head & ~LOW_BITS);
		if (seg == NULL)
			return NULL;
		to = free_below(seg) | ((head + 1) & LOW_BITS);
	} while (!__atomic_compare_exchange_n(&pool_free, &head, to, 1, __ATOMIC_ACQUIRE,
					      __ATOMIC_ACQUIRE));
	memset(seg, 0, sizeof *seg);
	return seg;
}

/* The newest chunk's next segment, or NULL if none is left. */
static struct rt_shadow *chunk_take(void)
{
	uintptr_t next = RT_LOAD(&pool_next), to, left;

	do {
		if (next == 0)
			return NULL;
		left = next & LOW_BITS;
		to = left > 1 ? ((next & ~LOW_BITS) + RT_SEGMENT_BYTES) | (left - 1) : 0;
	} while (!__atomic_compare_exchange_n(&pool_next, &next, to, 1, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return (struct rt_shadow *)(next & ~LOW_BITS);
}

/*
 * k segments, aligned to a segment's size, so that `top` alone says
 * which segment it is in and when it is full.  The kernel places a
 * mapping anywhere, so a segment more is mapped and the ends cut off.
 * Transparent huge pages would make the first touch of an aligned
 * segment take 2 MiB where a shallow thread touches one page: not for
 * these.  0 if there is no room.
 */
static uintptr_t chunk_map(unsigned k)
{
	const uintptr_t n = (uintptr_t)k * RT_SEGMENT_BYTES;
	uintptr_t p = (uintptr_t)map_segment_at(0, n + RT_SEGMENT_BYTES), at, end;

	if (p != 0) {
		at = (p + LOW_BITS) & ~LOW_BITS;
		end = p + n + RT_SEGMENT_BYTES;
		if (at > p)
			munmap((void *)p, at - p);
		if (at + n < end)
			munmap((void *)(at + n), end - (at + n));
	} else if (k == 1) {
		at = map_aligned_tightly(n);
	} else {
		return 0;
	}
	if (at != 0)
		madvise((void *)at, n, MADV_NOHUGEPAGE);
	return at;
}

/* Whether a limit counts what is reserved: the address space's
 * (`ulimit -v`) or, since Linux 4.7, the data's (`ulimit -d`: private
 * writable mappings, MAP_NORESERVE or not). */
static int limits_now(void)
{
	struct rlimit as, data;

	return (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) ||
	       (getrlimit(RLIMIT_DATA, &data) == 0 && data.rlim_cur != RLIM_INFINITY);
}

static int limited_at_start; /* limits_now() as the runtime started */
static int chunk_failed;     /* a chunk of more than one could not be mapped */

/* As the runtime starts, before a seccomp filter of the program's may
 * forbid getrlimit (Note [Sandboxed] in sandbox.c). */
void rt_shadow_start(void)
{
	limited_at_start = limits_now();
}

/* Whether to reserve nothing ahead: under a limit that counts it (asked
 * again each time, for a program that sets one later, but not under a
 * seccomp filter, which may kill for the call), or once a chunk failed. */
static int reserve_none(void)
{
	return RT_LOAD(&chunk_failed) || (rt_sandbox_none() ? limits_now() : limited_at_start);
}

/* The same for the alternate stacks kept beyond the first few (Note
 * [Stacks for other threads] in altstack.c). */
int rt_reserve_none(void)
{
	return reserve_none();
}

/*
 * Note [Shadow memory measured]: the profile's memory figure counted, of
 * the shadow stacks, each thread's running one (rt_shadow_measure), and
 * no other: not a thread's own while it ran a coroutine, not the
 * suspended coroutines' nor the spares, nor the segments given back to
 * the pool, whose pages stay resident after their clearing.
 * tests/progs/generators.c with 300 generators alive at once reported
 * 31 KB.  Every segment comes from a chunk, so the chunks are noted as
 * they are made, and the write counts the resident pages of every
 * segment in them, each once, whoever holds it: 1.26 MB for those 300
 * generators.  Only once a coroutine's shadow stack was made: a program
 * that never switched stacks is counted as before, its threads' running
 * stacks (each asked about once: rt_shadow_measure reads the deepest
 * entry too; asked twice, 400 threads started at once made 2.26 mincore
 * calls a thread, over robust.py's bound of 2.1), and the segments
 * ended threads gave back are not (their pages zeroed, as a coroutine's
 * are).  A chunk's slot is taken before the chunk is published,
 * and a write that finds a slot not yet filled counts the running
 * shadow stacks only, as before; so it does past CHUNKS_NOTED chunks
 * (some 130,000 segments, at 32 a chunk), and in a forked child, which
 * inherits its parent's chunks (and their pages, shared until written)
 * but keeps none of its threads' states (Note [A forked child's
 * profile] in forkprune.c).  The newest chunk's segments not handed out
 * yet are not asked about.  The cost, in a program with coroutines: a
 * mincore call or more for every segment ever handed out, at each write.
 */
#define CHUNKS_NOTED 4096u
#define CHUNK_NONE ((uintptr_t)1) /* a slot whose chunk lost its race */

static uintptr_t chunk_at[CHUNKS_NOTED]; /* 0 until filled */
static unsigned chunk_segments[CHUNKS_NOTED];
static unsigned chunks_noted; /* slots taken, perhaps past CHUNKS_NOTED */
static int chunks_inherited;  /* Note [Shadow memory measured]: a forked child */
static int chains_made;       /* a coroutine's shadow stack was made */

/* A slot for a chunk of k segments (its address stored by chunk_fill),
 * or CHUNKS_NOTED if there is none. */
static unsigned chunk_slot(unsigned k)
{
	unsigned i = __atomic_fetch_add(&chunks_noted, 1, __ATOMIC_RELAXED);

	if (i < CHUNKS_NOTED)
		chunk_segments[i] = k;
	return i;
}

static void chunk_fill(unsigned i, uintptr_t at)
{
	if (i < CHUNKS_NOTED)
		__atomic_store_n(&chunk_at[i], at ? at : CHUNK_NONE, __ATOMIC_RELEASE);
}

void rt_shadow_after_fork(void)
{
	chunks_inherited = 1;
}

/* A new chunk, its first segment returned, the others published for
 * chunk_take; or NULL.  A chunk published first by another thread (or a
 * handler) wins: ours goes, and the caller takes from theirs. */
static struct rt_shadow *chunk_new(int *lost)
{
	unsigned shift = RT_LOAD(&pool_chunks);
	unsigned k = 1u << (shift < CHUNK_SHIFT ? shift : CHUNK_SHIFT), slot;
	uintptr_t at, none = 0;

	*lost = 0;
	if (k > 1 && reserve_none())
		k = 1;
	at = chunk_map(k);
	if (at == 0 && k > 1) { /* no room for a chunk: a segment alone, from now on */
		RT_STORE(&chunk_failed, 1);
		at = chunk_map(1);
		if (at != 0)
			chunk_fill(chunk_slot(1), at);
		return (struct rt_shadow *)at;
	}
	if (at == 0)
		return NULL;
	slot = chunk_slot(k); /* before other threads can take its segments */
	if (k > 1 && !__atomic_compare_exchange_n(&pool_next, &none,
						  (at + RT_SEGMENT_BYTES) | (k - 1), 0,
						  __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		chunk_fill(slot, 0);
		munmap((void *)at, (uintptr_t)k * RT_SEGMENT_BYTES);
		*lost = 1;
		return NULL;
	}
	__atomic_fetch_add(&pool_chunks, 1, __ATOMIC_RELAXED);
	chunk_fill(slot, at);
	return (struct rt_shadow *)at;
}

/* A segment, zero (Note [Segment pool]), or NULL.  errno is kept (the
 * hooks must not change it). */
static struct rt_shadow *segment_new(void)
{
	int saved = errno, lost;
	struct rt_shadow *seg;

	do {
		if ((seg = free_pop()) != NULL || (seg = chunk_take()) != NULL)
			break;
		seg = chunk_new(&lost);
	} while (seg == NULL && lost);
	errno = saved;
	return seg;
}

/* Zeros in a page of a segment, but its entry 0 (the sentinel or a
 * link: its `next` chains the segments). */
static void zero_page(char *page, void *arg)
{
	struct rt_shadow *seg = arg;
	char *from = page == (char *)seg ? (char *)(seg + 1) : page;

	memset(from, 0, (size_t)(page + SHADOW_PAGE - from));
}

static uint64_t highest_written(const struct rt_shadow *seg, size_t last);

/* A segment being cleared, and the highest entry written in the pages
 * cleared so far (an index; 0 if none). */
struct clearing {
	struct rt_shadow *seg;
	uint64_t highest;
};

static void read_and_zero_page(char *page, void *arg)
{
	struct clearing *c = arg;
	uint64_t at = highest_written(c->seg, (size_t)(page - (char *)c->seg) / SHADOW_PAGE);

	if (at != 0)
		c->highest = at;
	zero_page(page, c->seg);
}

/* Zeros in a segment but its entry 0: its resident pages written (most
 * often a page or two; rt_shadow_clear says why not madvise), or, if
 * mincore fails, all but its first page given back and that page
 * cleared.  Returns the highest entry it held, as rt_shadow_trim reads
 * it (0 if none, or if mincore failed). */
static uint64_t segment_clear(struct rt_shadow *seg)
{
	struct clearing c = { seg, 0 };

	if (each_resident_page(seg, read_and_zero_page, &c) != 0) {
		madvise((char *)seg + SHADOW_PAGE, RT_SEGMENT_BYTES - SHADOW_PAGE, MADV_DONTNEED);
		zero_page((char *)seg, seg);
		return 0;
	}
	return c.highest;
}

/* A segment no state holds any more, cleared, onto pool_free (free_pop
 * clears its entry 0 as it takes it again). */
static void segment_give_back(struct rt_shadow *seg)
{
	segment_clear(seg);
	free_push(seg);
}

/* The segments of a thread, from the first: each one's `next`. */
static struct rt_shadow *segment_after(const struct rt_shadow *seg)
{
	return RT_ACQUIRE(&seg->next);
}

/* Empty: the sentinel, and top above it.  The segments after the first
 * stay chained, for the next time the stack goes deep. */
static struct rt_shadow *sentinel_set(struct rt_shadow *base)
{
	base[0].sp = UINTPTR_MAX; /* the sentinel: Note [Shadow stack] */
	base[0].fn = (uintptr_t)&rt_no_context;
	base[0].cs = 0;
	return base + 1;
}

static void shadow_reset(struct rt_thread *t)
{
	t->top = sentinel_set(t->base);
}

int rt_shadow_new(struct rt_thread *t)
{
	if (t->base == NULL && (t->base = segment_new()) == NULL)
		return -1;
	t->shadow_bytes = RT_SEGMENT_BYTES;
	shadow_reset(t);
	return 0;
}

/* The next segment after seg, taken and chained, or NULL (no memory, or
 * the most).  A signal handler's call may do the same meanwhile: the
 * first to chain its segment wins, the other gives its own back.  An
 * asynchronous cancellation waits until the segment is chained. */
static struct rt_shadow *segment_add(struct rt_shadow *seg)
{
	struct rt_shadow *next, *expected = NULL;
	unsigned n = 1;
	const struct rt_shadow *s;
	int cancel;

	/* Down the links, not up from t->base, which a switch of machine
	 * stacks changes apart from top (Note [One shadow stack a stack]). */
	for (s = seg; s->fn == RT_LINK_FN; s = rt_segment_of((const struct rt_shadow *)s->cs))
		n++;
	if (n >= MAX_SEGMENTS)
		return NULL;
	cancel = rt_deferred_begin();
	if ((next = segment_new()) != NULL) {
		next->next = NULL;
		next->fn = RT_LINK_FN;
		next->cs = (uintptr_t)(seg + RT_SEGMENT_ENTRIES);
		if (!__atomic_compare_exchange_n(&seg->next, &expected, next, 0,
						 __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
			segment_give_back(next);
			next = expected;
		}
	}
	rt_deferred_end(cancel);
	return next;
}

/*
 * The push at s, the end of a full segment, goes on in the next one: its
 * link takes the sp of the entry below (Note [Shadow stack segments]),
 * and the slot to push into is returned, or NULL.  No store here moves
 * `top`, so a handler interrupting us finds the stack as it was, full,
 * and writes the same link.
 */
struct rt_shadow *rt_shadow_onward(struct rt_shadow *s)
{
	struct rt_shadow *seg = rt_segment_of(s), *next = segment_after(seg);

	if (next == NULL && (next = segment_add(seg)) == NULL)
		return NULL;
	next->sp = s[-1].sp;
	return next + 1;
}

/* A shadow stack's segments given back, from its first (Note [Segment
 * pool]). */
void rt_chain_give_back(struct rt_shadow *base)
{
	struct rt_shadow *seg = base, *next;

	for (; seg != NULL; seg = next) {
		next = seg->next;
		segment_give_back(seg);
	}
}

/* A state's segments given back: the calibration's private state
 * (clock.c), or a new thread's whose state could not be made
 * (threads.c: not one taken from an ended thread). */
void rt_shadow_give_back(struct rt_thread *t)
{
	rt_chain_give_back(t->base);
	t->base = NULL;
}

/* The first segment of a shadow stack for another machine stack (Note
 * [One shadow stack a stack] in stacks.c, which lays it out), zero but
 * for nothing chained after it, or NULL. */
struct rt_shadow *rt_chain_new(void)
{
	struct rt_shadow *base = segment_new();

	RT_STORE(&chains_made, 1);
	if (base != NULL)
		base->next = NULL;
	return base;
}

struct resident_count {
	const char *seg;
	uint64_t resident;
	size_t last;
};

static void count_page(char *page, void *arg)
{
	struct resident_count *c = arg;

	c->resident++;
	c->last = (size_t)(page - c->seg) / SHADOW_PAGE;
}

/* How many of a segment's pages are resident, and the last.  -1 if
 * mincore fails.  From a signal handler too. */
static int segment_pages(struct rt_shadow *seg, uint64_t *resident, size_t *last)
{
	struct resident_count c = { (const char *)seg, 0, 0 };
	int rc = each_resident_page(seg, count_page, &c);

	*resident = c.resident;
	*last = c.last;
	return rc;
}

/* The highest entry written in a segment's page `last`, as an index:
 * 0 if none but entry 0, the sentinel or the link. */
static uint64_t highest_written(const struct rt_shadow *seg, size_t last)
{
	const struct rt_shadow *s;

	for (s = seg + (last + 1) * PER_PAGE; s-- > seg + last * PER_PAGE && s > seg;)
		if (s->ctx != NULL)
			return (uint64_t)(s - seg);
	return 0;
}

/* The depth of entry `at` of segment k: each segment below holds
 * RT_SEGMENT_ENTRIES - 1 entries (entry 0 is the sentinel or the link). */
static uint64_t entry_depth(uint64_t k, uint64_t at)
{
	return k * (RT_SEGMENT_ENTRIES - 1) + at;
}

/* Give back a segment's pages from `from` on, if one of them is
 * resident (`last`: the last page resident): a madvise that gives back
 * a page makes the kernel flush every CPU's TLB, so none without one. */
static void give_back_from(struct rt_shadow *seg, uintptr_t from, size_t last)
{
	uintptr_t end = (uintptr_t)seg + RT_SEGMENT_BYTES;

	if (from < end && (uintptr_t)seg + (last + 1) * SHADOW_PAGE > from)
		madvise((void *)from, end - from, MADV_DONTNEED);
}

/*
 * A thread ends: its deepest into max_depth, and the pages it no longer
 * uses given back: a thread that went deep once does not keep that
 * memory after it ends.  The deepest the shadow stack has been: the
 * hooks do not track it (the fast path would pay), but a pop leaves its
 * entry behind, so the highest entry ever written is the deepest frame:
 * on a segment's last page resident (untouched pages are not, and this
 * gives back only pages above the one in use), in the last segment with
 * one there.  Given back, from each segment once read and its deepest
 * put in max_depth: the pages above the one in use, in top's segment,
 * and in each after it all but the first, which keeps the link and the
 * chain.
 */
void rt_shadow_trim(struct rt_thread *t)
{
	struct rt_shadow *seg, *in_use = rt_segment_of(t->top);
	uintptr_t keep = ((uintptr_t)(t->top + 1) + SHADOW_PAGE - 1) & ~(uintptr_t)(SHADOW_PAGE - 1);
	uint64_t resident, k = 0, deepest = 0, at;
	size_t last;
	int above = 0;

	for (seg = t->base; seg != NULL; seg = segment_after(seg), k++) {
		if (segment_pages(seg, &resident, &last) != 0) {
			last = RT_SEGMENT_BYTES / SHADOW_PAGE - 1; /* unknown: all */
			resident = 1;
		} else if (resident && (at = highest_written(seg, last)) != 0) {
			deepest = entry_depth(k, at);
		}
		if (resident == 0)
			continue;
		/* Before the pages go: a profile written meanwhile reads them. */
		if (deepest > t->max_depth)
			t->max_depth = deepest;
		if (seg == in_use) {
			give_back_from(seg, keep, last);
			above = 1;
		} else if (above) {
			give_back_from(seg, (uintptr_t)seg + SHADOW_PAGE, last);
		}
	}
}

/*
 * What the write reads of a thread's shadow stack, in one pass over its
 * resident pages (one mincore a segment, from a signal handler too):
 * its memory in use, reserved large but touched only as deep as the
 * thread went (a segment mincore cannot read counts whole), and the
 * deepest it has been, max_depth or the highest entry written as
 * rt_shadow_trim reads it (not if mincore failed).  Neither once
 * another thread took the stack over (Note [Ended threads' reserve] in
 * threads.c): then max_depth, which rt_shadow_trim and the rebirth's
 * clear set.  An ended thread's own stack is still read: code after its
 * end may have gone deeper.
 */
void rt_shadow_measure(const struct rt_thread *t, uint64_t *in_use, uint64_t *deepest)
{
	struct rt_shadow *seg;
	uint64_t resident, k = 0, at, written = 0;
	size_t last;
	int failed = 0;

	*in_use = 0;
	*deepest = t->max_depth;
	if (RT_LOAD(&t->shadow_bytes) == 0)
		return;
	for (seg = t->base; seg != NULL; seg = segment_after(seg), k++) {
		if (segment_pages(seg, &resident, &last) != 0) {
			*in_use += RT_SEGMENT_BYTES;
			failed = 1;
			continue;
		}
		*in_use += resident * SHADOW_PAGE;
		if (resident && (at = highest_written(seg, last)) != 0)
			written = entry_depth(k, at);
	}
	if (!failed && written > *deepest)
		*deepest = written;
}

/* The resident bytes of every shadow stack segment (Note [Shadow memory
 * measured]); 0 if some chunks were not noted: the caller counts each
 * thread's running shadow stack then.  From a signal handler too. */
int rt_shadow_pool_resident(uint64_t *bytes)
{
	unsigned n = RT_LOAD(&chunks_noted), i, k;
	uintptr_t at, next = RT_LOAD(&pool_next), untouched = next & ~LOW_BITS;
	uintptr_t untouched_end = untouched + (next & LOW_BITS) * RT_SEGMENT_BYTES;
	uint64_t resident;
	size_t last;

	*bytes = 0;
	if (n > CHUNKS_NOTED || chunks_inherited || !RT_LOAD(&chains_made))
		return 0;
	for (i = 0; i < n; i++) {
		if ((at = __atomic_load_n(&chunk_at[i], __ATOMIC_ACQUIRE)) == 0)
			return 0; /* a chunk being published: not all are known */
		if (at == CHUNK_NONE)
			continue;
		for (k = 0; k < chunk_segments[i]; k++) {
			uintptr_t seg = at + (uintptr_t)k * RT_SEGMENT_BYTES;

			if (seg >= untouched && seg < untouched_end)
				continue; /* the newest chunk's, not handed out */
			if (segment_pages((struct rt_shadow *)seg, &resident, &last) != 0)
				*bytes += RT_SEGMENT_BYTES;
			else
				*bytes += resident * SHADOW_PAGE;
		}
	}
	return 1;
}

/* Zeros in a shadow stack taken from an ended thread: rt_shadow_trim
 * reads the deepest entry written.  Only its resident pages are written
 * (most often one or two: rt_shadow_trim gave back those above the
 * end's), not the whole given back with madvise, which made the kernel
 * flush every CPU's TLB: with the lookups' pages (Note [Pages for the
 * next thread] in pagepool.c), 29 of the 33 us a short thread still cost
 * the runtime once own_name no longer opened a file (10,000 threads one
 * after another, a 2-CPU VM).  Each segment as segment_clear does. */
uint64_t rt_shadow_clear(struct rt_thread *t)
{
	struct rt_shadow *seg;
	uint64_t k = 0, at, deepest = 0;

	for (seg = t->base; seg != NULL; seg = segment_after(seg), k++)
		if ((at = segment_clear(seg)) != 0)
			deepest = entry_depth(k, at);
	return deepest;
}
