/*
 * threads.c - per-thread state: creation on a thread's first hook, the
 * registry that the sampler and the writer walk, and the end of a thread.
 *
 * A thread's state outlives the thread: its contexts are written at exit
 * with everyone else's ("threads that exit early keep their costs").
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"

__thread struct rt_thread *rt_self __attribute__((tls_model("initial-exec")));
__thread struct rt_thread *rt_hot __attribute__((tls_model("initial-exec")));
static __thread int starting __attribute__((tls_model("initial-exec")));
/* Note [No memory for a thread's state], Note [A disabled runtime] */
__thread int rt_stateless __attribute__((tls_model("initial-exec")));
__thread uintptr_t rt_alt_lo __attribute__((tls_model("initial-exec")));
__thread uintptr_t rt_alt_size __attribute__((tls_model("initial-exec")));

static struct rt_thread *registry; /* every thread, for the writer */
static struct rt_thread *live;     /* threads still running, for the sampler */
/* Note [Locks and signals] in quietlock.c */
static struct rt_quiet_mutex registry_lock = RT_QUIET_MUTEX_INIT;
static uint32_t started; /* threads registered: the next one's seq */
/* altstack.c, in the shared runtime only: Note [Stacks for other threads] */
void (*rt_lend_thread_altstack)(void);
void (*rt_take_back_thread_altstack)(void);
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

void rt_registry_lock(void)
{
	rt_quiet_lock(&registry_lock);
}

void rt_registry_unlock(void)
{
	rt_quiet_unlock(&registry_lock);
}

int rt_registry_trylock(void)
{
	return rt_quiet_trylock(&registry_lock);
}

int rt_registry_trylock_until(uint64_t deadline)
{
	return rt_quiet_trylock_until(&registry_lock, deadline);
}

/* In a fork child, before anything takes the lock again: the forking
 * thread's mask from before the fork's handlers took it. */
void rt_registry_mask_at_fork(sigset_t *mask)
{
	*mask = registry_lock.kept;
}

/* Threads still running (under the registry lock). */
struct rt_thread *rt_live_first(void)
{
	return live;
}

/* Whether any thread is listed as running (Note [Last thread] in
 * lastthread.c: from the helper, alone, each is one that ended by the exit
 * system call). */
int rt_threads_listed(void)
{
	int any;

	rt_registry_lock();
	any = live != NULL;
	rt_registry_unlock();
	return any;
}

/*
 * Note [Running threads in an array]: the sampler looks at every running
 * thread's state each sample (Note [Idle threads in turn] in sampler.c),
 * and each state is a mapping of its own, so each look began with a
 * cache miss and, on a VM, a TLB miss, one after another along the
 * list: with 1,000 threads waiting, 94 % of the sampler's time was the
 * first load from each state, and the process took 0.215 s of CPU in
 * 2 s against 0.071 bare (tests/progs/idlethreads.c; perf,
 * docs/performance.md, session 43).  So the running threads are also
 * kept in an array, in no order (a thread that ends takes the last one's
 * place), which the sampler walks fetching states some places ahead,
 * so that their misses overlap.  The list stays: the rest of the
 * runtime walks it, and so does the sampler if the array could not grow
 * (no memory): then it holds only some of them, and is given up.
 */
static struct rt_thread **live_array;
static uint32_t live_count, live_room;
static int live_array_lost;

/* The running threads as an array, or NULL if it does not hold them all
 * (under the registry lock). */
struct rt_thread *const *rt_live_array(uint32_t *n)
{
	*n = live_count;
	return live_array_lost ? NULL : live_array;
}

static int live_array_grow(void)
{
	uint32_t room = live_room ? live_room * 2 : 512;
	struct rt_thread **all;

	if (room < live_room || (all = rt_map(room * sizeof *all)) == NULL)
		return -1;
	if (live_array) {
		memcpy(all, live_array, live_count * sizeof *all);
		rt_unmap(live_array, live_room * sizeof *all);
	}
	live_array = all;
	live_room = room;
	return 0;
}

static void live_array_add(struct rt_thread *t)
{
	if (live_array_lost || (live_count == live_room && live_array_grow() != 0)) {
		live_array_lost = 1;
		return;
	}
	t->live_index = live_count;
	live_array[live_count++] = t;
}

static void live_array_remove(struct rt_thread *t)
{
	struct rt_thread *last;

	if (live_array_lost)
		return;
	last = live_array[--live_count];
	live_array[t->live_index] = last;
	last->live_index = t->live_index;
}

static void unlink_live(struct rt_thread *t)
{
	live_array_remove(t);
	if (t->live_prev)
		t->live_prev->live_next = t->live_next;
	else
		live = t->live_next;
	if (t->live_next)
		t->live_next->live_prev = t->live_prev;
	t->live_next = t->live_prev = NULL;
}

struct rt_thread *rt_registry_first(void)
{
	return RT_ACQUIRE(&registry); /* a signal handler's write reads without the lock */
}

