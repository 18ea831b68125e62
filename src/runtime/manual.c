/*
 * manual.c - the public API of ccprof.h: named regions and ccprof_dump.
 *
 * A region is a cost centre keyed by the address of its handle, so it
 * takes part in the context machine exactly like a function.  Its shadow
 * entry carries RT_REGION_SP (Note [Shadow stack]): it has no frame of its
 * own, so it is closed by key, and by the return of the function that
 * opened it if it is never closed.
 */
#include <errno.h>
#include <string.h>

#define CCPROF_BUILDING_RUNTIME
#include "ccprof.h"
#include "runtime.h"

struct ccprof_cc {
	uint32_t hash;
	char name[];
};

/* Referenced by hooks.c, so that a static link that pulls in the hooks
 * pulls in this API too (the header's references to it are weak). */
const int rt_manual_anchor = 1;

/*
 * Note [Region names]: ccprof_cc() finds a name's region in a hash table
 * (open addressing, at most half full, doubled when it would be more) and
 * makes a new one in a pool: chunks of REGION_CHUNK bytes from rt_map, a
 * region taking a chunk's next bytes, a name longer than that a mapping
 * of its own.  Regions live as long as the process (the cost-centre table
 * points at their names), so nothing is freed but an outgrown table.  A
 * program may name tens of thousands of regions (one per file, per
 * query): a list searched from its head and a page for each name took
 * seconds and a hundred megabytes for 20000.
 *
 * All under regions_lock.  The stores are ordered so that a fork in
 * another thread leaves the child a table that is whole (a region it was
 * adding is at worst missing, and is added again by its next ccprof_cc):
 * a region is complete before its slot is set, a grown table filled
 * before it replaces the old one, and a table carries its own size, so
 * that one store replaces both (with the size apart, a fork between the
 * two stores left the child the new table with the old size, whose
 * lookups missed regions and made them again).
 */
#define REGION_CHUNK (64u << 10)
#define REGION_TABLE_FIRST 1024u

struct region_table {
	uint32_t cap;               /* slots, a power of two */
	struct ccprof_cc *slot[];   /* NULL = empty */
};

static struct region_table *regions; /* NULL before the first region */
static uint32_t region_count;
static unsigned char *pool_next, *pool_end;
static pthread_mutex_t regions_lock = PTHREAD_MUTEX_INITIALIZER;

/* In a forked child: the lock may have been held by a thread that is gone
 * (Note [Region names]). */
void rt_manual_after_fork(void)
{
	pthread_mutex_init(&regions_lock, NULL);
}

/* FNV-1a */
static uint32_t name_hash(const char *name, size_t *len)
{
	uint32_t h = 2166136261u;
	const unsigned char *p = (const unsigned char *)name;

	for (; *p; p++)
		h = (h ^ *p) * 16777619u;
	*len = (size_t)(p - (const unsigned char *)name);
	return h;
}

static struct ccprof_cc **region_slot(struct region_table *t, uint32_t hash, const char *name)
{
	uint32_t s = hash & (t->cap - 1);

	while (t->slot[s] && (t->slot[s]->hash != hash || strcmp(t->slot[s]->name, name) != 0))
		s = (s + 1) & (t->cap - 1);
	return &t->slot[s];
}

static size_t table_bytes(uint32_t cap)
{
	return sizeof(struct region_table) + cap * sizeof(struct ccprof_cc *);
}

static int grow_regions(void)
{
	struct region_table *old = regions, *t;
	uint32_t cap = old ? 2 * old->cap : REGION_TABLE_FIRST;

	if ((t = rt_map(table_bytes(cap))) == NULL)
		return -1;
	t->cap = cap;
	for (uint32_t i = 0; old && i < old->cap; i++)
		if (old->slot[i])
			*region_slot(t, old->slot[i]->hash, old->slot[i]->name) = old->slot[i];
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	regions = t;
	if (old)
		rt_unmap(old, table_bytes(old->cap));
	return 0;
}

