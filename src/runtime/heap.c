/*
 * heap.c - live-heap profiling (heap=1, libccprof-alloc.so only): which
 * contexts hold the memory that is still allocated, over time, at the
 * peak and when the profile is written (docs/heap.md).
 *
 * Allocation profiling (alloc.c) counts what each context allocated; to
 * know what it still holds, every block must be followed to its free.
 * The block table maps each live block's address to the context that
 * allocated it and its size: the allocation path adds the block and adds
 * its size to that context's live bytes, free takes it out again and
 * subtracts.  The free may come from any thread, so the live counters
 * are changed with atomic adds, unlike the single-writer counters of the
 * hooks.  The table is striped, each stripe an open-addressing table
 * under a spin lock of its own, so that threads freeing different blocks
 * rarely meet; its memory comes from mmap, never malloc, as the
 * allocation path runs inside malloc.
 *
 * Note [Heap table re-entry]: a signal handler may interrupt the thread
 * inside a stripe's lock and allocate or free; taking the lock again
 * would wait for ever.  A thread already inside the table leaves such a
 * handler's blocks out: an allocation goes untracked (its free then finds
 * nothing), a free leaves its entry behind (that address's next
 * allocation replaces it).  Allocating in a handler is undefined anyway.
 *
 * Samples: the sampler thread (sampler.c) calls rt_heap_sample under the
 * registry lock every interval, and each sample is the live bytes of
 * every context that has any, read without stopping the program (so a
 * sample may mix moments a few instructions apart).  Their number is
 * bounded: when the buffers are full, every other sample is dropped and
 * the interval doubles, so a long run keeps an even coverage of its
 * whole length.  The peak is exact: the allocation path keeps the total
 * and its maximum.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"

int rt_heap_active;

/* ---- The block table ------------------------------------------------------ */

struct heap_slot {
	uintptr_t key; /* block address; 0: empty */
	struct rt_ctx *ctx; /* NULL: allocated outside any context */
	uint64_t size;
};

#define STRIPE_BITS 6
#define STRIPES (1u << STRIPE_BITS)
#define STRIPE_FIRST_SLOTS 1024u

struct stripe {
	int lock;
	size_t mask; /* slots - 1, or 0 before the first block */
	size_t used;
	struct heap_slot *slots;
} __attribute__((aligned(64)));

static struct stripe stripes[STRIPES];
static __thread int in_table __attribute__((tls_model("initial-exec")));

/* Live bytes and blocks no context holds, the process's total, its peak. */
static uint64_t outside_live_bytes, outside_live_blocks;
static uint64_t live_total, peak_total;
/* Allocations the table had no room for: Note [A table without memory]. */
static uint64_t untracked_allocs;

static uint64_t hash_of(uintptr_t p)
{
	return (uint64_t)(p >> 4) * 0x9e3779b97f4a7c15u;
}

static struct stripe *stripe_of(uint64_t h)
{
	return &stripes[h >> (64 - STRIPE_BITS)];
}

/* 1 once taken.  0 in a process whose pid is not ours: a child that
 * clone or _Fork made, which has the lock as it was, perhaps held by a
 * thread it does not have (helper-190: 9 of 200 such children spun for
 * ever): the block goes unfollowed (the child makes no profile: Note
 * [New cost centres in a child without fork's handlers] in cctable.c).
 * Told at the first wait, not after 4,096 yields as before: on a loaded
 * machine each yield may give a whole time slice away, and each of such
 * a child's mallocs then waited seconds (tests/robust.py clone_exec: 9
 * of 200 children still there after 5 s).  A vfork child, whose parent's
 * threads let the locks go, gives up too, leaving its block unfollowed
 * or, for a free, its entry behind: telling it apart (kcmp) is a system
 * call a filter the child installed may kill it for (helper-194: 748 of
 * 1,000 children died by SIGSYS), and a vfork child may only call _exit
 * or exec anyway.  getpid() keeps errno: it cannot fail. */
static int spin_lock(int *l)
{
	int first_wait = 1;

	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(l, __ATOMIC_RELAXED)) {
			if (first_wait && rt_pid_not_ours())
				return 0;
			first_wait = 0;
			sched_yield();
		}
	return 1;
}

static void spin_unlock(int *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

static size_t slot_of(const struct stripe *s, uint64_t h)
{
	return (size_t)h & s->mask;
}

/* Double the stripe (or make its first slots); -1 without memory. */
static int stripe_grow(struct stripe *s)
{
	size_t n = s->mask ? 2 * (s->mask + 1) : STRIPE_FIRST_SLOTS;
	struct heap_slot *old = s->slots, *fresh = rt_map(n * sizeof *fresh);
	size_t old_n = s->mask ? s->mask + 1 : 0;

	if (fresh == NULL)
		return -1;
	s->slots = fresh;
	RT_PUBLISH(&s->mask, n - 1); /* after slots: Note [Heap table and fork] */
	for (size_t i = 0; i < old_n; i++) {
		size_t j;

		if (old[i].key == 0)
			continue;
		for (j = slot_of(s, hash_of(old[i].key)); fresh[j].key; j = (j + 1) & s->mask)
			;
		fresh[j] = old[i];
	}
	if (old)
		rt_unmap(old, old_n * sizeof *old);
	return 0;
}

/* The program's allocation succeeded: a failed mmap of ours must not
 * leave its errno behind. */
static int stripe_grow_keeping_errno(struct stripe *s)
{
	int saved = errno, rc = stripe_grow(s);

	errno = saved;
	return rc;
}

/* Where p is, or the empty slot where it would go. */
static size_t stripe_find(const struct stripe *s, uintptr_t p, uint64_t h)
{
	size_t i = slot_of(s, h);

	while (s->slots[i].key && s->slots[i].key != p)
		i = (i + 1) & s->mask;
	return i;
}

/* Empty slot i, moving later entries of its run back so that every
 * entry stays reachable from its home slot (no tombstones). */
static void stripe_delete(struct stripe *s, size_t i)
{
	size_t j = i;

	for (;;) {
		j = (j + 1) & s->mask;
		if (s->slots[j].key == 0)
			break;
		size_t home = slot_of(s, hash_of(s->slots[j].key));
		/* j's entry may move to i if i lies cyclically in [home, j). */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			s->slots[i] = s->slots[j];
			i = j;
		}
	}
	s->slots[i].key = 0;
	s->used--;
}