/* Whether no thread has started: readable without the lock (from a
 * signal handler). */
int rt_registry_empty(void)
{
	return RT_LOAD(&registry) == NULL;
}

void rt_registry_add(struct rt_thread *t)
{
	rt_registry_lock();
	t->seq = started++;
	t->next = registry;
	t->prev = NULL;
	if (registry)
		registry->prev = t;
	RT_PUBLISH(&registry, t);
	t->live_prev = NULL;
	t->live_next = live;
	if (live)
		live->live_prev = t;
	live = t;
	live_array_add(t);
	rt_registry_unlock();
}

static void own_name(char name[16]);

/* The thread's name as the kernel knows it (pthread_setname_np): the
 * calling thread's by prctl where it may (Note [Calls as a thread ends]),
 * without a file: the write at exit asked /proc for its own, 15 us of a
 * short process (docs/performance.md, session 30). */
static void read_name(struct rt_thread *t)
{
	char path[64];
	ssize_t n;
	int fd;

	if (t == rt_self && rt_sandbox_none()) {
		own_name(t->name);
		return;
	}

	snprintf(path, sizeof path, "/proc/self/task/%llu/comm", (unsigned long long)t->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, t->name, sizeof t->name - 1);
	close(fd);
	if (n <= 0)
		return;
	t->name[n] = '\0';
	if (t->name[n - 1] == '\n')
		t->name[n - 1] = '\0';
}

/*
 * Note [Calls as a thread ends]: an ending thread asks the kernel two
 * things about itself, before it takes the registry lock: its name, for
 * the profile, and how often it blocked, for the sharing of its time
 * (Note [Too few hits] in sampler.c).  prctl(PR_GET_NAME), not
 * /proc/self/task/TID/comm: the open's walk through /proc, made under
 * the registry lock, for which the sampler and the next thread to start
 * then waited, was 87 of the 120 us a short thread cost the runtime
 * (10,000 threads one after another, a 2-CPU VM), and 50 made before the
 * lock (docs/performance.md, session 26).  getrusage(RUSAGE_THREAD) for
 * the other: no file, and the thread's own counts.  Its CPU clock, for
 * its last charge, is read before the lock as well (a sample made
 * meanwhile may have read it later, and then charged that time): with
 * 1,000 threads ending together, the system call under the lock made
 * the others wait (docs/performance.md, session 43).  A thread asks
 * its name as its state is made too, so that it has one if it cannot
 * ask as it ends.
 *
 * Only in a process under no seccomp filter (rt_sandbox_none): neither
 * call is one the runtime cannot do without, and a filter may kill at
 * either (Note [Sandboxed] in sandbox.c; robust.py's `sandboxed exec`
 * starts an image under one that kills at prctl, and the name asked as
 * the main thread's state was made killed it).  A filter the program
 * installs may reach threads it makes later, which the runtime cannot
 * tell apart, so once one is seen (seccomp.c; the shared runtime only)
 * no thread asks: the installer's name is asked just before.  A thread
 * under a filter keeps the name it had as its state was made or as the
 * filter came, or was given since through prctl(PR_SET_NAME) or
 * pthread_setname_np (seccomp.c and threadname.c see them made), or
 * none; a thread alive at the write is named from /proc then (dump.c).
 * Its time is shared as if it might have blocked at every sample.  A
 * filter installed by a raw system call, or any in a static program,
 * goes unseen (the calls stay), and so does one that another thread
 * installs for all threads (SECCOMP_FILTER_FLAG_TSYNC) between a
 * thread's look and its call.
 */
static void own_name(char name[16])
{
	int saved = errno;

	if (!rt_sandbox_none() || prctl(PR_GET_NAME, (unsigned long)name, 0UL, 0UL, 0UL) != 0)
		name[0] = '\0';
	name[15] = '\0';
	errno = saved;
}

/* The program named a thread (prctl(PR_SET_NAME) for itself, seen in
 * seccomp.c; pthread_setname_np for any, in threadname.c).  A thread
 * with no state yet (no call made) asks as its state is made.  Not in
 * a vfork child, which shares our records but is not their thread.
 * Keeps errno. */
void rt_thread_named(pthread_t handle, const char *name)
{
	struct rt_thread *t = rt_self;
	int saved = errno;

	if (rt_pid == 0 || getpid() != rt_pid) {
		errno = saved;
		return;
	}
	rt_registry_lock();
	if (t == NULL || !pthread_equal(handle, pthread_self()))
		for (t = rt_live_first(); t && !pthread_equal(t->handle, handle); t = t->live_next)
			;
	if (t != NULL && t->alive)
		snprintf(t->name, sizeof t->name, "%.15s", name);
	rt_registry_unlock();
	errno = saved;
}

/* Before the calling thread's filter comes: its name now, which it keeps
 * as it ends if not named again (Note [Calls as a thread ends]). */
void rt_thread_keep_own_name(void)
{
	char name[16];

	if (rt_self == NULL)
		return;
	own_name(name);
	if (name[0])
		rt_thread_named(pthread_self(), name);
}