/* Room for a region of n bytes, a multiple of 8: the pool's next bytes
 * (*pooled = 1), taken by moving pool_next once the region is in use, or
 * for a long name a mapping of its own (the rest of the chunk stays for
 * the next). */
static void *pool_room(size_t n, int *pooled)
{
	unsigned char *m;

	*pooled = (size_t)(pool_end - pool_next) >= n || n <= REGION_CHUNK / 4;
	if (!*pooled)
		return rt_map(n);
	if ((size_t)(pool_end - pool_next) < n) {
		if ((m = rt_map(REGION_CHUNK)) == NULL)
			return NULL;
		pool_next = m;
		pool_end = m + REGION_CHUNK;
	}
	return pool_next;
}

/* Just below the caller's stack pointer: under its frame, above any frame
 * it calls. */
#define REGION_SP() (((uintptr_t)__builtin_frame_address(0) + sizeof(void *)) | RT_REGION_SP)

RT_API ccprof_cc_t ccprof__cc(const char *name)
{
	struct ccprof_cc *r = NULL, **slot;
	uint32_t hash;
	size_t n, size;
	int pooled;

	rt_init();
	if (rt_config.disabled)
		return NULL;
	if (name == NULL)
		name = "(null)";
	hash = name_hash(name, &n);
	pthread_mutex_lock(&regions_lock);
	if (regions && (r = *region_slot(regions, hash, name)) != NULL)
		goto out;
	if (2 * (region_count + 1) > (regions ? regions->cap : 0) && grow_regions() != 0)
		goto out;
	slot = region_slot(regions, hash, name);
	size = (sizeof *r + n + 1 + 7) & ~(size_t)7; /* keeps the next one aligned */
	if ((r = pool_room(size, &pooled)) == NULL)
		goto out;
	r->hash = hash;
	memcpy(r->name, name, n + 1);
	if (rt_cc_intern((uintptr_t)r, CCP_CC_MANUAL, r->name) == UINT32_MAX) {
		if (!pooled) /* else its room goes to the next name */
			rt_unmap(r, size);
		r = NULL;
		goto out;
	}
	if (pooled)
		pool_next += size;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	*slot = r;
	region_count++;
out:
	pthread_mutex_unlock(&regions_lock);
	return r;
}

RT_API void ccprof__enter(ccprof_cc_t cc)
{
	struct rt_thread *t = rt_self;

	if (cc == NULL)
		return;
	if (t == NULL && (t = rt_thread_start()) == NULL)
		return;
	if (rt_cycles) /* the time so far belongs to the context we leave */
		rt_charge_ticks(t, rt_tick());
	/* Frames left by longjmp since the last hook: strictly below the
	 * caller's stack pointer (its own entry stays). */
	if (t->top[-1].sp < REGION_SP())
		rt_discard_gone(t, REGION_SP() - 1, 0, 0, 0);
	rt_enter(t, (uintptr_t)cc, (uintptr_t)cc, REGION_SP(), 0);
}

/* Pop back to the context that was current before `cc` was entered: the
 * newest shadow entry whose following context runs `cc`. */
RT_API void ccprof__leave(ccprof_cc_t cc)
{
	struct rt_thread *t = rt_self;
	struct rt_ctx *after;
	struct rt_shadow *s;

	if (cc == NULL || t == NULL)
		return;
	if (rt_cycles)
		rt_charge_ticks(t, rt_tick());
	if (t->overflow) {
		rt_overflow_set(t, t->overflow - 1);
		return;
	}
	after = t->cur;
	for (s = rt_entry_top(t); s != NULL; s = rt_entry_below(s)) {
		if (after->fn == (uintptr_t)cc && (s->sp & RT_REGION_SP)) {
			rt_pop_to(t, s);
			return;
		}
		after = s->ctx;
	}
}

RT_API int ccprof__dump(void)
{
	rt_init();
	if (rt_config.disabled) {
		errno = EPERM;
		return -1;
	}
	return rt_dump();
}