/* ---- Live counts ---------------------------------------------------------- */

/* *max = the larger of *max and v. */
static void raise_to(uint64_t *max, uint64_t v)
{
	for (uint64_t m = RT_LOAD(max); v > m;)
		if (__atomic_compare_exchange_n(max, &m, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			break;
}

static void live_add(struct rt_ctx *c, uint64_t bytes)
{
	if (c) {
		__atomic_fetch_add(&c->live_bytes, bytes, __ATOMIC_RELAXED);
		__atomic_fetch_add(&c->live_blocks, 1, __ATOMIC_RELAXED);
	} else {
		__atomic_fetch_add(&outside_live_bytes, bytes, __ATOMIC_RELAXED);
		__atomic_fetch_add(&outside_live_blocks, 1, __ATOMIC_RELAXED);
	}
	raise_to(&peak_total, __atomic_add_fetch(&live_total, bytes, __ATOMIC_RELAXED));
}

static void live_sub(struct rt_ctx *c, uint64_t bytes)
{
	if (c) {
		__atomic_fetch_sub(&c->live_bytes, bytes, __ATOMIC_RELAXED);
		__atomic_fetch_sub(&c->live_blocks, 1, __ATOMIC_RELAXED);
	} else {
		__atomic_fetch_sub(&outside_live_bytes, bytes, __ATOMIC_RELAXED);
		__atomic_fetch_sub(&outside_live_blocks, 1, __ATOMIC_RELAXED);
	}
	__atomic_fetch_sub(&live_total, bytes, __ATOMIC_RELAXED);
}

/* Enter the block table at the stripe of hash h, locked; NULL if this
 * thread is already inside (Note [Heap table re-entry]). */
static inline __attribute__((always_inline)) struct stripe *table_enter(uint64_t h)
{
	struct stripe *s = stripe_of(h);

	if (in_table)
		return NULL;
	in_table = 1;
	if (!spin_lock(&s->lock)) {
		in_table = 0;
		return NULL;
	}
	return s;
}

static inline __attribute__((always_inline)) void table_leave(struct stripe *s)
{
	spin_unlock(&s->lock);
	in_table = 0;
}

/*
 * Note [A table without memory]: a stripe grows at three quarters full;
 * where mmap fails (an address-space limit), the block went untracked,
 * its free finding nothing, and the live heap and its peak came out
 * short of it without a word (helper-176: jq under `ulimit -v 83000`,
 * 206 failed grows in one run, a peak 18,742 bytes short of massif's).
 * Now the stripe fills on to fifteen sixteenths, trying to grow at each
 * block, and only a block past that goes untracked, counted: the write
 * says how many allocations were (rt_heap_gather), which bounds what the
 * live heap and its peak are short of; some may have been freed since.
 * The profile keeps the count too (STATS key 16), with the blocks from
 * before the start that were left out (early_close), so that `info` and
 * `report --heap` say it to whoever reads the profile later.
 * A forked child's table starts empty, and its count at 0.
 */
static inline __attribute__((always_inline)) int stripe_room(struct stripe *s)
{
	if ((s->used + 1) * 4 <= (s->mask + 1) * 3 || stripe_grow_keeping_errno(s) == 0 ||
	    (s->used + 1) * 16 <= (s->mask + 1) * 15)
		return 1;
	__atomic_fetch_add(&untracked_allocs, 1, __ATOMIC_RELAXED);
	return 0;
}

/* Block p of `bytes`, context c, into its stripe s (locked). */
static inline __attribute__((always_inline)) void
stripe_put(struct stripe *s, uintptr_t p, uint64_t h, struct rt_ctx *c, uint64_t bytes)
{
	size_t i = 0;

	if (s->mask && s->slots[i = stripe_find(s, p, h)].key) {
		/* a stale entry, its free not seen: replaced, no room needed */
		live_sub(s->slots[i].ctx, s->slots[i].size);
	} else {
		if (!stripe_room(s))
			return; /* untracked: its free will find nothing */
		i = stripe_find(s, p, h); /* the stripe may have grown */
		s->used++;
	}
	s->slots[i] = (struct heap_slot){ p, c, bytes };
	live_add(c, bytes);
}

/*
 * Note [Contexts a heap sample reads]: a sample records the live bytes of
 * every context that holds any, and it read them by walking all of each
 * thread's contexts, twice (to count, then to copy), under the registry
 * lock.  Most contexts never allocate: CPython's `-c pass` makes 295,000
 * and allocates in 339 (it has arenas of its own).  The walk took about
 * 44 ms, every 10 ms: the sampler held the registry lock all the time,
 * and the thread at exit, waiting for it to write the profile, waited
 * 4-93 s, with SIGTERM blocked meanwhile (helper-189; 7-39 s under
 * clock=cycles here).  So a thread lists the contexts that ever held a
 * block of its own (heap_list, through heap_next), pushed the first time
 * one allocates, and a sample walks those.  The push is made inside the
 * block table (Note [Heap table re-entry]), where no signal handler of
 * the thread's can push too (its allocation is not followed), so it is
 * the owner's alone (or, on the owner's state, a vfork child's while the
 * owner waits): a store of the link, the head published after it, the
 * mark last.  Before, a compare-and-swap after an exchange on the mark
 * let a handler that left by siglongjmp between the two leave a context
 * marked and not listed, in no sample for good (helper-191).  A context
 * never leaves the list: one whose blocks were all freed is skipped as
 * before.  A block adopted from before the start, or put back by a
 * realloc that failed, is outside any context or in one already listed.
 */
static void heap_list_add(struct rt_thread *t, struct rt_ctx *c)
{
	if (c->heap_listed)
		return;
	c->heap_next = t->heap_list;
	RT_PUBLISH(&t->heap_list, c);
	c->heap_listed = 1;
}

/* A new block p of `bytes`, allocated in context c of thread t (both
 * NULL: outside any context; t NULL alone: c is listed already). */
void rt_heap_alloc(void *p, struct rt_thread *t, struct rt_ctx *c, size_t bytes)
{
	uint64_t h = hash_of((uintptr_t)p);
	struct stripe *s = table_enter(h);

	if (s) {
		if (t && c)
			heap_list_add(t, c); /* before its live bytes: a sample sees them */
		stripe_put(s, (uintptr_t)p, h, c, bytes);
		table_leave(s);
	}
}

/* ---- Blocks from before the start ----------------------------------------- */

/*
 * Note [Blocks from before the start]: the constructors of the program's
 * libraries run before the runtime's (Note [Start-up order] in alloc.c),
 * and what they allocate comes through the shim before heap=1 is even
 * read: libstdc++ allocates its emergency exception pool (72,704 bytes
 * with g++ 12) there, in every C++ program.  Such a block goes into a
 * small static table here, its address and size (the shim's calls come
 * from any context: no malloc, no lock; open addressing from the
 * address's hash, a slot taken by an atomic compare-and-swap, as a
 * thread may allocate while another does); a free or realloc before the
 * start takes it out again, under its stripe's lock, and its slot serves
 * another block.  When the runtime starts, rt_heap_configure adopts
 * the blocks still there into the block table as blocks allocated
 * outside any context (their allocation counts are outside too), and
 * raises the peak to the largest total they reached, which a block
 * freed before the start may have made: with heap=0 it forgets them.
 * Their frees then find them in the block table as any other.
 *
 * The table is closed first and adopted after: a thread that takes a
 * slot and finds it closed once its block is in settles that slot
 * itself (into the block table, or nowhere); the adoption's walk and that
 * thread race for the slot by compare-and-swap, and one of them wins.
 * (Sequentially consistent: the thread stores its block, then reads
 * rt_heap_early_open; the start clears it, then reads the slot; one of
 * them sees the other's store.)
 * Both hold the block's stripe lock while they move it, as a free's
 * take does, so a free sees the block in one table or the other.  Only
 * while the table holds blocks (rt_heap_early_held) do frees look at it:
 * after the start, never.  Blocks past EARLY_SLOTS live at once are
 * counted and not followed, and the start says so in one line.
 */
#define EARLY_BITS 12
#define EARLY_SLOTS (1u << EARLY_BITS)
#define EARLY_GONE ((uintptr_t)1)   /* its block left: the slot is free again */
#define EARLY_FILLING ((uintptr_t)2) /* taken, its block not yet in */

struct early_slot {
	uintptr_t key; /* block address, 0 (never used), EARLY_GONE or EARLY_FILLING */
	uint64_t size;
};

static struct early_slot early[EARLY_SLOTS];
int rt_heap_early_open = 1;  /* the runtime has not started */
unsigned rt_heap_early_held; /* slots holding a block */
static uint64_t early_live, early_peak;
static uint64_t early_dropped_blocks, early_dropped_bytes;

/* Where p's search begins; it goes on slot by slot, up to a slot never
 * used (slots are never emptied again, only EARLY_GONE). */
static unsigned early_home(uintptr_t p)
{
	return (unsigned)(hash_of(p) >> (64 - EARLY_BITS));
}

static unsigned early_next(unsigned i)
{
	return (i + 1) & (EARLY_SLOTS - 1);
}

/* Slot i's block, if it is still there, leaves the table: into the
 * block table as an outside block when `follow`, else nowhere. */
static void early_settle(unsigned i, int follow)
{
	uintptr_t key = __atomic_load_n(&early[i].key, __ATOMIC_SEQ_CST);
	uint64_t h = hash_of(key);
	struct stripe *s;

	if (key <= EARLY_FILLING)
		return;
	s = follow ? table_enter(h) : NULL;
	/* Under the stripe's lock, the block cannot be freed and its slot
	 * given to a new block at the same address: its size is its own. */
	uint64_t size = RT_LOAD(&early[i].size);

	if (__atomic_compare_exchange_n(&early[i].key, &key, EARLY_GONE, 0, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST)) {
		if (s)
			stripe_put(s, key, h, NULL, size);
		__atomic_fetch_sub(&rt_heap_early_held, 1, __ATOMIC_RELEASE);
	}
	if (s)
		table_leave(s);
}

/* Block p of `bytes`, allocated outside any context while heap=1 was
 * not on: kept for the start, or followed if it has come meanwhile. */
void rt_heap_early_alloc(void *p, size_t bytes)
{
	unsigned i = early_home((uintptr_t)p);

	if (!__atomic_load_n(&rt_heap_early_open, __ATOMIC_SEQ_CST)) {
		if (RT_LOAD(&rt_heap_active)) /* set before the table closed */
			rt_heap_alloc(p, NULL, NULL, bytes);
		return;
	}
	for (unsigned n = 0; n < EARLY_SLOTS; n++, i = early_next(i)) {
		uintptr_t key = __atomic_load_n(&early[i].key, __ATOMIC_SEQ_CST);

		if ((key == 0 || key == EARLY_GONE) &&
		    __atomic_compare_exchange_n(&early[i].key, &key, EARLY_FILLING, 0,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			__atomic_fetch_add(&rt_heap_early_held, 1, __ATOMIC_SEQ_CST);
			RT_STORE(&early[i].size, (uint64_t)bytes);
			__atomic_store_n(&early[i].key, (uintptr_t)p, __ATOMIC_SEQ_CST);
			raise_to(&early_peak, __atomic_add_fetch(&early_live, (uint64_t)bytes,
								 __ATOMIC_RELAXED));
			if (!__atomic_load_n(&rt_heap_early_open, __ATOMIC_SEQ_CST))
				early_settle(i, RT_LOAD(&rt_heap_active));
			return;
		}
	}
	__atomic_fetch_add(&early_dropped_blocks, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&early_dropped_bytes, (uint64_t)bytes, __ATOMIC_RELAXED);
}

/* Block p is being freed before the start (under its stripe's lock):
 * take it out of the table, if it is there. */
static int early_take(uintptr_t p, struct rt_heap_block *out)
{
	unsigned i = early_home(p);

	for (unsigned n = 0; n < EARLY_SLOTS; n++, i = early_next(i)) {
		uintptr_t key = __atomic_load_n(&early[i].key, __ATOMIC_ACQUIRE);

		if (key == 0)
			return 0;
		if (key != p)
			continue;
		out->ctx = NULL;
		out->size = RT_LOAD(&early[i].size);
		if (!__atomic_compare_exchange_n(&early[i].key, &key, EARLY_GONE, 0,
						 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return 0; /* forgotten by the start meanwhile */
		__atomic_fetch_sub(&early_live, out->size, __ATOMIC_RELAXED);
		__atomic_fetch_sub(&rt_heap_early_held, 1, __ATOMIC_RELEASE);
		return 1;
	}
	return 0;
}

/* The runtime starts: close the table, and adopt its blocks (`follow`)
 * or forget them. */
static void early_close(int follow)
{
	__atomic_store_n(&rt_heap_early_open, 0, __ATOMIC_SEQ_CST);
	/* None held (or filling) once it is closed: none left to find, and
	 * the default runtime never reads the table's pages. */
	for (unsigned i = 0; i < EARLY_SLOTS && __atomic_load_n(&rt_heap_early_held, __ATOMIC_SEQ_CST);
	     i++)
		early_settle(i, follow);
	if (!follow)
		return;
	raise_to(&peak_total, RT_LOAD(&early_peak));
	if (RT_LOAD(&early_dropped_blocks))
		rt_warn("heap=1: %llu blocks (%llu bytes) allocated before the start, past the "
			"%u held at once, are not followed",
			(unsigned long long)RT_LOAD(&early_dropped_blocks),
			(unsigned long long)RT_LOAD(&early_dropped_bytes), EARLY_SLOTS);
}

static void peak_picture(void);

/* Block p is being freed (or moved by realloc): take it out, and say
 * whose it was, so that a realloc that fails can put it back. */
int rt_heap_take(void *p, struct rt_heap_block *out)
{
	uint64_t h = hash_of((uintptr_t)p);
	struct stripe *s;
	int found = 0;

	if (p == NULL || (s = table_enter(h)) == NULL)
		return 0;
	if (RT_ACQUIRE(&rt_heap_early_held)) /* Note [Blocks from before the start] */
		found = early_take((uintptr_t)p, out);
	if (!found && s->mask) {
		size_t i = stripe_find(s, (uintptr_t)p, h);

		if (s->slots[i].key) {
			out->ctx = s->slots[i].ctx;
			out->size = s->slots[i].size;
			peak_picture(); /* before the heap goes down from a peak */
			live_sub(out->ctx, out->size);
			stripe_delete(s, i);
			found = 1;
		}
	}
	table_leave(s);
	return found;
}

/* Undo rt_heap_take: the realloc failed and p is still the program's. */
void rt_heap_put_back(void *p, const struct rt_heap_block *b)
{
	if (RT_LOAD(&rt_heap_active))
		rt_heap_alloc(p, NULL, b->ctx, (size_t)b->size);
	else
		rt_heap_early_alloc(p, (size_t)b->size);
}

/* ---- Samples -------------------------------------------------------------- */

/* One sample's place in the record buffer. */
struct sample_head {
	uint64_t time_ns;
	uint64_t outside_bytes;
	uint64_t serial; /* samples taken before it */
	uint32_t first, n;
};

struct sample_rec {
	uint32_t thread, context;
	uint64_t bytes;
};

#define MAX_SAMPLES (1u << 12)
#define MAX_RECORDS (1u << 20) /* 16 MB */

/* Held with signals blocked: Note [Locks and signals] in quietlock.c. */
static struct rt_quiet_mutex samples_lock = RT_QUIET_MUTEX_INIT;
static struct sample_head *heads;     /* MAX_SAMPLES, mapped on first use */
static struct sample_rec *recs;       /* rec_cap */
static uint32_t nheads, nrecs, rec_cap;
static uint64_t interval_ns, next_due, t0;
static uint64_t taken; /* samples ever taken: Note [Samples a write takes] */
static uint64_t picture_above; /* Note [The peak's picture] */
static uint64_t picture_serial = UINT64_MAX; /* the newest picture's: thinning keeps it */

/* The spacing of the samples: the sampler, which takes them, wakes every
 * `interval`, so a heap_interval shorter than that, or between two of
 * its multiples, is the next multiple (interval=20ms with
 * heap_interval=1ms sampled every 20 ms, and the profile said 1). */
static uint64_t sample_spacing(void)
{
	uint64_t wake = rt_config.interval_ns, want = rt_config.heap_interval_ns;

	if (wake == 0 || want % wake == 0)
		return want;
	return (want / wake + 1) * wake;
}

void rt_heap_configure(void)
{
	int on = rt_config.heap && rt_alloc_measured() && !rt_config.disabled;

	if (on && !rt_heap_active) {
		interval_ns = sample_spacing();
		t0 = rt_now_ns(CLOCK_MONOTONIC);
		next_due = t0;
	}
	__atomic_store_n(&rt_heap_active, on, __ATOMIC_SEQ_CST); /* before the table closes */
	early_close(on);
}

/* Keep every other sample (the last one and the peak's picture always),
 * and sample half as often. */
static void thin_out(void)
{
	uint32_t keep = 0, r = 0;

	for (uint32_t i = 0; i < nheads; i++) {
		if (i % 2 != 0 && i != nheads - 1 && heads[i].serial != picture_serial)
			continue;
		memmove(&recs[r], &recs[heads[i].first], heads[i].n * sizeof *recs);
		heads[keep] = heads[i];
		heads[keep].first = r;
		r += heads[i].n;
		keep++;
	}
	nheads = keep;
	nrecs = r;
	RT_STORE(&interval_ns, interval_ns * 2); /* read unlocked: rt_heap_gather */
}

/* Room for n more records; 0 if none can be had. */
static int reserve(uint32_t n)
{
	while (nrecs + (uint64_t)n > rec_cap) {
		uint32_t cap = rec_cap ? 2 * rec_cap : 4096;
		struct sample_rec *r;

		if (rec_cap >= MAX_RECORDS || n > MAX_RECORDS)
			return 0;
		if ((r = rt_map((size_t)cap * sizeof *r)) == NULL)
			return 0;
		if (recs) {
			memcpy(r, recs, (size_t)nrecs * sizeof *r);
			rt_unmap(recs, (size_t)rec_cap * sizeof *recs);
		}
		recs = r;
		rec_cap = cap;
	}
	return 1;
}

/* The first of t's contexts that held a block.  Their list is read
 * after the list of all, which publishes each context (its id, for the
 * records) before it can be listed.  For ThreadSanitizer: glibc's
 * pthread_create allocates the new thread's TLS vector on the calling
 * thread, inside TSan's interceptor, which ignores synchronization, so
 * the push of the caller's context was a release TSan did not see, and
 * it reported the read of the id as a race (tests/heap.py
 * stressed_tsan). */
static const struct rt_ctx *listed_contexts(const struct rt_thread *t)
{
	(void)RT_ACQUIRE(&t->all);
	return RT_ACQUIRE(&t->heap_list);
}

/* Contexts holding live bytes now (Note [Contexts a heap sample reads]). */
static uint32_t live_contexts(void)
{
	uint32_t n = 0;

	for (const struct rt_thread *t = rt_registry_first(); t; t = t->next)
		for (const struct rt_ctx *c = listed_contexts(t); c; c = c->heap_next)
			n += RT_LOAD(&c->live_bytes) != 0;
	return n;
}

/* Reverse recs[from, to). */
static void reverse(uint32_t from, uint32_t to)
{
	while (to > from + 1) {
		struct sample_rec x = recs[from];

		recs[from++] = recs[--to];
		recs[to] = x;
	}
}

static uint64_t rec_key(const struct sample_rec *r)
{
	return (uint64_t)r->thread << 32 | r->context;
}

/* Restore the heap property of a[0, n) below i. */
static void sift_down(struct sample_rec *a, uint32_t i, uint32_t n)
{
	for (uint32_t child; (child = 2 * i + 1) < n; i = child) {
		if (child + 1 < n && rec_key(&a[child + 1]) > rec_key(&a[child]))
			child++;
		if (rec_key(&a[i]) >= rec_key(&a[child]))
			return;
		struct sample_rec x = a[i];
		a[i] = a[child];
		a[child] = x;
	}
}

/* Sort recs[from, to) by (thread, context): a heapsort, which needs no
 * memory (the sampler may not call malloc) and is n log n at worst.
 * Skipped when they are in order already, the usual case. */
static void sort_records(uint32_t from, uint32_t to)
{
	struct sample_rec *a = &recs[from];
	uint32_t n = to - from, i;

	for (i = 1; i < n && rec_key(&a[i - 1]) < rec_key(&a[i]); i++)
		;
	if (i >= n)
		return;
	for (i = n / 2; i-- > 0;)
		sift_down(a, i, n);
	for (i = n; i-- > 1;) {
		struct sample_rec x = a[0];
		a[0] = a[i];
		a[i] = x;
		sift_down(a, 0, i);
	}
}

/* The sampler's CPU time, which the machine's load does not stretch (a
 * sampler kept waiting would space the samples out for no cost of
 * theirs; tests check the interval); the monotonic clock under a
 * seccomp filter: the CPU clock's reads are system calls, which a
 * filter may kill the process for (Note [Sandboxed] in sandbox.c;
 * helper-191), where the monotonic clock's, which the sampler reads
 * anyway, are not. */
static uint64_t cost_clock(void)
{
	return rt_now_ns(rt_sandbox_none() ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC);
}

static uint64_t cost_since(uint64_t began)
{
	uint64_t now = cost_clock();

	return now > began ? now - began : 0; /* 0 too where the clock failed */
}

/* Append one sample (under samples_lock and the registry lock); into
 * *read_cost, if asked, the time its reading took.  The
 * registry is newest first, and each thread's list of contexts that held
 * blocks mostly so (a context is made before its first block, but may
 * hold its first block later than one made after it): the walk meets
 * (thread, context) in about decreasing order, reversed, sorted if need
 * be, the records are in the order the file wants.  Its time is read here,
 * under the lock, not by the caller before it: the sampler reads the
 * clock before it waits for the registry lock, and a writer's final
 * sample taken meanwhile came later than that, so the sampler's sample
 * went after it with an earlier time, out of order, and the reader
 * refused every profile written after it, the one at exit too. */
static int take_sample(uint64_t *read_cost)
{
	uint64_t now = rt_now_ns(CLOCK_MONOTONIC), began = read_cost ? cost_clock() : 0;
	uint32_t n = live_contexts(), first;

	if (read_cost)
		*read_cost = cost_since(began);
	if (heads == NULL && (heads = rt_map(MAX_SAMPLES * sizeof *heads)) == NULL)
		return 0;
	if (nheads == MAX_SAMPLES || !reserve(n)) {
		thin_out();
		if (!reserve(n))
			return 0;
	}
	began = read_cost ? cost_clock() : 0;
	first = nrecs;
	/* n is a count of a moment ago: contexts that held blocks since take
	 * more room (the walk meets the oldest last, and they were left out:
	 * helper-191, 441 of main's 1,023 blocks in one sample). */
	for (const struct rt_thread *t = rt_registry_first(); t; t = t->next)
		for (const struct rt_ctx *c = listed_contexts(t); c; c = c->heap_next) {
			uint64_t b = RT_LOAD(&c->live_bytes);

			if (b == 0)
				continue;
			if (nrecs == rec_cap && !reserve(1))
				break;
			recs[nrecs++] = (struct sample_rec){ t->seq, c->id, b };
		}
	reverse(first, nrecs);
	sort_records(first, nrecs);
	if (read_cost)
		*read_cost += cost_since(began);
	heads[nheads] = (struct sample_head){ now - t0, RT_LOAD(&outside_live_bytes), taken, first,
					      nrecs - first };
	RT_PUBLISH(&nheads, nheads + 1);
	RT_PUBLISH(&taken, taken + 1); /* after its reads: Note [Samples a write takes] */
	return 1;
}

/*
 * Note [The peak's picture]: the samples come every interval, and a peak
 * that lasts less (a buffer of a moment) falls between two of them: the
 * views would know the peak's size but not who held it.  So, as
 * valgrind's massif does, a free that is about to take the heap down from
 * its peak takes a sample first, from the freeing thread, inside the
 * block table (the block is still counted): the heap as it was at the
 * peak.  Only a peak 1 % above the last one pictured (massif's default
 * --peak-inaccuracy) is taken again, which bounds the pictures of a heap
 * growing in a saw-tooth to about 70 per doubling; the newest is kept
 * through thinning.  The locks are only tried (the thread may hold the
 * registry lock, or a signal handler interrupt a sample), and a picture
 * that cannot be had now is tried again at the next free.  With other
 * threads allocating meanwhile, the picture is of a moment near the peak.
 */
static void peak_picture(void)
{
	uint64_t total = RT_LOAD(&live_total);

	if (total != RT_LOAD(&peak_total) || total <= RT_LOAD(&picture_above))
		return;
	if (!rt_registry_trylock())
		return;
	if (rt_quiet_trylock(&samples_lock)) {
		if (take_sample(NULL)) {
			picture_serial = heads[nheads - 1].serial;
			RT_STORE(&picture_above, total + total / 100);
		}
		rt_quiet_unlock(&samples_lock);
	}
	rt_registry_unlock();
}

/* A sample whose reading took more than a quarter of the interval
 * (under the registry lock, which the program's threads take to start,
 * end and exit) doubles the interval, as thinning does: the sampler then
 * holds the lock at most about a quarter of the time.  Before, a sample
 * of 295,000 contexts took longer than the interval, the sampler took
 * the lock again at once, and the thread at exit waited for it for
 * seconds (Note [Contexts a heap sample reads]); a sample of many
 * contexts that held blocks can still take that long (65,535 in
 * tests/progs/heapwide.c with every chain allocating: 10-20 ms).  Only
 * the reading counts, not a buffer's first mapping or growth, which
 * happen once: with those the interval doubled for no lasting cost
 * (helper-191: tests/heap.py thinned() ended at 640 us, not 160). */
static unsigned slow_in_a_row; /* under samples_lock */

static void slow_sample_spaces_out(uint64_t took)
{
	/* Two in a row: one alone may be a few page faults of the buffer's
	 * new pages, which at a short interval (0.1 ms: 25 us) is enough
	 * (helper-193). */
	if (took <= interval_ns / 4) {
		slow_in_a_row = 0;
		return;
	}
	if (++slow_in_a_row < 2)
		return;
	while (took > interval_ns / 4 && interval_ns < UINT64_MAX / 4)
		RT_STORE(&interval_ns, interval_ns * 2); /* read unlocked: rt_heap_gather */
	slow_in_a_row = 0;
}

/* From the sampler, under the registry lock: a sample if one is due. */
void rt_heap_sample(uint64_t now)
{
	uint64_t cost;

	if (!RT_LOAD(&rt_heap_active) || now < next_due)
		return;
	rt_quiet_lock(&samples_lock);
	if (take_sample(&cost))
		slow_sample_spaces_out(cost);
	/* On the schedule, not from the wake-up that found it due, which is
	 * up to an interval late: the samples drifted 5-8 % apart beyond
	 * heap_interval (helper-122).  Up to one spacing behind it, a wake-up
	 * catches up: the sampler wakes 0.5-1.5 intervals apart (Note
	 * [Samples out of step] in sampler.c), and with the spacing one
	 * interval, starting again from now at each late one spaced the
	 * samples 1.17 intervals apart (helper-126; now 1.035).  After a
	 * longer stall, from now. */
	next_due += interval_ns;
	if (next_due + interval_ns <= now)
		next_due = now;
	rt_quiet_unlock(&samples_lock);
}

/*
 * A write from a signal handler or _exit waits for the heap's locks up
 * to 50 ms, then goes without.  Their holder is another thread (a quiet
 * lock blocks signals while held), which lets them go within a sample's
 * time: a write that only tried the samples' lock once, from a handler
 * of SIGTERM while the sampler or a peak's picture held it, wrote no
 * sample at all (helper-193: 7 of 26 CPython runs with 8 threads killed
 * mid-run; nothing said so), and its last sample was left out the same
 * way (helper-195).  Not for ever: the holder may be a thread a child
 * made without fork's handlers does not have.  Under a seccomp filter,
 * one try: nanosleep and clock_gettime are calls it may kill for (Note
 * [Sandboxed] in sandbox.c).
 */
#define ASYNC_LOCK_WAIT_NS 50000000ull

static uint64_t async_deadline(void)
{
	return rt_sandbox_none() ? rt_now_ns(CLOCK_MONOTONIC) + ASYNC_LOCK_WAIT_NS : 0;
}

/* The last sample, as the profile is written.  The registry lock first,
 * as the sampler takes them.  From a signal handler or _exit (async),
 * the locks are waited for up to ASYNC_LOCK_WAIT_NS, then gone
 * without.  Before, such a write took no last sample, and the views'
 * curves stopped short of the live heap at the end (helper-176: xz -T2
 * dying by SIGPIPE, its last sample 0.835 of the peak it held at the
 * end). */
void rt_heap_final_sample(int async)
{
	uint64_t deadline;

	if (!RT_LOAD(&rt_heap_active))
		return;
	if (!async) {
		rt_registry_lock();
		rt_quiet_lock(&samples_lock);
	} else if (deadline = async_deadline(), !rt_registry_trylock_until(deadline)) {
		return;
	} else if (!rt_quiet_trylock_until(&samples_lock, deadline)) {
		rt_registry_unlock();
		return;
	}
	take_sample(NULL);
	rt_quiet_unlock(&samples_lock);
	rt_registry_unlock();
}

/*
 * Note [Samples a write takes]: a write reads the contexts' counts
 * (gather_thread in dump.c), then the samples.  The sampler runs on
 * meanwhile (ccprof_dump and dump_signal write mid-run; only exit and
 * exec stop it): it waits for the registry lock while the counts are
 * read and takes its sample just after.  Such a sample may hold more
 * live bytes than the allocated bytes the write read a moment before,
 * a file the reader refuses, and the writer wrote nothing ("out of
 * memory").  So a write marks the samples taken before it reads the
 * counts (rt_heap_mark), and keeps those only.  A sample's reads come
 * before `taken` counts it (release), and the write's reads of the
 * counts after it reads `taken` (acquire).
 */
uint64_t rt_heap_mark(void)
{
	return RT_ACQUIRE(&taken);
}

/* ---- The write ------------------------------------------------------------ */

/* The heap part from the first n samples (under samples_lock, or n = 0). */
static int gather_locked(struct ccp_profile *p, void *(*alloc)(void *, size_t), void *m,
			 uint32_t n)
{
	struct ccp_heap *h = &p->heap;
	uint64_t final;

	h->measured = 1;
	/* Relaxed: a write from a signal handler that found the samples
	 * locked reads it while the sampler may be doubling it. */
	h->interval_ns = RT_LOAD(&interval_ns);
	h->outside_live_bytes = RT_LOAD(&outside_live_bytes);
	h->outside_live_blocks = RT_LOAD(&outside_live_blocks);
	h->peak_bytes = RT_LOAD(&peak_total);
	final = h->outside_live_bytes;
	h->samples = alloc(m, (n ? n : 1) * sizeof *h->samples);
	if (h->samples == NULL)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		struct ccp_heap_sample *s = &h->samples[h->nsamples];
		uint64_t total = heads[i].outside_bytes;

		s->time_ns = heads[i].time_ns;
		s->outside_bytes = heads[i].outside_bytes;
		s->records = alloc(m, (heads[i].n ? heads[i].n : 1) * sizeof *s->records);
		if (s->records == NULL)
			return -1;
		for (uint32_t j = 0; j < heads[i].n; j++) {
			const struct sample_rec *r = &recs[heads[i].first + j];

			if (r->thread >= p->nthreads || r->context >= p->threads[r->thread].ncontexts)
				continue; /* cannot be; the reader would refuse the file */
			s->records[s->nrecords++] = (struct ccp_heap_record){ r->thread, r->context,
									     r->bytes };
			total += r->bytes;
		}
		if (total > h->peak_bytes) /* read while the program ran */
			h->peak_bytes = total;
		h->nsamples++;
	}
	for (uint32_t i = 0; i < p->nthreads; i++)
		for (uint32_t j = 0; j < p->threads[i].ncontexts; j++)
			final += p->threads[i].contexts[j].live_bytes;
	if (final > h->peak_bytes)
		h->peak_bytes = final;
	return 0;
}

/* Fill the profile's heap part; `alloc` is the write's memory.  Called
 * before the allocation counts are read (rt_alloc_gather), so that no
 * live count read here can exceed them.  A write from a signal handler
 * that finds the samples locked (the sampler may be thinning them out)
 * waits up to ASYNC_LOCK_WAIT_NS, then writes none rather than read them
 * half moved. */
int rt_heap_gather(struct ccp_profile *p, void *(*alloc)(void *, size_t), void *m, int async,
		   uint64_t mark)
{
	uint32_t n;
	int locked;
	int rc;

	if (!RT_LOAD(&rt_heap_active))
		return 0;
	/* Note [A table without memory], and the blocks from before the start
	 * that the start said it leaves out (early_close). */
	p->stats.untracked_allocs = RT_LOAD(&untracked_allocs) + RT_LOAD(&early_dropped_blocks);
	if (RT_LOAD(&untracked_allocs))
		rt_warn("heap=1: no memory to follow %llu allocations: the live heap and its "
			"peak may be short of them", (unsigned long long)RT_LOAD(&untracked_allocs));
	locked = async ? rt_quiet_trylock_until(&samples_lock, async_deadline())
		       : (rt_quiet_lock(&samples_lock), 1);
	n = 0;
	while (locked && n < nheads && heads[n].serial < mark) /* Note [Samples a write takes] */
		n++;
	rc = gather_locked(p, alloc, m, n);
	if (locked)
		rt_quiet_unlock(&samples_lock);
	return rc;
}

/* ---- Fork ----------------------------------------------------------------- */

/*
 * Note [Heap table and fork]: the fork handlers do not hold the stripes'
 * locks across the fork.  glibc's fork takes its own locks (the list of
 * stdio streams, NSS, malloc's) after the handlers have run, and a thread
 * may allocate while it holds one of them, or waits for one held by a
 * thread that allocates (a thread in getline or printf holds its stream
 * and allocates; fflush(NULL) holds the list and waits for the stream):
 * with the stripes held, the allocation waited for the fork, and the
 * fork for the list, for ever (tests/progs/heapfork.c); so did a fork
 * handler of the program's that allocates, registered before ours (its
 * prepare handler runs after ours, its parent one before).  glibc takes
 * malloc's own locks last for that reason; ours would have to come after
 * those, where no handler runs.  The child needs none of the table, only
 * an empty one: it clears every stripe, whatever the threads that are
 * gone were doing in it.  Only stripe_grow changes the shape of a stripe,
 * and it sets the bigger slots before the mask that says their number, so
 * the child clears either the old slots with the old mask, or the new
 * (still empty, before any entry moved) with the old mask, or the new with
 * the new: never more than is there.  An old table that grow had not yet
 * unmapped stays mapped in the child, unused.  Until it is cleared, the
 * child must not enter the table (a stripe may be locked by a thread
 * that is gone), and glibc, or a fork handler registered before ours,
 * may allocate before our child handler runs: so the forking thread
 * stays out of the table from our prepare handler to the end of fork,
 * as a signal handler inside the table does (Note [Heap table
 * re-entry]); what it allocates meanwhile is not followed
 * (tests/progs/heapforkin.c holds another thread inside a stripe across
 * the fork).
 */
static __thread int in_table_at_fork __attribute__((tls_model("initial-exec")));

void rt_heap_before_fork(void)
{
	rt_quiet_lock(&samples_lock);
	in_table_at_fork = in_table;
	in_table = 1;
}

void rt_heap_after_fork_parent(void)
{
	in_table = in_table_at_fork;
	rt_quiet_unlock(&samples_lock);
}

/* The child starts from nothing, as its other counts do: the blocks it
 * inherited are no context's of its own, and their frees find nothing. */
void rt_heap_after_fork_child(struct rt_thread *survivor)
{
	for (unsigned i = 0; i < STRIPES; i++) {
		struct stripe *s = &stripes[i];
		size_t mask = RT_ACQUIRE(&s->mask); /* Note [Heap table and fork] */

		if (s->slots)
			memset(s->slots, 0, (mask + 1) * sizeof *s->slots);
		s->used = 0;
		s->lock = 0;
	}
	if (survivor)
		for (struct rt_ctx *c = survivor->all; c; c = c->all_next)
			c->live_bytes = c->live_blocks = 0;
	outside_live_bytes = outside_live_blocks = 0;
	live_total = peak_total = 0;
	untracked_allocs = 0; /* Note [A table without memory] */
	early_dropped_blocks = early_dropped_bytes = 0; /* the parent's, never in this table */
	picture_above = 0;
	picture_serial = UINT64_MAX;
	nheads = nrecs = 0;
	interval_ns = sample_spacing();
	slow_in_a_row = 0;
	t0 = next_due = rt_now_ns(CLOCK_MONOTONIC);
	rt_quiet_after_fork(&samples_lock);
	in_table = in_table_at_fork; /* Note [Heap table and fork] */
}