/* How often the calling thread has blocked (its voluntary context
 * switches), or RT_BLOCKS_UNKNOWN: Note [Calls as a thread ends]. */
static uint64_t own_blocks(void)
{
	struct rusage ru;
	int saved = errno;
	uint64_t blocks = RT_BLOCKS_UNKNOWN;

	if (rt_sandbox_none() && getrusage(RUSAGE_THREAD, &ru) == 0 && ru.ru_nvcsw >= 0)
		blocks = (uint64_t)ru.ru_nvcsw;
	errno = saved;
	return blocks;
}

/*
 * Note [Ended threads' reserve]: a thread's shadow stack reserves 2 MiB
 * of address space a segment (touched only as deep as it goes; one
 * segment unless it went deeper than 65,535 frames: Note [Shadow stack
 * segments] in runtime.h) and its arena a chunk of 64 KiB to 1 MiB.  Kept
 * after the thread ended, they made a program of many short threads run
 * out of address space under a `ulimit -v` where it ran bare (1,400
 * ended threads: 3 GB).  They cannot go when thread_exit runs:
 * instrumented code may still run on the thread after it (another key's
 * destructor), on that shadow stack and arena.  Once the thread's task is
 * gone (tgkill says ESRCH), nothing runs there any more, so the next
 * thread to start takes its state (Note [States reborn]), with its
 * shadow stack (cleared, its segments all) and what its arena's chunk
 * has left; the ended thread's contexts stay where they are, for the
 * write.  Ended threads wait in a list, oldest first, under the registry
 * lock; a thread starting looks at up to SPARE_TRIES of them (one whose
 * task is still there, or whose tid a new thread has taken, goes to the
 * back).  Nothing is unmapped: a writer in a signal handler may read a
 * thread's state without the lock, and mapped memory never faults (an
 * ended thread's deepest entry is read from max_depth, not from its
 * shadow stack, whose segments rt_shadow_measure follows), and the
 * mappings stay as many as the most threads running at once had
 * (unmapping the tails left two per ended thread, towards the kernel's
 * limit of 65,530; segments come from chunks of up to 32: Note [Segment
 * pool] in shadow.c).  So the address space goes with the most threads
 * running at once; each ended thread keeps its state (12 KB, its 8 KB
 * thread cache given back by rt_release_lookups unless it is warm: Note
 * [States reborn]) until a new thread takes it, then its record, and
 * its arena's pages in use.
 */
#define SPARE_TRIES 4

static struct rt_thread *spare_head, *spare_tail;

/* Under the registry lock. */
static void spare_put(struct rt_thread *t)
{
	t->spare_next = NULL;
	if (spare_tail)
		spare_tail->spare_next = t;
	else
		spare_head = t;
	spare_tail = t;
}

/* Whether the task with this tid has left the process (errno kept: the
 * hooks must not change it).  rt_pid, not getpid(): in a vfork child,
 * which shares our records, getpid() names the child, in which no
 * thread of ours is found (helper-146). */
static int task_gone(uint64_t tid)
{
	int saved = errno, gone;

	gone = syscall(SYS_tgkill, (long)rt_pid, (long)tid, 0L) != 0 && errno == ESRCH;
	errno = saved;
	return gone;
}

/*
 * Note [States reborn]: a new thread took an ended one's shadow stack
 * and arena chunk, but mapped a state of its own (12 KB) and wrote its
 * three pages (Note [Pages written first] in sys.c), and the ended
 * thread gave its thread cache's two pages back to the kernel, which
 * flushes every CPU's TLB: with threads started eight at a time, 600
 * times (bench/workloads/churn.c), the map, the faults and the flush were
 * 29 % of the run's CPU time (perf), and the run took 1.69-1.77 times
 * its bare CPU time; now 1.21-1.27 (docs/performance.md, session 41).
 * Now a new thread takes the whole state of an ended thread whose task
 * is gone.  What the write needs of the ended thread, the fields before
 * the thread cache (RECORD_BYTES), is copied to room its arena kept for
 * it as the thread began (`record`, so that the copy cannot fail), and
 * the copy takes the state's place in the registry; the state, cleared
 * but for the shadow stack and arena chunk it holds, is the new
 * thread's.  Its thread cache is not cleared: every entry in it names a
 * context of the ended thread as `from`, which no context of the new
 * one is (they are made after them), so every one misses.  Up to
 * WARM_MAX ended threads are warm: they keep their thread cache's
 * pages, their first tables (a page each) and their memo of cost-centre
 * numbers, which are the process's (rt_release_lookups and
 * rt_lookups_reborn in machine.c), for the next thread to use with no
 * map, no fault, no flush and no trip to the cost-centre table; the
 * others give them back as before (a state left for later, below, is
 * warm until it is reborn).  WARM_MAX was 64, for the thread
 * cache only: 1,000 threads started together, 5 times, mapped and
 * unmapped each one's tables (the page pool holds 85 threads' worth)
 * and alternate stack, and the kernel's lock on the address space,
 * taken for each of those calls and their TLB flushes, made the run
 * take 4.0 times its bare CPU time; with 1,024 warm threads and 1,024
 * pooled alternate stacks (altstack.c), 1.56 (docs/performance.md,
 * session 42).  What ended threads keep so is at most 20 KB resident
 * each, 20 MiB in all, after a program ran that many threads at once,
 * which held that and more while they ran.  A signal handler's write
 * that cannot have the registry lock walks the registry without it
 * (gather_threads in dump.c), twice, and a state reborn meanwhile
 * would change under it: its `next` cleared, then the newest thread,
 * its counts another thread's (helper-146: walks that found 5 of 2,237
 * threads, or some twice).  So such a walk is counted while it runs,
 * and a state whose record has taken its place is not reborn while one
 * does: a walk that began before the record was published may be at
 * it.  It is left on a list, for the first rebirth that finds no walk
 * running: a program that asks for its profile by dump_signal every
 * 100 us while it starts 3,200 threads (tests/progs/sigchurn.c) leaves
 * 79-151 states so, and takes all of them again; before the list they
 * stayed for good, each 12 KB and a shadow stack (helper-147).  The
 * count is read after the record is published and the walk reads the
 * registry after it counts itself, each behind a full fence: one of the
 * two sees the other.  A fork child counts only its own thread's walks
 * (fork in a handler).
 */
