/*
 * cctable.c - process-wide numbering of cost centres.
 *
 * Histories store dense CC numbers, not addresses, so they are small and
 * the same in every thread.  A function's number is given the first time
 * any thread makes a transition into it (a slow path, so a lock is fine);
 * a manual region's when ccprof_cc() names it.  The writer reads the table
 * under the same lock; a thread asking for a number the table already
 * has does not take it (Note [Numbers read without the lock]).
 */
#include <string.h>

#include <unistd.h>

#include "runtime.h"

struct cc_table {
	struct rt_cc_info *info; /* by number */
	uint32_t count, cap;
	/* Open addressing: number + 1, 0 = empty.  index[-1] holds
	 * index_cap, so that a reader without the lock has both from one
	 * pointer. */
	uint32_t *index;
	uint32_t index_cap;
};

static struct cc_table tab;

/*
 * Note [Numbers read without the lock]: each thread asks the table once
 * for each function it enters (Note [Cost centres a thread remembers] in
 * machine.c), and the cc lock's two sigprocmask calls (Note [Locks and
 * signals] in quietlock.c) made most of a short thread's system calls:
 * 202 of about 230 for a thread that called 100 functions the threads
 * before it had called (tests/robust.py wide_thread_calls;
 * docs/performance.md, session 29).  So a number the table has is read
 * without the lock, under a sequence count (a seqlock): every change of
 * the table is made with `changing` odd, and a reader that saw it odd,
 * or changed by the end of its look, asks again under the lock, as does
 * one that did not find the key.  A look may so read a table being
 * changed, and must not fault: the arrays a table outgrows are never
 * unmapped (together about the size of its last ones), nor is the index
 * a rebase replaced (rt_cc_rebase_module reuses it at the next), every
 * word a reader reads (an index's slots and capacity, an entry's key
 * and `retired`; never its other fields) is read and written
 * atomically, the capacity of an index is read from the index itself, a
 * look makes at most that many probes, and an index slot is published
 * (release) only after the entry it names and the array that holds it,
 * so the reader finds both.  A handler that interrupts a reader reads or
 * takes the lock itself; no writer is interrupted (the lock blocks
 * signals).  ThreadSanitizer checks the atomic accesses
 * (tests/robust.py threads_tsan), not the fences' order.
 */
static uint32_t changing;