#define RECORD_BYTES ((offsetof(struct rt_thread, warm) + sizeof(int) + 15) & ~(size_t)15)
_Static_assert(RECORD_BYTES <= offsetof(struct rt_thread, tcache),
	       "an ended thread's record is its fields before the thread cache");
#define WARM_MAX 1024

static unsigned warm_count; /* ended threads with `warm` set */
static unsigned unlocked_walks; /* writes walking the registry without its lock */
/* This thread's among them (nested handlers), for a fork child. */
static __thread unsigned own_unlocked_walks __attribute__((tls_model("initial-exec")));
/* States whose records have taken their place, left while a walk ran:
 * the next rebirth that finds none running takes them (spare_next). */
static struct rt_thread *left_states;

/* A write in a signal handler that could not have the registry lock
 * walks it without: meanwhile no state is reborn (Note [States
 * reborn]).  The fence pairs with no_walk_since's. */
void rt_registry_walk_unlocked(int begin)
{
	if (begin) {
		own_unlocked_walks++;
		__atomic_fetch_add(&unlocked_walks, 1, __ATOMIC_SEQ_CST);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	} else {
		__atomic_fetch_sub(&unlocked_walks, 1, __ATOMIC_RELEASE);
		own_unlocked_walks--;
	}
}

/* Whether no walk without the lock that began before the records
 * published so far is still running: after them, a full fence, then the
 * count (one of the two sides sees the other's). */
static int no_walk_since(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(&unlocked_walks, __ATOMIC_SEQ_CST) == 0;
}

/* Whether an ending thread may keep its thread cache's pages. */
static int warm_claim(void)
{
	unsigned n = RT_LOAD(&warm_count);

	do {
		if (n >= WARM_MAX)
			return 0;
	} while (!__atomic_compare_exchange_n(&warm_count, &n, n + 1, 1, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return 1;
}

/* Under the registry lock: an ended thread whose task is gone, off the
 * spare list, or NULL. */
static struct rt_thread *spare_gone(void)
{
	struct rt_thread *o;
	int i;

	for (i = 0; i < SPARE_TRIES && (o = spare_head) != NULL; i++) {
		spare_head = o->spare_next;
		if (spare_head == NULL)
			spare_tail = NULL;
		if (task_gone(o->tid))
			return o;
		spare_put(o);
	}
	return NULL;
}

/* Under the registry lock: ended thread o's record takes its place in
 * the registry, holding no shadow stack and no arena chunk. */
static void record_in_place_of(struct rt_thread *o)
{
	struct rt_thread *r = o->record;

	memcpy(r, o, RECORD_BYTES);
	/* the state and its lookups are another thread's now */
	r->memory_bytes -= sizeof *o + rt_lookups_bytes(o);
	r->transitions_tab = r->contexts_tab = NULL;
	r->cc_memo = NULL;
	r->base = NULL;
	RT_STORE(&r->shadow_bytes, 0); /* rt_shadow_measure: none */
	r->arena_next = r->arena_end = NULL;
	r->spare_next = NULL;
	r->warm = 0;
	if (r->next)
		r->next->prev = r;
	RT_PUBLISH(r->prev ? &r->prev->next : &registry, r);
}

/* Instrumented code that ran on the ended thread after its end (another
 * key's destructor) went deeper than its shadow stack's trim saw
 * (rt_shadow_trim): its record says so. */
static void record_went_deeper(struct rt_thread *record, uint64_t deepest)
{
	rt_registry_lock();
	if (deepest > record->max_depth)
		RT_STORE(&record->max_depth, deepest);
	rt_registry_unlock();
}

/* A new thread's state: an ended thread's (Note [States reborn]), or
 * NULL if none is free. */
static struct rt_thread *state_reborn(void)
{
	struct rt_thread *t, *record;
	struct rt_shadow *base;
	size_t shadow_bytes;
	unsigned char *arena_next, *arena_end;
	struct rt_table *transitions_tab, *contexts_tab;
	struct rt_cc_memo *cc_memo;
	uint64_t deepest;

	rt_registry_lock();
	if (left_states != NULL && no_walk_since()) {
		t = left_states;
		left_states = t->spare_next;
	} else if ((t = spare_gone()) != NULL) {
		record_in_place_of(t);
		/* A walk without the lock that began before the record was
		 * published may be at the state: it is left for later. */
		if (!no_walk_since()) {
			t->spare_next = left_states;
			left_states = t;
			t = NULL;
		}
	}
	/* Warm until now: a state left for later keeps what it kept. */
	if (t != NULL && t->warm)
		__atomic_fetch_sub(&warm_count, 1, __ATOMIC_RELAXED);
	rt_registry_unlock();
	if (t == NULL)
		return NULL;
	record = t->record;
	base = t->base;
	shadow_bytes = t->shadow_bytes;
	arena_next = t->arena_next;
	arena_end = t->arena_end;
	transitions_tab = t->transitions_tab;
	contexts_tab = t->contexts_tab;
	cc_memo = t->cc_memo;
	memset(t, 0, RECORD_BYTES);
	t->base = base;
	t->shadow_bytes = shadow_bytes;
	t->arena_next = arena_next;
	t->arena_end = arena_end;
	t->transitions_tab = transitions_tab;
	t->contexts_tab = contexts_tab;
	t->cc_memo = cc_memo;
	rt_lookups_reborn(t);
	rt_touch_pages(t->tcache, sizeof t->tcache); /* given back unless warm */
	deepest = rt_shadow_clear(t);
	if (deepest > RT_LOAD(&record->max_depth))
		record_went_deeper(record, deepest);
	return t;
}

/* A thread ends: take its last sample and keep its state (its contexts
 * are written at exit with everyone else's), and its name.
 * Cancellation waits (Note [Cancellation] in cancel.c). */
static void thread_exit(void *arg)
{
	struct rt_thread *t = arg;
	int cancel = rt_nocancel_begin();
	char name[16];
	uint64_t blocks = RT_BLOCKS_UNKNOWN, clock_now = 0;
	pid_t pid;

	if (rt_take_back_thread_altstack)
		rt_take_back_thread_altstack(); /* Note [Stacks for other threads] in altstack.c */

	rt_stacks_thread_exit(t);
	rt_shadow_trim(t);
	if (!t->warm)
		t->warm = warm_claim();
	rt_release_lookups(t, t->warm);
	own_name(name);
	pid = rt_pid;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (rt_config.clock == CCP_CLOCK_CPU) { /* Note [Calls as a thread ends] */
		blocks = own_blocks();
		clock_now = rt_now_ns(t->cpu_clock);
	}
	rt_registry_lock();
	/* A handler forked since the pid was read, and this is the child,
	 * its clock started again (helper-149: the parent thread's CPU time
	 * was the child's). */
	if (rt_pid != pid && rt_config.clock == CCP_CLOCK_CPU)
		clock_now = rt_now_ns(t->cpu_clock);
	if (t->alive) {
		if (rt_cycles) /* Note [The tail after the last hook] in clock.c */
			rt_charge_ticks(t, rt_tick());
		else if (rt_config.clock == CCP_CLOCK_CPU)
			rt_sampler_thread_ends(t, blocks, clock_now);
		else
			rt_charge_sample(t, rt_now_ns(CLOCK_MONOTONIC));
		if (name[0])
			memcpy(t->name, name, sizeof name);
		rt_last_thread_ends();
		RT_STORE(&t->alive, 0);
		unlink_live(t);
		spare_put(t);
	}
	rt_registry_unlock();
	rt_nocancel_end(cancel);
}

/* Instrumented code ran on the thread after its end (another key's
 * destructor, called after ours) and made transitions, in the lookups
 * thread_exit gave back or a warm thread kept: set the key again, so
 * that glibc calls thread_exit once more, in its next round of
 * destructors, which trims the shadow stack again (its deepest into
 * max_depth) and gives back what the code used.  12 KB per such thread
 * were kept for good before (manythreads late); with kept tables, a
 * destructor that called 300 functions in each of 200 threads kept
 * 13 MiB more, and one 3,000 calls deep left the profile's deepest at 2
 * (helper-148). */
void rt_thread_used_after_end(struct rt_thread *t)
{
	pthread_setspecific(exit_key, t);
}

static void make_key(void)
{
	pthread_key_create(&exit_key, thread_exit);
}

/*
 * Note [The main thread's stack]: glibc's pthread_getattr_np finds the
 * main thread's stack by reading /proc/self/maps for the mapping that
 * holds __libc_stack_end, 70 us of the 1.7 ms the runtime cost a short
 * process (objdump -h; docs/performance.md, session 30).  The process
 * has the same answer at hand.  The top glibc gives is the page above
 * __libc_stack_end.  The stack's mapping ends at the page that holds the
 * end of the name the program was executed by, which the kernel puts
 * first, at the very top, as it builds the stack (AT_EXECFN); the bottom
 * is RLIMIT_STACK below that end, as glibc takes it.  glibc also stops
 * the bottom at the end of the mapping below the stack; the kernel keeps
 * other mappings at least 128 MB below a stack whose limit is finite
 * (mm/util.c's MIN_GAP), so only a limit up to that is taken so.  Any
 * other case (an unlimited stack, whose layout puts mappings anywhere;
 * no AT_EXECFN; a top that is not below it) asks glibc.  Another thread's
 * stack glibc knows without a file.
 */
extern void *__libc_stack_end;

#define MAPPINGS_GAP ((uintptr_t)128 << 20)

static int main_stack_bounds(struct rt_thread *t)
{
	const char *execfn = (const char *)getauxval(AT_EXECFN);
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), top, end;
	struct rlimit r;

	if (execfn == NULL || page == 0 || (page & (page - 1)) || __libc_stack_end == NULL ||
	    getrlimit(RLIMIT_STACK, &r) != 0 || r.rlim_cur == RLIM_INFINITY ||
	    r.rlim_cur > MAPPINGS_GAP)
		return -1;
	top = ((uintptr_t)__libc_stack_end & ~(page - 1)) + page;
	end = ((uintptr_t)execfn + strlen(execfn) + page) & ~(page - 1); /* past its NUL */
	if (top > end || (uintptr_t)r.rlim_cur > end || end - (uintptr_t)r.rlim_cur >= top)
		return -1;
	t->stack_lo = end - (uintptr_t)r.rlim_cur;
	t->stack_hi = top;
	return 0;
}

static void stack_bounds(struct rt_thread *t)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	t->stack_lo = 0;
	t->stack_hi = UINTPTR_MAX;
	if (t->tid == (uint64_t)getpid() && main_stack_bounds(t) == 0)
		return;
	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return;
	if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
		t->stack_lo = (uintptr_t)addr;
		t->stack_hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&attr);
}