static void change_begin(void)
{
	RT_STORE(&changing, changing + 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void change_end(void)
{
	__atomic_store_n(&changing, changing + 1, __ATOMIC_RELEASE);
}
/* Changed whenever a key may come to name another number (a module
 * unloaded, or loaded again elsewhere): what threads remember of the
 * table (Note [Cost centres a thread remembers] in machine.c) is then
 * stale.  Written under the lock, read without it. */
static uint32_t generation = 1;

uint32_t rt_cc_generation(void)
{
	return __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
}

static void keys_moved(void)
{
	__atomic_store_n(&generation, generation + 1 ? generation + 1 : 1, __ATOMIC_RELEASE);
}
/* Note [Locks and signals] in quietlock.c */
static struct rt_quiet_mutex tab_lock = RT_QUIET_MUTEX_INIT;

void rt_cc_lock(void)
{
	rt_quiet_lock(&tab_lock);
}

int rt_cc_trylock(void)
{
	return rt_quiet_trylock(&tab_lock);
}

void rt_cc_unlock(void)
{
	rt_quiet_unlock(&tab_lock);
}

void rt_cc_after_fork(void)
{
	rt_quiet_after_fork(&tab_lock);
}

static size_t key_slot(uintptr_t key, uint32_t cap)
{
	uint64_t x = (uint64_t)key * 0x9e3779b97f4a7c15ULL;

	return (size_t)(x >> 32) & (cap - 1);
}

/* Every number into the slots of `index` (cap of them, all empty).
 * Atomic stores: a reader may be looking at a reused index meanwhile
 * (it then asks again: Note [Numbers read without the lock]). */
static void fill_slots(uint32_t *index, uint32_t cap)
{
	uint32_t i;

	for (i = 0; i < tab.count; i++) {
		size_t s = key_slot(tab.info[i].key, cap);

		while (RT_LOAD(&index[s]))
			s = (s + 1) & (cap - 1);
		RT_STORE(&index[s], i + 1);
	}
}

/* A new index of cap slots holding every number (its capacity in the
 * word before them), or NULL. */
static uint32_t *fill_index(uint32_t cap)
{
	uint32_t *index = rt_map_written((cap + 1) * sizeof *index); /* sys.c */

	if (index == NULL)
		return NULL;
	*index++ = cap;
	fill_slots(index, cap);
	return index;
}

/* The index a rebase replaced, of the current capacity, for the next
 * rebase to reuse, or NULL: a library loaded again elsewhere, over and
 * over (a plugin loop), left a written index behind each time, 16 KB
 * a reload in tests/progs/dlmove.c (helper-137). */
static uint32_t *spare_index;

/* The old index stays mapped: Note [Numbers read without the lock]. */
static void publish_index(uint32_t *index, uint32_t cap)
{
	change_begin();
	__atomic_store_n(&tab.index, index, __ATOMIC_RELEASE);
	tab.index_cap = cap;
	change_end();
}

static int grow_index(void)
{
	uint32_t cap = tab.index_cap ? 2 * tab.index_cap : 1024;
	uint32_t *index = fill_index(cap);

	if (index == NULL)
		return -1;
	publish_index(index, cap);
	spare_index = NULL; /* too small now; it stays mapped */
	return 0;
}

static int grow_info(void)
{
	uint32_t cap = tab.cap ? 2 * tab.cap : 512;
	struct rt_cc_info *info = rt_map(cap * sizeof *info);

	if (info == NULL)
		return -1;
	if (tab.count)
		memcpy(info, tab.info, tab.count * sizeof *info);
	change_begin();
	__atomic_store_n(&tab.info, info, __ATOMIC_RELEASE);
	tab.cap = cap;
	change_end();
	return 0;
}

/* The number of `key`, looked up without the lock; UINT32_MAX if it is
 * not there or the table changed meanwhile (Note [Numbers read without
 * the lock]). */
static uint32_t lookup_unlocked(uintptr_t key)
{
	uint32_t before = __atomic_load_n(&changing, __ATOMIC_ACQUIRE), id = UINT32_MAX, v;
	const uint32_t *index = __atomic_load_n(&tab.index, __ATOMIC_ACQUIRE);
	size_t s, cap, n;

	if ((before & 1) || index == NULL)
		return UINT32_MAX;
	cap = RT_LOAD(&index[-1]);
	/* At most cap probes: an index being refilled may be full of a
	 * change's slots for a moment (rt_cc_rebase_module). */
	for (s = key_slot(key, cap), n = 0;
	     n < cap && (v = __atomic_load_n(&index[s], __ATOMIC_ACQUIRE)) != 0;
	     s = (s + 1) & (cap - 1), n++) {
		const struct rt_cc_info *i = __atomic_load_n(&tab.info, __ATOMIC_ACQUIRE) + (v - 1);

		if (RT_LOAD(&i->key) == key && !RT_LOAD(&i->retired)) {
			id = v - 1;
			break;
		}
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return RT_LOAD(&changing) == before ? id : UINT32_MAX;
}

static uint32_t lookup(uintptr_t key)
{
	size_t s;

	if (tab.index_cap == 0)
		return UINT32_MAX;
	for (s = key_slot(key, tab.index_cap); tab.index[s]; s = (s + 1) & (tab.index_cap - 1))
		if (tab.info[tab.index[s] - 1].key == key && !tab.info[tab.index[s] - 1].retired)
			return tab.index[s] - 1;
	return UINT32_MAX;
}

/* A function of a module unloaded and loaded again at the same place
 * (modules.c) takes its old number back: its contexts, found again by
 * their histories, are the ones it had (Note [Unloaded functions] in
 * machine.c). */
static uint32_t revive(uintptr_t key, int32_t module)
{
	size_t s;

	if (module < 0 || tab.index_cap == 0)
		return UINT32_MAX;
	for (s = key_slot(key, tab.index_cap); tab.index[s]; s = (s + 1) & (tab.index_cap - 1)) {
		struct rt_cc_info *i = &tab.info[tab.index[s] - 1];

		if (i->key == key && i->retired && i->kind == CCP_CC_FUNCTION && i->module == module) {
			change_begin();
			RT_STORE(&i->retired, 0);
			change_end();
			return tab.index[s] - 1;
		}
	}
	return UINT32_MAX;
}

static uint32_t add(uintptr_t key, uint32_t kind, const char *name)
{
	int32_t module = kind == CCP_CC_FUNCTION ? rt_module_of(key) : -1;
	struct rt_cc_info *i;
	uint32_t id;
	size_t s;

	if (kind == CCP_CC_FUNCTION && (id = revive(key, module)) != UINT32_MAX)
		return id;
	if (2 * (tab.count + 1) > tab.index_cap && grow_index())
		return UINT32_MAX;
	if (tab.count == tab.cap && grow_info())
		return UINT32_MAX;
	i = &tab.info[tab.count];
	change_begin();
	RT_STORE(&i->key, key);
	i->kind = kind;
	i->name = name;
	i->module = module;
	RT_STORE(&i->retired, 0);
	for (s = key_slot(key, tab.index_cap); tab.index[s]; s = (s + 1) & (tab.index_cap - 1))
		;
	__atomic_store_n(&tab.index[s], tab.count + 1, __ATOMIC_RELEASE); /* after the entry */
	change_end();
	return tab.count++;
}

/* The number of the CC with `key`, created if new; UINT32_MAX when memory
 * ran out. */
/*
 * Note [New cost centres in a child without fork's handlers]: a child
 * that clone or _Fork made has the locks as they were when it was made,
 * perhaps held by a thread it does not have: the cc lock, and the
 * dynamic linker's, which rt_module_of's dl_iterate_phdr takes.  Its
 * first call of a function the process had not called waited for ever,
 * every signal blocked (helper-190: 5 of 200 clone children, beside a
 * thread that loaded and unloaded a library).  Such a child writes no
 * profile (dump.c), so it makes no cost centre: the call is lost, as
 * for a full table.  A vfork child, whose calls are its parent's
 * profile's, shares its memory with live threads, which give the locks
 * back: it makes them as before (rt_own_memory; where that cannot be
 * told, as a child of its own).  The pid is read here only, where a
 * cost centre is made (dl_iterate_phdr is much more).
 */
static int may_make(void)
{
	return getpid() == rt_pid || rt_own_memory() == 0;
}

uint32_t rt_cc_intern(uintptr_t key, uint32_t kind, const char *name)
{
	uint32_t id = lookup_unlocked(key);

	if (id != UINT32_MAX)
		return id;
	if (!may_make())
		return UINT32_MAX;
	rt_cc_lock();
	id = lookup(key);
	if (id == UINT32_MAX)
		id = add(key, kind, name);
	rt_cc_unlock();
	return id;
}

/* The functions of an unloaded module keep their numbers (contexts hold
 * them) but give up their addresses: a function loaded there later gets a
 * number of its own.  Under the cc lock. */
void rt_cc_retire_module(int32_t module)
{
	uint32_t i;

	change_begin();
	for (i = 0; i < tab.count; i++)
		if (tab.info[i].kind == CCP_CC_FUNCTION && tab.info[i].module == module)
			RT_STORE(&tab.info[i].retired, 1);
	change_end();
	keys_moved();
}

/* The keys of an unloaded module's functions move by `by` (modulo the
 * word).  Under the cc lock, in a change. */
static void move_retired_keys(int32_t module, uintptr_t by)
{
	uint32_t i;

	for (i = 0; i < tab.count; i++)
		if (tab.info[i].kind == CCP_CC_FUNCTION && tab.info[i].module == module &&
		    tab.info[i].retired)
			RT_STORE(&tab.info[i].key, tab.info[i].key + by);
}

/* An unloaded module is loaded again, at base `to` instead of `from`
 * (modules.c): its functions' numbers follow it, so that each takes its
 * number back when it is entered (revive), as at the same base.  0, or
 * -1 (nothing changed) when memory ran out.  Under the cc lock. */
int rt_cc_rebase_module(int32_t module, uintptr_t from, uintptr_t to)
{
	uint32_t *index, i;

	if (tab.index_cap == 0)
		return 0;
	change_begin();
	move_retired_keys(module, to - from);
	/* The keys moved: so do their slots, in the index the last rebase
	 * replaced if there is one. */
	if ((index = spare_index) != NULL) {
		for (i = 0; i < tab.index_cap; i++)
			RT_STORE(&index[i], 0);
		fill_slots(index, tab.index_cap);
	} else if ((index = fill_index(tab.index_cap)) == NULL) {
		move_retired_keys(module, from - to);
	}
	if (index != NULL) {
		spare_index = tab.index; /* stays mapped for readers */
		__atomic_store_n(&tab.index, index, __ATOMIC_RELEASE);
	}
	change_end();
	if (index == NULL)
		return -1;
	keys_moved();
	return 0;
}

uint32_t rt_cc_count(void)
{
	return tab.count;
}

const struct rt_cc_info *rt_cc_get(uint32_t id)
{
	return &tab.info[id];
}

/* The key of CC `id`, one a context holds, read without the lock: a
 * table grown since holds it too, and the one it replaced stays mapped. */
uintptr_t rt_cc_key(uint32_t id)
{
	const struct rt_cc_info *info = __atomic_load_n(&tab.info, __ATOMIC_ACQUIRE);

	return RT_LOAD(&info[id].key);
}