/* A thread's state; `own`: a thread's own, an ended thread's if one is
 * free, with its shadow stack and arena chunk (Note [States reborn]),
 * else the calibration's (clock.c), which touches a few of its pages
 * for a moment. */
static struct rt_thread *thread_new(int own)
{
	/* A thread's cache is read before it is written: Note [Pages
	 * written first] in sys.c. */
	struct rt_thread *t = own ? state_reborn() : NULL;

	if (t == NULL)
		t = own ? rt_map_written(sizeof *t) : rt_map(sizeof *t);
	if (t == NULL)
		return NULL;
	if (rt_shadow_new(t) != 0 || (own && (t->record = rt_thread_alloc(t, RECORD_BYTES)) == NULL) ||
	    (t->root = rt_root_context(t)) == NULL) {
		/* No other state names a reborn one's shadow stack or
		 * lookups either: its record holds none (Note [States
		 * reborn]). */
		rt_lookups_give_back(t);
		rt_shadow_give_back(t);
		rt_unmap(t, sizeof *t);
		return NULL;
	}
	t->cur = t->root;
	rt_overhead_thread_init(t);
	t->memory_bytes += sizeof *t;
	t->tid = (uint64_t)syscall(SYS_gettid);
	t->handle = pthread_self();
	return t;
}

/* A private state for calibration: not registered, never written. */
struct rt_thread *rt_thread_private(void)
{
	return thread_new(0);
}

/*
 * Note [A thread's time before its first hook]: a thread's CPU clock
 * starts at zero with the thread, so under clock=cpu a thread other than
 * the leader is charged from zero, at its root: its time before its first
 * instrumented call (glibc's start of the thread, code that is not
 * instrumented, this registration) is its root's, and the threads'
 * charged times add up to the CPU time they took.  Charged here, while
 * the thread is at its root: left to the first sample, it went to the
 * context that sample found.  Counted from the first hook instead, 60 us
 * of each short thread's 420 went uncharged on a slow machine
 * (tests/progs/shortthreads.c).  The leader's clock carries its time
 * before exec, so it is counted from now, as the wall clock is.
 */
static void first_sample(struct rt_thread *t, uint64_t own)
{
	int cpu = rt_config.clock == CCP_CLOCK_CPU;
	uint64_t now = rt_now_ns(cpu ? t->cpu_clock : CLOCK_MONOTONIC);

	if (cpu && t->tid != (uint64_t)getpid()) {
		/* `own`: the calibration's time on this thread (Note
		 * [Calibration at the first hook] in clock.c), not its root's. */
		own = own < now ? own : now;
		t->last_sample = 0;
		rt_charge_sample(t, now - own);
		RT_STORE(&t->own_ticks, t->own_ticks + own);
		rt_sampler_thread_begins(t, 0);
		t->root_exact = now - own;
	} else {
		rt_sampler_thread_begins(t, now);
		t->root_exact = 0;
	}
	t->last_sample = now;
}

/*
 * Note [The hooks' thread]: the hooks' fast paths read rt_hot, which is
 * rt_self under the sampling clocks and NULL under clock=cycles, where
 * every hook reads the clock in its slow path, and while calls go past
 * the end of the shadow stack (t->overflow), which only the slow paths
 * count.  One load and test, where rt_self, rt_cycles and t->overflow
 * took three: 6 instructions fewer in each -finstrument-functions exit
 * hook, 3 in its entry hook, 4 and 2 in the -mfentry ones.  For rt_self
 * and rt_cycles alone, 4 to 5 % less CPU time on bench's dispatch,
 * recurse and vm (bench/ab.py, 11 to 15 rounds); the overflow count
 * folded in as well changed none by more than the noise (0.98 to 1.00)
 * and took 1 % of SQLite's instructions off under -mfentry
 * (docs/performance.md, session 37).
 *
 * A NULL rt_hot sends a hook to the slow path, which looks at rt_self; a
 * non-NULL one is rt_self at every instruction here.  Between
 * rt_overflow_set's two stores rt_hot may still name a thread whose
 * count has just become 1: a signal handler's call there finds the
 * shadow stack full, so its entry takes the slow path, which counts it
 * and clears rt_hot, and its exit finds rt_hot NULL.  A handler that
 * jumps out from between the two stores leaves rt_hot stale until the
 * next rt_overflow_set, which every pop of frames gone makes
 * (rt_pop_gone, Note [Calls past the end left] in machine.c).
 */
static struct rt_thread *hot(struct rt_thread *t)
{
	return t != NULL && !rt_cycles && t->overflow == 0 ? t : NULL;
}

void rt_set_self(struct rt_thread *t)
{
	rt_hot = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rt_self = t;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rt_hot = hot(t);
}

void rt_overflow_set(struct rt_thread *t, uint32_t calls)
{
	t->overflow = calls;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (t == rt_self)
		rt_hot = hot(t);
}

static struct rt_thread *make_state(uint64_t own)
{
	struct rt_thread *t = thread_new(1);

	if (t == NULL)
		return NULL;
	stack_bounds(t);
	if (pthread_getcpuclockid(pthread_self(), &t->cpu_clock) != 0)
		t->cpu_clock = CLOCK_THREAD_CPUTIME_ID;
	first_sample(t, own); /* at its root */
	t->last_tick = rt_cycles ? rt_tick() : 0;
	t->first_tick = t->last_tick;
	t->alive = 1;
	own_name(t->name); /* Note [Calls as a thread ends]; not yet seen by others */
	pthread_once(&key_once, make_key);
	pthread_setspecific(exit_key, t);
	rt_registry_add(t);
	rt_set_self(t);
	if (t->tid != (uint64_t)rt_pid && rt_lend_thread_altstack)
		rt_lend_thread_altstack(); /* Note [Stacks for other threads] in altstack.c */
	return t;
}

/*
 * Note [No memory for a thread's state]: under an address-space limit
 * (`ulimit -v`) the mappings of a thread's state (its shadow stack, its
 * first contexts) can fail.  The next hook tried again, and so did every
 * hook after it: each call of the program paid two mmap calls, and kept
 * the first of them, 12 KB, until even that failed; and nothing said why
 * no profile came (helper-130, coreutils' csplit-heap).  So a thread that
 * had no memory for its state stays without one, its calls not recorded,
 * and the first such thread of a process says so on stderr.
 */
static void no_state(void)
{
	static int said;

	rt_stateless = 1;
	if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		rt_warn("no memory for a thread's profiling state (an address-space limit, "
			"ulimit -v?); its calls are not recorded");
}

static struct rt_thread *thread_start(void)
{
	struct rt_thread *t;
	uint64_t own;
	sigset_t mask;
	int held, saved = errno; /* a hook's: a failed mapping's ENOMEM must not show */

	if (starting || rt_stateless || rt_initialising()) /* Note [A hook while the runtime starts] */
		return NULL;
	starting = 1;
	rt_init();
	if (rt_config.disabled || rt_self) {
		rt_stateless = rt_config.disabled; /* Note [A disabled runtime] */
		starting = 0;
		return rt_self;
	}
	/* Before the state, which copies the estimate */
	held = rt_clock_calibrate_once(&own, &mask);
	t = make_state(own);
	if (t) {
		rt_dump_keep_room(); /* Note [Room kept for the write] in dump.c */
		rt_sampler_go(); /* Note [The sampler waits for the first call] */
	} else
		no_state();
	starting = 0;
	if (held) /* Note [Calibration at the first hook] in clock.c */
		pthread_sigmask(SIG_SETMASK, &mask, NULL);
	errno = saved;
	return t;
}

/*
 * Note [A disabled runtime]: with enabled=0 (or in a setuid program) no
 * thread has a state, and every hook of the program came here to find
 * that out: the cancellation state set and put back, the allocation
 * mark, pthread_once.  24 ns a call: the bench's dispatch workload
 * (clang, -finstrument-functions-after-inlining, 61 M calls) ran 2.1 s
 * against 0.88 with glibc's empty hooks and 1.15 profiled; 172
 * instructions a call beyond the empty hooks (callgrind, fib).  So a
 * thread that found the runtime disabled is stateless, as one without
 * memory for its state is, and rt_thread_start returns at its first
 * test: 1.07 s, 34 instructions.  Not in hooks.c's enter_first, where
 * the same test (0.97 s, 19 instructions) cost profiled runs 12 % (gcc's
 * vm: the hot path's code moved; docs/performance.md, session 27).
 */

/* glibc's memory for finding the stack and for the key is ours, not the
 * program's (Note [The runtime's own allocations] in alloc.c). */
static __attribute__((noinline)) struct rt_thread *thread_start_guarded(void)
{
	int cancel = rt_nocancel_begin(); /* Note [Cancellation] in cancel.c */
	struct rt_thread *t;

	rt_alloc_own_begin();
	t = thread_start();
	rt_alloc_own_end();
	rt_nocancel_end(cancel);
	return t;
}

/* First hook on this thread; every hook of a stateless one. */
struct rt_thread *rt_thread_start(void)
{
	return rt_stateless ? NULL : thread_start_guarded(); /* Note [A disabled runtime] */
}

/*
 * After fork, in the child: only the forking thread survives.  Its
 * contexts stay (its shadow stack points into them) but start from zero,
 * and its profile leaves out those the child does not use; the other
 * threads' states are dropped from the registry.
 */
void rt_registry_after_fork(struct rt_thread *survivor)
{
	struct rt_ctx *c;

	rt_quiet_after_fork(&registry_lock);
	registry = NULL;
	live = NULL;
	live_count = 0;
	live_array_lost = 0; /* it holds them all again: none, then the survivor */
	spare_head = spare_tail = NULL; /* the parent's ended threads: left alone */
	left_states = NULL;
	warm_count = 0;
	unlocked_walks = own_unlocked_walks; /* other threads' walks are not the child's */
	started = 0;
	if (survivor == NULL)
		return;
	survivor->seq = started++;
	/* Note [A forked child's profile] in forkprune.c */
	survivor->inherited = survivor->all ? survivor->all->id + 1 : 0;
	for (c = survivor->all; c; c = c->all_next) {
		c->entries = 0;
		c->recursive = 0;
		c->time = 0;
		c->seen = 0;
		c->alloc_bytes = 0;
		c->alloc_blocks = 0;
	}
	survivor->lost_calls = 0;
	survivor->own_ticks = 0;
	survivor->transitions = 0; /* the child's own slow-path misses */
	survivor->slow_finds = 0;
	survivor->first_tick = survivor->last_tick; /* its times start from zero too */
	survivor->tid = (uint64_t)syscall(SYS_gettid);
	if (pthread_getcpuclockid(pthread_self(), &survivor->cpu_clock) != 0)
		survivor->cpu_clock = CLOCK_THREAD_CPUTIME_ID;
	first_sample(survivor, 0); /* the child's own clock, from now */
	survivor->next = survivor->prev = NULL;
	survivor->live_next = survivor->live_prev = NULL;
	registry = survivor;
	live = survivor;
	live_array_add(survivor);
}

void rt_thread_refresh_name(struct rt_thread *t)
{
	read_name(t);
}

/*
 * Whether any call was recorded: a process that never ran an instrumented
 * function (a shell between `ccprof record` and the program), or a forked
 * child that only calls exec, writes no profile.
 *
 * Note [The registry in a child without fork's handlers]: a child that
 * clone or _Fork made has the registry lock as it was at that moment,
 * held perhaps by a thread the child does not have: the sampler takes it
 * at every sample.  Such a child that execs asks this (exec.c: whether
 * its image is to write OUT.<pid>), and waited for ever, every signal
 * blocked: googletest's "threadsafe" death tests (clone, then execv) hung
 * in 9 of 19 runs (helper-185; tests/progs/clonexec.c).  So a process
 * whose pid is not ours (that child, or a vfork child) takes the lock
 * only if it is free, and otherwise walks the registry without it, as a
 * signal handler's write does (rt_registry_first).
 */
int rt_anything_recorded(void)
{
	const struct rt_thread *t;
	const struct rt_ctx *c;
	int found = 0, locked = getpid() == rt_pid ? (rt_registry_lock(), 1) : rt_registry_trylock();

	for (t = rt_registry_first(); t && !found; t = t->next)
		for (c = RT_ACQUIRE(&t->all); c && !found; c = c->all_next)
			found = RT_LOAD(&c->entries) || RT_LOAD(&c->recursive);
	if (locked)
		rt_registry_unlock();
	return found;
}
