/*
 * sampler.c - the sampling clocks (cpu, wall).
 *
 * One helper thread wakes every interval, reads each live thread's clock
 * and charges what it advanced to the context the thread is in at that
 * moment.  This puts no signal into the program (no EINTR in its system
 * calls, nothing to conflict with its own SIGPROF), works while it blocks
 * signals, and avoids the kernel tick's overruns of per-thread timers
 * (docs/options.md, "How the clocks work").  The hooks read no clock at
 * all.  With heap=1 it also takes the heap samples (heap.c), under any
 * clock.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"

static pthread_t sampler;
/* The helper is `raw`, a thread glibc does not count (Note [A helper glibc
 * does not count] in rawthread.c), not a POSIX thread. */
static struct rt_raw_thread raw;
static int raw_helper;
static int running;
/* Only the calls sampling cannot do without: Note [Sandboxed] in
 * sandbox.c.  Set before the helper is made. */
static int sandboxed;
static int stop_requested; /* then gate_serial changes: Note [Waking the helper] */
static uint64_t samples;
static uint64_t looks; /* threads looked at, under clock=cpu: Note [Idle threads in turn] */
static uint64_t prev_wall; /* the sample before's wall time (clock=cpu): catch_up */
static void catch_up(struct rt_thread *t, uint64_t wall, uint64_t now);
static void advance(struct timespec *ts, uint64_t ns)
{
	uint64_t sum = (uint64_t)ts->tv_nsec + ns;

	ts->tv_sec += (time_t)(sum / 1000000000u);
	ts->tv_nsec = (long)(sum % 1000000000u);
}

static int before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* How often the helper looks whether it is alone: Note [Last thread] in
 * lastthread.c. */
#define ALONE_CHECK_NS 100000000u /* 100 ms */

/*
 * Note [CPU time where it ran]: under clock=cpu a sample reads each
 * thread's CPU clock.  Charging what the clock advanced since the last
 * sample to the context the thread is in at the sample put the CPU of a
 * thread that works, then blocks, on the call it blocks in: a loop of
 * 0.4 ms of work and a 1.1 ms sleep (tests/progs/bursts.c) showed 88 %
 * of its CPU in the sleep, which took 4 %.  A sample shows where CPU
 * goes only if the thread is on a CPU at that instant, as a profiling
 * timer's tick does.  So a sample counts for a thread (a hit) only if
 * its clock moves while the sampler reads it twice, and the hit charges
 * its context the wall time since the previous sample: the CPU time one
 * hit stands for, on average.  Hits fall on contexts in proportion to
 * the CPU spent in them; when the profile is written, what the thread's
 * clock says it took is shared among its contexts in proportion to what
 * the hits charged them (rt_cpu_split_begin; Note [Too few hits]), so
 * its total is exact.  A thread that took no CPU since the last sample
 * is not read twice.
 *
 * A thread not on a CPU is blocked, or runnable: waiting behind another
 * thread, or displaced by the sampler itself, which always happens on
 * one CPU and often on a busy machine, where the sampler tends to wake
 * on the CPU of the thread it samples (a thread that never showed
 * running then: two phases of 60 ms of CPU charged 117 and 0 ms).  So a
 * thread that took CPU since the last sample but is not running gets a
 * second look: the sampler sleeps for a pause (PAUSE_NS, or an eighth of
 * a shorter interval; its timer slack is 1 us, so that the pause is
 * that), which gives a runnable thread the CPU, and then counts a hit if
 * the thread is running, or ran for half the pause (on one
 * CPU it is displaced again by then), charged to the context it is in
 * then.  Only a short pause: the context then is some microseconds into
 * the thread's run, and with 100 us and a second look only for a thread
 * that took an eighth of the interval, the first part of a short burst
 * after a sleep was charged too little (helper-123: 0-18 ms of a
 * server's 24 ms `parse`).  A blocked thread does not move.
 * A thread woken together with the sampler, still in its blocking call
 * at the first look, has left it by the second.  Runnable threads that
 * did not get the CPU in the pause are missed, at random, which the
 * sharing makes up.  But a second look cannot tell a thread the sampler
 * displaced from one that had been waiting behind another program for
 * a while, and the sampler's pause lets either in: with more runnable
 * threads than CPUs, a thread is found where it waits as well as where
 * it runs.  The scheduler holds a bursty thread back where it has used
 * its share, at the end of its burst: next to a build of ccprof (two
 * compilers on two CPUs) bursts.c's `stages` had its 0.2 ms `reply`
 * (13 %) charged 25-39 %.  Second looks only on one CPU put it right
 * (11-18 %), but a steady thread next to two busy loops, charged 50/50
 * with them, came out between 38/62 and 58/42 without them: they were
 * most of its hits.  Kept, and said in docs/options.md.  No file is
 * opened: reading /proc's state took the lowest free descriptor for the
 * moment, and a thread that closes 0 and opens /dev/null got another
 * 1,076 times in 811,160 (helper-122).
 *
 * A thread's charges apart from the hits are exact and stay as they
 * are: its root's time before its first hook (Note [A thread's time
 * before its first hook] in threads.c) and the calibration's, its own.
 * The write at exit, exec or unshare takes a last sample, which is no
 * hit for the thread that writes: its instant is not at random
 * (helper-122).  The sharing is done as the profile is written, from
 * what the counts are then, and changes nothing: a write from a signal
 * handler that could not take the registry lock once left the raw hits,
 * which did not add up to the clock (helper-123).
 */
#define PAUSE_NS 50000u
#define HITS_TRUSTED 8u  /* Note [Too few hits] */
#define SEEN_TRUSTED 32u
#define BLOCKED_SIGHTS 4u /* at most one sight in four in a blocking call */

static void hit(struct rt_thread *t, uint64_t span)
{
	struct rt_ctx *c = rt_charged_ctx(t);

	t->hits++;
	t->root_first = 0; /* Note [The end of a thread] */
	if (c == NULL) /* Note [The profiler's own time] */
		t->own_hits += span;
	else
		RT_STORE(&c->time, RT_LOAD(&c->time) + span);
}

/* What the thread's clock advanced, to where the sample finds it (Note
 * [Too few hits]). */
static void seen(struct rt_thread *t, uint64_t took)
{
	struct rt_ctx *c = rt_charged_ctx(t);
	int at_root = c == t->root;

	if (c == NULL)
		t->own_seen += took;
	else
		RT_STORE(&c->seen, RT_LOAD(&c->seen) + took);
	if (at_root && !t->at_root) /* Note [The end of a thread] */
		t->root_first = took;
	else if (!at_root)
		t->root_first = 0;
	t->at_root = at_root;
}

enum look { LOOK_AGAIN, LOOK_FINAL };

/* Whether the thread took CPU since the last sample.  *again: it is to
 * have a second look. */
static int sample_cpu(struct rt_thread *t, uint64_t wall, enum look look, int *again)
{
	uint64_t now = rt_now_ns(t->cpu_clock), span;

	catch_up(t, wall, now);
	span = wall > t->last_wall ? wall - t->last_wall : 0;

	t->last_wall = wall;
	t->look_again = 0;
	if (now <= t->last_sample)
		return 0;
	seen(t, now - t->last_sample);
	t->took_samples++;
	t->last_sample = now;
	if (look == LOOK_FINAL && t == rt_self)
		return 1; /* the writer: not an instant at random */
	if (rt_now_ns(t->cpu_clock) > now) {
		hit(t, span);
	} else if (look == LOOK_AGAIN) {
		t->look_again = 1;
		t->look_span = span;
		t->look_clock = now;
		*again = 1;
	}
	return 1;
}

static uint64_t pause_ns(void)
{
	uint64_t p = rt_config.interval_ns / 8;

	return p < PAUSE_NS ? p : PAUSE_NS;
}

/* The sampler's walks over the running threads, under the registry
 * lock: along their array, each state fetched LOOK_AHEAD places before
 * its look, its first cache line (cur) and the one the walk reads first
 * (`at`: the sample's idle, seq and idle_cur; the second look's
 * look_again), so that their misses overlap (Note [Running threads in an
 * array] in threads.c); along the list where the array has not them
 * all. */
#define LOOK_AHEAD 16u

struct live_walk {
	struct rt_thread *const *all;
	uint32_t n, i;
	size_t at; /* offset of the field read first */
};

static void fetch(const struct live_walk *w, const struct rt_thread *t)
{
	__builtin_prefetch(&t->cur);
	__builtin_prefetch((const char *)t + w->at);
}

static struct rt_thread *live_first(struct live_walk *w, size_t at)
{
	uint32_t i;

	w->all = rt_live_array(&w->n);
	w->i = 0;
	w->at = at;
	if (w->all == NULL)
		return rt_live_first();
	for (i = 0; i < LOOK_AHEAD && i < w->n; i++)
		fetch(w, w->all[i]);
	return w->n ? w->all[0] : NULL;
}

static struct rt_thread *live_next(struct live_walk *w, struct rt_thread *t)
{
	if (w->all == NULL)
		return t->live_next;
	if (w->i + LOOK_AHEAD < w->n)
		fetch(w, w->all[w->i + LOOK_AHEAD]);
	return ++w->i < w->n ? w->all[w->i] : NULL;
}

/* The second look, after a pause (the registry lock not held). */
static void look_again(void)
{
	uint64_t begun = rt_now_ns(CLOCK_MONOTONIC), paused;
	struct timespec ts = {0, (long)pause_ns()};
	struct live_walk walk;
	struct rt_thread *t;

	nanosleep(&ts, NULL);
	paused = rt_now_ns(CLOCK_MONOTONIC) - begun;
	rt_registry_lock();
	for (t = live_first(&walk, offsetof(struct rt_thread, look_again)); t;
	     t = live_next(&walk, t)) {
		uint64_t now, ran;

		if (!t->look_again)
			continue;
		t->look_again = 0;
		now = rt_now_ns(t->cpu_clock);
		ran = now > t->look_clock ? now - t->look_clock : 0;
		if (ran > 0 && (rt_now_ns(t->cpu_clock) > now || ran * 2 >= paused))
			hit(t, t->look_span);
	}
	rt_registry_unlock();
}

void rt_sampler_thread_begins(struct rt_thread *t, uint64_t from)
{
	t->cpu_from = from;
	t->last_wall = rt_now_ns(CLOCK_MONOTONIC);
	t->hits = 0;
	t->took_samples = 0;
	t->blocks = RT_BLOCKS_UNKNOWN;
	t->root_first = 0;
	t->at_root = 0;
	t->own_hits = 0;
	t->own_seen = 0;
	t->look_again = 0;
	t->idle = 0;
}

/*
 * Note [The end of a thread]: a thread ends at its root, and what it took
 * since its last sample is no sight: its end is no instant at random.
 * Nor is the first sight that found it at its root on its way out (the
 * registry lock, other keys' destructors): it holds the CPU the thread
 * took in its function since the sample before, charged to the root.
 * Threads sampled tens of their milliseconds apart had most of that at
 * their roots: on one CPU with four busy loops beside them, bursts.c's
 * 64 `crowd` threads, all with trusted sights, 2-15 % of their time
 * (sampled every 4 ms: 2.7-8.1 %, now 0.1-0.3 %).  So the first sight
 * of the run at the root that the end closes is taken back (root_first),
 * and it and the end's own part are shared as the rest of the thread's
 * time is, by its hits and sights (rt_cpu_split_begin).  Unless a hit
 * in that run found the thread running at its root: then it worked
 * there (tests/progs/latefirst.c's 40 ms after its last call), and the
 * sights stay; or unless the thread ends away from its root
 * (pthread_exit, cancellation), where that run was not its way out.
 * The later sights of the run hold CPU taken at the root.
 */
/* `blocks`: how often it blocked (Note [Too few hits]); `now`: its
 * clock, read before the registry lock (Note [Calls as a thread ends] in
 * threads.c), so a sample since may have read it later. */
void rt_sampler_thread_ends(struct rt_thread *t, uint64_t blocks, uint64_t now)
{
	catch_up(t, rt_now_ns(CLOCK_MONOTONIC), now);

	t->blocks = blocks;
	if (t->root_first && RT_ACQUIRE(&t->cur) == t->root) {
		uint64_t was = RT_LOAD(&t->root->seen);

		RT_STORE(&t->root->seen, was > t->root_first ? was - t->root_first : 0);
		t->root_first = 0;
	}
	if (now > t->last_sample)
		t->last_sample = now;
}

/*
 * Note [Too few hits]: a thread that gets few hits has its time shared
 * by chance: with 100 threads busy on 2 CPUs, each on a CPU a fiftieth of
 * the time and often displaced by the sampler for longer than its second
 * look, 22 of 100 threads that lived 4 s had no hit at all (helper-123),
 * and all their time went to their roots.  So each sample also notes what
 * a thread's clock advanced since the last on the context it finds the
 * thread in ("seen", the old way of charging, exact for a thread that
 * never blocks, wrong for one that does), and a thread's time is shared
 * by a blend of the two: hits weigh hits / (hits + HITS_TRUSTED), seen
 * the rest.  A thread with hundreds of hits is shared by its hits.  What
 * was seen counts only for a thread that took CPU in SEEN_TRUSTED
 * samples or more: a pool's short threads, each with a 0.3 ms burst and
 * a 2 ms sleep, were charged 55 % of their CPU in the sleep by it (they
 * measured 6 %; helper-124).  A short thread with no hit has its time at
 * its root, as Note [Short threads] in src/model/threads.c says, and
 * one with neither hits nor trusted sights the same.  A long-lived
 * thread that blocks and is seldom found running is still charged
 * partly at its blocking call: one with 20 ms of CPU in 200 bursts, 23-34
 * % in its sleep against 12 % (helper-124; the old sampler, 91-98 %).
 *
 * Fewer sights can be trusted where the thread seldom blocked.  A sight
 * in a blocking call is the first sample after the thread blocked (the
 * next finds its clock where it was and is none), so a thread's sights
 * that can be in one are at most as many as the times it blocked, which
 * an ending thread asks the kernel (its voluntary context switches; Note
 * [Calls as a thread ends] in threads.c).  Where that is at most one in
 * BLOCKED_SIGHTS of its sights, they count however few: the rest are of
 * a thread that had been running, displaced where it ran.  On one CPU
 * with four busy loops beside them, bursts.c's 64 `crowd` threads, which
 * never block, had no hit at all and 9-66 sights each, and those with
 * fewer than SEEN_TRUSTED had all their time at their roots (in one run
 * every thread: 99.9 % of the profile).  A pool's short thread blocks
 * once or twice in one or two sights, and counts as before; so does a
 * thread alive as the profile is written, which has not asked.
 */

/* Note [Too few hits]: whether what the samples saw of the thread is to
 * count. */
static int seen_trusted(const struct rt_thread *t)
{
	if (t->took_samples >= SEEN_TRUSTED)
		return 1;
	return t->blocks != RT_BLOCKS_UNKNOWN && t->took_samples > 0 &&
	       t->blocks <= t->took_samples / BLOCKED_SIGHTS;
}

/* The part of a context's time that hits charged: all of it but, at the
 * root, the exact time before the thread's first hook. */
static uint64_t hit_part(const struct rt_ctx *c, const struct rt_ctx *root, uint64_t root_exact)
{
	uint64_t time = RT_LOAD(&c->time), exact = c == root ? root_exact : 0;

	return time > exact ? time - exact : 0;
}

/* The thread's own time, and in *s how its contexts' is shared: what its
 * clock says it took, less the exact parts (the root's before its first
 * hook, the calibration's own), in proportion to the blend of Note [Too
 * few hits], the making's share into its own time.  Reads only, so that
 * a write from a signal handler, with or without the registry lock, and
 * a write in the middle of the run (ccprof_dump), say the same. */
uint64_t rt_cpu_split_begin(const struct rt_thread *t, struct rt_cpu_split *s)
{
	uint64_t took, exact, own = RT_LOAD(&t->own_ticks), hits = t->own_hits, saw = t->own_seen;
	uint64_t own_share = 0;
	const struct rt_ctx *c;
	double w;

	took = t->last_sample > t->cpu_from ? t->last_sample - t->cpu_from : 0;
	exact = t->root_exact + own;
	took = took > exact ? took - exact : 0;
	for (c = RT_ACQUIRE(&t->all); c; c = c->all_next) {
		hits += hit_part(c, t->root, t->root_exact);
		saw += RT_LOAD(&c->seen);
	}
	if (!seen_trusted(t))
		saw = 0;
	w = hits == 0 ? 0 : saw == 0 ? 1 : (double)t->hits / (double)(t->hits + HITS_TRUSTED);
	s->per_hit = hits ? w * (double)took / (double)hits : 0;
	s->per_seen = saw ? (1 - w) * (double)took / (double)saw : 0;
	s->root = t->root;
	s->root_exact = t->root_exact;
	if (hits || saw)
		own_share = (uint64_t)(s->per_hit * (double)t->own_hits +
				       (saw ? s->per_seen * (double)t->own_seen : 0));
	own_share = own_share < took ? own_share : took;
	s->contexts = took - own_share + t->root_exact;
	return own + own_share;
}

uint64_t rt_cpu_split_time(const struct rt_cpu_split *s, const struct rt_ctx *c)
{
	uint64_t exact = c == s->root ? s->root_exact : 0;
	double hits = (double)hit_part(c, s->root, s->root_exact);

	return exact + (uint64_t)(s->per_hit * hits + s->per_seen * (double)RT_LOAD(&c->seen));
}

/* clock=wall charges the context a thread is in whatever it does there.
 * Whether the sample had anything to charge (Note [Quiet samples]). */
static int sample_one(struct rt_thread *t, uint64_t wall, enum look look, int *again)
{
	if (rt_config.clock == CCP_CLOCK_CPU)
		return sample_cpu(t, wall, look, again);
	rt_charge_sample(t, wall);
	return 1;
}

/*
 * Note [Idle threads in turn]: under clock=cpu a sample reads the clock
 * of every running thread, a system call each (about a microsecond
 * here), under the registry lock.  A server with 1,000 threads waiting
 * for work took 0.92 s of CPU in 2 s of waiting for it
 * (tests/progs/idlethreads.c; bare 0.11 s), 634,000 clock reads; now
 * 0.61 s and 59,000 (docs/performance.md, session 40).  So the threads
 * whose last look found they had taken no CPU are looked at in turn, at
 * most about IDLE_LOOKS of them a sample: each every `stride` samples,
 * at a phase of its own (its start order), so that when it is looked at
 * does not depend on what it does.  A thread that took CPU is looked at
 * every sample, and so is one whose context changed since its last look
 * (a load of `cur`, which the hooks publish atomically; `top` they store
 * plainly, and ThreadSanitizer calls a read of it from here a race): a
 * burst of calls after a wait is seen at once, not a stride later, and
 * only CPU taken in one context (a function that calls nothing, or
 * nothing instrumented, or only itself) may wait its turn.  What a
 * skipped thread took meanwhile goes where the skipped samples found it
 * (Note [Catching up a skipped thread]).  With up to IDLE_LOOKS threads
 * waiting, every thread is looked at every sample, as before.  The
 * write's last sample looks at all.
 */
#define IDLE_LOOKS 64u

static unsigned idle_stride = 1; /* a power of two, from the sample before */

/* Whether t is to be looked at by this sample.  The stride is a power of
 * two, so that a thread's turns at one stride are some of its turns at
 * the half: when the stride changes, a thread waits at most the larger. */
static int look_at(const struct rt_thread *t, enum look look)
{
	return look != LOOK_AGAIN || !t->idle || ((t->seq + samples) & (idle_stride - 1)) == 0 ||
	       rt_sampled_cur(t) != t->idle_cur;
}

/*
 * Note [Catching up a skipped thread]: at every sample that skipped t
 * (Note [Idle threads in turn]), its context was idle_cur: look_at read
 * it.  A look that found it running charged it the wall time since its
 * last look, the whole skipped span, in the context it had moved to, and
 * the next samples, at every sample again, the same span once more: with
 * 1,000 threads waiting, a thread that slept 20 ms, then ran 3 ms in
 * first() and 3 ms in second() had 75 % charged to first() (helper-145;
 * one that spun in its own function after a sleep, then called second(),
 * 30 %).  So a look at a thread skipped since its last look first charges
 * what its clock took before the sample before this one to idle_cur, as
 * those samples would have (in time and in sights), and the look stands
 * for the last interval only, as it does for a thread not skipped.  So
 * does a thread's end (rt_sampler_thread_ends): one that ended skipped
 * had its last work at its root.
 */
/* `now`: the thread's clock, as the look or the end read it. */
static void catch_up(struct rt_thread *t, uint64_t wall, uint64_t now)
{
	uint64_t took, last;
	struct rt_ctx *c = (struct rt_ctx *)t->idle_cur;

	if (!t->idle || t->last_wall >= prev_wall || c == NULL)
		return;
	took = now > t->last_sample ? now - t->last_sample : 0;
	last = wall > prev_wall ? wall - prev_wall : 0;
	if (took > last) {
		RT_STORE(&c->time, RT_LOAD(&c->time) + (took - last));
		RT_STORE(&c->seen, RT_LOAD(&c->seen) + (took - last));
		t->last_sample += took - last;
		t->root_first = 0; /* Note [The end of a thread]: a sight is not its run's first */
	}
	t->last_wall = prev_wall;
}

/* A look at t: whether it took CPU since the last. */
static int take_look(struct rt_thread *t, uint64_t wall, enum look look, int *again)
{
	int took;

	looks += rt_config.clock == CCP_CLOCK_CPU;
	took = sample_one(t, wall, look, again); /* under clock=cpu, catch_up first */
	t->idle_cur = rt_sampled_cur(t);
	t->idle = !took;
	return took;
}

/* The stride for `idle` threads waiting: IDLE_LOOKS of them a sample. */
static unsigned stride_for(unsigned idle)
{
	unsigned stride = 1;

	while (stride < (idle + IDLE_LOOKS - 1) / IDLE_LOOKS)
		stride <<= 1;
	return stride;
}

/* Whether any thread took CPU, or the sample had other work (Note
 * [Quiet samples]).  LOOK_AGAIN from the helper's loop only: it sleeps. */
static int sample_all(enum look look)
{
	struct live_walk walk;
	struct rt_thread *t;
	uint64_t wall = rt_now_ns(CLOCK_MONOTONIC);
	int busy = RT_LOAD(&rt_heap_active) != 0, again = 0;
	unsigned idle = 0;

	rt_registry_lock();
	if (!rt_cycles) {
		for (t = live_first(&walk, offsetof(struct rt_thread, idle)); t;
		     t = live_next(&walk, t)) {
			if (look_at(t, look))
				busy |= take_look(t, wall, look, &again);
			idle += t->idle;
		}
		samples++;
		prev_wall = wall;
		idle_stride = stride_for(idle);
	}
	rt_heap_sample(wall);
	rt_registry_unlock();
	if (again)
		look_again();
	return busy;
}

/*
 * Note [The last interval of a write that ends the process]: at exit the
 * sampler is stopped and takes a last sample (rt_sampler_finish), so the
 * time since its last wake-up is charged.  The write of a deadly signal
 * or of _exit (write_once in signals.c) cannot stop it: that joins a
 * thread, in a signal handler.  So it charges each live thread the time
 * since its last sample itself, under the registry lock if it can have it
 * (the sampler may hold it, mid-sample, and charges that time then), else
 * not at all: a subshell that ends by _exit ran one interval or less,
 * and without this showed no time.  Async-signal-safe: a trylock and
 * clock_gettime.
 */
void rt_sampler_last_async(void)
{
	struct rt_thread *t;
	uint64_t wall;
	int again = 0;

	if (rt_cycles || !rt_registry_trylock())
		return;
	wall = rt_now_ns(CLOCK_MONOTONIC);
	for (t = rt_live_first(); t; t = t->live_next)
		sample_one(t, wall, LOOK_FINAL, &again);
	samples++;
	rt_registry_unlock();
}

/*
 * Note [The sampler waits for the first call]: the runtime is preloaded
 * into every process of a run, and most of them (a shell, make, the
 * compilers it runs) never call instrumented code.  A helper that woke
 * every interval in each of them cost them CPU and a thousand context
 * switches a second: ninja building 201 files under `record` made 28-32
 * thousand voluntary switches against 2.7 thousand bare, and took 5.3-5.5
 * s of CPU against 4.6 (helper-115).  So the helper, still made at
 * start-up, takes no sample until the first thread state is made
 * (rt_sampler_go, from rt_thread_start) or heap samples are due: it wakes
 * only for Note [Last thread]'s check meanwhile.  It is made at start-up,
 * not at that first hook, because a hook may run inside the program's
 * own malloc (bash's), which pthread_create would call again, or in a
 * signal handler; but for a process whose code loaded at start-up calls
 * no hook (Note [A helper for code that calls the hooks] in
 * instrumented.c).  The first hook wakes it through a futex, a system
 * call, safe there; its count changes at every go and at every stop, so
 * that a wake between the helper's look and its wait is not lost.
 */
static int gate_open;        /* set once a thread state exists */
static unsigned gate_serial; /* changed at each go and stop: the futex */

static void gate_wake(void)
{
	int saved = errno;

	__atomic_add_fetch(&gate_serial, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &gate_serial, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	errno = saved;
}

/*
 * Note [Credentials by request]: a program thread that changed its
 * credentials asks a helper glibc does not count to make the same system
 * call (Note [The helper's credentials] in credentials.c): it writes the
 * call, counts cred_asked up and wakes the helper as a stop does, and
 * waits until cred_done says so, or the helper has ended (a new one takes
 * its creator's credentials, the new ones).  The helper answers between
 * samples (answer_credentials).  The program's call and its request are
 * made under cred_lock, held with signals blocked (glibc's SIGSETXID, for
 * a change in another thread, still comes in), so that the helper makes
 * them in the kernel's order: a handler's seteuid between the program's
 * and its request came first.  setuid and setgid are async-signal-safe,
 * and a handler's call waits for the one it interrupted no longer than a
 * system call of the helper's.  Where the helper cannot follow, the
 * helper is made anew by the calling thread, stopped and started (not
 * async-signal-safe, and rare): where its call failed (credentials that
 * are per thread and the helper did not get, capabilities raised with
 * capset, keepcaps), and where it may be under a filter that the caller
 * is not (Note [Sandboxed]: a restart's), which could kill it for the
 * call.
 */
static struct rt_quiet_mutex cred_lock = RT_QUIET_MUTEX_INIT;
static long cred_call[4]; /* the system call and its arguments */
static long cred_result;
static unsigned cred_asked, cred_done;

static void answer_credentials(void)
{
	unsigned asked = __atomic_load_n(&cred_asked, __ATOMIC_ACQUIRE);

	if (asked == __atomic_load_n(&cred_done, __ATOMIC_RELAXED))
		return;
	cred_result = syscall(cred_call[0], cred_call[1], cred_call[2], cred_call[3]);
	__atomic_store_n(&cred_done, asked, __ATOMIC_RELEASE);
	syscall(SYS_futex, &cred_done, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* The helper could not be made (an address-space limit too tight for its
 * stack), which start_locked says only once something was recorded; the
 * first thread state says it then. */
static int start_failed;

/* No code loaded at start-up called the runtime: the helper is made at
 * the first thread state (Note [A helper for code that calls the hooks]
 * in instrumented.c). */
static int deferred;

enum start_look {
	START_BLIND, /* counts as filtered: other threads may be opening files */
	START_LOOK,  /* reads its filters (Note [Sandboxed] in sandbox.c) */
	START_KNOWN, /* filtered unless the image had none and none came since */
};

static void start(enum start_look look);

/* The deferred helper, made before the gate opens: a thread whose first
 * hook found the gate open may fork at once, and its child, whose gate
 * is then open too, makes a helper only if none is deferred.  Not in a
 * vfork child, which shares our memory but would make the thread for
 * itself; not under a filter the program installed since start-up,
 * which the helper, made by this thread, would inherit (Note [Sandboxed]
 * in sandbox.c).  0 if the gate must stay as it is. */
static int make_deferred(void)
{
	if (!RT_LOAD(&deferred))
		return 1;
	if (getpid() != rt_pid)
		return 0;
	if (!__atomic_exchange_n(&deferred, 0, __ATOMIC_ACQ_REL))
		return 1; /* another thread's first hook makes it */
	if (rt_sandbox_added())
		rt_warn("a seccomp filter was installed before the first instrumented call: "
			"no sampling thread, no time will be recorded");
	else
		start(START_KNOWN);
	return 1;
}

void rt_sampler_go(void)
{
	if (__atomic_load_n(&gate_open, __ATOMIC_ACQUIRE) || !make_deferred())
		return;
	__atomic_store_n(&gate_open, 1, __ATOMIC_SEQ_CST);
	if (__atomic_exchange_n(&start_failed, 0, __ATOMIC_ACQ_REL) && !rt_cycles)
		rt_warn("cannot start the sampling thread; no time will be recorded");
	gate_wake();
}

static int sampling_due(void)
{
	return __atomic_load_n(&gate_open, __ATOMIC_ACQUIRE) || RT_LOAD(&rt_heap_active);
}

static uint64_t until(const struct timespec *now, const struct timespec *t)
{
	int64_t ns = (int64_t)(t->tv_sec - now->tv_sec) * 1000000000 + (t->tv_nsec - now->tv_nsec);

	return ns > 0 ? (uint64_t)ns : 0;
}

enum gate_end { GATE_OPEN, GATE_STOP, GATE_ALONE };

/* Wait for the gate (Note [The sampler waits for the first call]),
 * checking Note [Last thread] (lastthread.c) every ALONE_CHECK_NS meanwhile. */
static enum gate_end wait_for_gate(struct timespec *check)
{
	for (;;) {
		unsigned serial = __atomic_load_n(&gate_serial, __ATOMIC_SEQ_CST);
		struct timespec now, wait;
		uint64_t ns;

		answer_credentials();
		if (__atomic_load_n(&stop_requested, __ATOMIC_SEQ_CST))
			return GATE_STOP;
		if (sampling_due())
			return GATE_OPEN;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!before(&now, check)) {
			if (rt_helper_alone())
				return GATE_ALONE;
			*check = now;
			advance(check, ALONE_CHECK_NS);
		}
		ns = until(&now, check);
		wait.tv_sec = (time_t)(ns / 1000000000u);
		wait.tv_nsec = (long)(ns % 1000000000u);
		syscall(SYS_futex, &gate_serial, FUTEX_WAIT_PRIVATE, serial, &wait, NULL, 0);
	}
}

/*
 * Note [The sampler's slice]: on one CPU the helper woke on time, but the
 * scheduler (EEVDF, Linux 6.6 on) let the thread it would displace run on
 * until that thread blocked: a sample found a program that works 0.37 ms
 * and sleeps 1.3 ms working in 3 of 2,000 samples, not ~440, and Note
 * [CPU time where it ran] had no hit to go by.  A thread that asks for a
 * slice shorter than the default is let in when it wakes (Linux 6.12 on,
 * no privilege needed): with 100 us, 385-404 of 2,000.  The helper runs
 * for a few microseconds a sample, so the short slice costs nothing; a
 * kernel that does not know it ignores it.  Only under the default
 * policy, at the nice value the helper has (a lower one needs privilege).
 */
#define SAMPLER_SLICE_NS 100000u

struct rt_sched_attr { /* the kernel's struct sched_attr, first version */
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
};

static void take_short_slice(void)
{
#if defined(SYS_sched_getattr) && defined(SYS_sched_setattr)
	struct rt_sched_attr a;

	memset(&a, 0, sizeof a);
	if (syscall(SYS_sched_getattr, 0, &a, (unsigned)sizeof a, 0u) != 0 || a.policy != SCHED_OTHER)
		return;
	a.size = sizeof a;
	a.flags = 0;
	a.runtime = SAMPLER_SLICE_NS;
	syscall(SYS_sched_setattr, 0, &a, 0u);
#endif
}

/*
 * Note [Samples out of step]: samples a fixed interval apart stay in step
 * with a program whose own period is near it, and fall at one phase of
 * it.  tests/progs/bursts.c's `period` works 0.3 ms in `first` and 0.2
 * ms in `second` every 1 ms exactly (an absolute clock_nanosleep): with a
 * fixed 1 ms interval the two were charged 45/45, 8/47, 99/1, 57/35,
 * 96/4 and 99/1 % of its CPU in six runs, or nothing at all when every
 * sample fell in the sleep; it measures 60/40.  So each interval is
 * drawn uniformly from half to one and a half times `interval`: the mean
 * stays `interval`, and no period keeps its phase (six runs: 54-68 % and
 * 29-44 %).
 */
static uint64_t next_interval(void)
{
	static uint64_t state;
	uint64_t x = state ? state : (rt_now_ns(CLOCK_MONOTONIC) | 1), span = rt_config.interval_ns;

	x ^= x << 13; /* xorshift64 */
	x ^= x >> 7;
	x ^= x << 17;
	state = x;
	return span / 2 + x % (span + 1);
}

/*
 * Note [Quiet samples]: an instrumented server that waits for work woke
 * the helper every interval all the same, a thousand times a second.  A
 * sample in which no thread took CPU since the last (clock=cpu, no heap
 * samples due) is quiet; after QUIET_STEP quiet samples in a row the
 * interval doubles, up to QUIET_MAX_SHIFT doublings (4 ms at 1 ms,
 * reached after 96 ms of quiet), and the first sample that finds CPU
 * taken brings it back.  No further: the first burst after a long quiet
 * is sampled at the longest interval, and at 32 ms an 8 ms burst after
 * each 2.5 s sleep was charged 0, 41, 37, 0, 33 and 30 ms in six runs
 * (it measured 32; helper-124); a server with a short request every
 * 50-200 ms, doubling every 16 samples up to 64 times, was charged by
 * chance too (helper-123).  Nothing is lost: a quiet sample
 * charges nothing, and a hit after a long wait charges the wall time
 * since the previous sample, which is what it stands for (Note [CPU time
 * where it ran]): samples are rarer while the program is mostly idle,
 * not biased.  clock=wall charges blocked time, and keeps its interval.
 */
#define QUIET_STEP 32u
#define QUIET_MAX_SHIFT 2u

static uint64_t interval_after(unsigned quiet)
{
	unsigned shift = quiet / QUIET_STEP;

	return next_interval() << (shift < QUIET_MAX_SHIFT ? shift : QUIET_MAX_SHIFT);
}

/*
 * Note [Waking the helper]: the helper waits between samples on a futex,
 * gate_serial, until the next sample is due, so that a stop does not wait
 * out the rest of an interval (at exit, before exec): with interval=10s,
 * a sleep would hold up every exit of the program by up to ten seconds.
 * A stop sets stop_requested, then changes gate_serial and wakes it
 * (gate_wake): a helper that read the count before the change finds it
 * changed and does not sleep, and one that read it after sees the stop.
 * No pthread mutex or condition variable: glibc does not count the helper
 * (Note [A helper glibc does not count] in rawthread.c) and takes its
 * mutexes without atomics while it counts one thread.  1 if stopped.
 */
static int wait_until(const struct timespec *due)
{
	for (;;) {
		unsigned serial = __atomic_load_n(&gate_serial, __ATOMIC_SEQ_CST);
		struct timespec now;

		answer_credentials();
		if (__atomic_load_n(&stop_requested, __ATOMIC_SEQ_CST))
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!before(&now, due))
			return 0;
		syscall(SYS_futex, &gate_serial, FUTEX_WAIT_BITSET_PRIVATE, serial, due, NULL,
			FUTEX_BITSET_MATCH_ANY);
	}
}

/* 1 if it ends because it is alone (Note [Last thread]). */
static int sampler_loop(void)
{
	struct timespec next, check, now;
	unsigned quiet = 0;

	if (!sandboxed) {
		take_short_slice();
		prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL); /* Note [CPU time where it ran] */
	}
	clock_gettime(CLOCK_MONOTONIC, &check);
	advance(&check, ALONE_CHECK_NS);
	switch (wait_for_gate(&check)) {
	case GATE_OPEN:
		break;
	case GATE_ALONE:
		return 1;
	case GATE_STOP:
		return 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	advance(&next, next_interval());
	for (;;) {
		if (wait_until(before(&check, &next) ? &check : &next))
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!before(&now, &check)) {
			if (rt_helper_alone())
				return 1;
			check = now;
			advance(&check, ALONE_CHECK_NS);
		}
		if (!before(&now, &next)) {
			quiet = sample_all(LOOK_AGAIN) ? 0 : quiet + (quiet < UINT_MAX);
			advance(&next, interval_after(quiet));
			if (now.tv_sec > next.tv_sec + 1) /* after a long stall, do not catch up */
				next = now;
		}
	}
	return 0;
}

/* Note [Last thread] in lastthread.c: alone, a POSIX helper returns, and
 * glibc calls exit(0) in it as in the program's last thread.  A helper
 * glibc does not count is alone only where the program's threads ended
 * without glibc's count, and glibc would have called nothing: it writes
 * the profile and ends as that last thread would have, with no atexit
 * handler, none of the program's code on a thread glibc never set up.
 * A POSIX helper that finds threads of the program still listed, which
 * may have ended so too (by the exit system call), writes the profile
 * before it returns: glibc, counting them still, would end only the
 * helper, and the process with no profile; and where they ended as
 * glibc saw (a thread the runtime's key missed), glibc's exit(0) runs the
 * atexit handlers and writes it again. */
static void *sampler_main(void *arg)
{
	int alone;

	(void)arg;
	rt_quiet_thread(1); /* created with every signal blocked: start_locked */
	alone = sampler_loop();
	rt_quiet_thread(0); /* exit's handlers may run here next: quietlock.c */
	if (alone && raw_helper)
		rt_end_as_last_thread(0);
	if (alone && rt_threads_listed())
		rt_write_before_exit();
	return NULL;
}

static void raw_main(void *arg)
{
	sampler_main(arg);
}

/* Start and stop come from the program's threads (exit, exec, unshare):
 * one at a time, so that two of them never join the same helper.  A
 * signal handler that calls exit() on the thread holding the lock (in an
 * exec, say) must not wait for it for ever: it finds itself the holder
 * and leaves the helper alone, which exit then ends.  After the final
 * stop at exit, nothing starts the helper again (a failed exec or an
 * unshare on another thread meanwhile). */
static pthread_mutex_t control_lock = PTHREAD_MUTEX_INITIALIZER;
static long control_holder; /* its kernel thread id, or 0 */
static int finished;

static int control_acquire(void)
{
	long self = (long)syscall(SYS_gettid);

	if (RT_LOAD(&control_holder) == self)
		return 0;
	pthread_mutex_lock(&control_lock);
	RT_STORE(&control_holder, self);
	return 1;
}

static void control_release(void)
{
	RT_STORE(&control_holder, 0);
	pthread_mutex_unlock(&control_lock);
}

/* The helper, named as ours in top -H and ps -L, not as one of the
 * program's threads (it took the program's name: helper-94,
 * redis-server).  A new thread takes its creator's name, so the creator
 * wears ours for the moment of the creation: named from the helper
 * itself, the helper kept the program's name until it first ran, which a
 * loaded machine delays (robust.py sampler_thread_name, in a lane).
 * Under a seccomp filter it keeps the program's name (Note [Sandboxed]
 * in sandbox.c). */
static int create_named(pthread_t *t, void *(*routine)(void *))
{
	char name[17] = "";
	int made, renamed = !sandboxed &&
			    prctl(PR_GET_NAME, (unsigned long)name, 0UL, 0UL, 0UL) == 0 &&
			    prctl(PR_SET_NAME, (unsigned long)"ccprof-sampler", 0UL, 0UL, 0UL) == 0;

	/* Set before the thread runs, which reads it (sampler_main).  Under a
	 * seccomp filter too: making it takes the system calls
	 * pthread_create takes, with the same flags, and fewer in the thread
	 * (no rseq, no robust list). */
	__atomic_store_n(&raw_helper, rt_config.helper == RT_HELPER_CLONE, __ATOMIC_RELEASE);
	if (raw_helper && !rt_raw_thread_start(&raw, raw_main, NULL))
		__atomic_store_n(&raw_helper, 0, __ATOMIC_RELEASE);
	if (raw_helper)
		*t = raw.self;
	made = raw_helper || pthread_create(t, NULL, routine, NULL) == 0;
	if (renamed)
		prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
	return made;
}

/* look: how it learns of a seccomp filter (enum start_look). */
static void start_locked(enum start_look look)
{
	sigset_t all, old;

	/* A fork child of a process whose helper is deferred: its one thread
	 * is the leader that a start here notes (lastthread.c). */
	if (RT_LOAD(&deferred) && look == START_LOOK)
		rt_last_thread_watch();
	/* clock=cycles needs no helper but for heap samples. */
	if (running || finished || RT_LOAD(&deferred) || (rt_cycles && !RT_LOAD(&rt_heap_active)))
		return;
	/* The helper must never take a signal meant for the program. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	__atomic_store_n(&stop_requested, 0, __ATOMIC_SEQ_CST);
	sandboxed = look == START_LOOK ? rt_thread_sandboxed() :
		    look == START_KNOWN ? !rt_sandbox_none() : 1;
	if (look == START_LOOK)
		rt_last_thread_watch();
	running = create_named(&sampler, sampler_main);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* A process that ran no instrumented code has no time to lose, and
	 * a line of ours would be all it changed: unshare(1) after its
	 * unshare(CLONE_NEWPID), which leaves a process no thread to start
	 * (namespaces.c). */
	if (!running && rt_anything_recorded())
		rt_warn("cannot start the sampling thread; no time will be recorded");
	else
		__atomic_store_n(&start_failed, !running, __ATOMIC_RELEASE);
}

/* Under the control lock, pthread_join and rt_warn's write are
 * cancellation points: cancellation waits (Note [Cancellation] in
 * cancel.c), also for unshare and the exec family. */
static void start(enum start_look look)
{
	int cancel = rt_nocancel_begin();

	if (control_acquire()) {
		start_locked(look);
		control_release();
	}
	rt_nocancel_end(cancel);
}

void rt_sampler_start(void)
{
	start(START_LOOK);
}

/* Heap samples are due from the start, and clock=cycles makes no helper
 * for the rest: neither needs the look (libccprof.a has none). */
void rt_sampler_start_or_defer(void)
{
	if (rt_linked_in() || rt_cycles || RT_LOAD(&rt_heap_active) ||
	    rt_loaded_code_calls_runtime()) {
		start(START_LOOK);
		return;
	}
	/* What a start here would take: sandbox.c's answer of the
	 * constructor (later looks read anew), and this thread, the
	 * leader, for Note [Last thread]. */
	rt_thread_sandboxed();
	rt_last_thread_watch();
	__atomic_store_n(&deferred, 1, __ATOMIC_RELEASE);
}

void rt_sampler_restart(void)
{
	start(START_BLIND);
}

/* Stop the helper and take a last sample, so the tail of the run counts. */
static void stop_locked(void)
{
	if (!running)
		return;
	if (pthread_equal(pthread_self(), sampler)) { /* Note [Last thread] */
		running = 0;
		sample_all(LOOK_FINAL);
		return;
	}
	__atomic_store_n(&stop_requested, 1, __ATOMIC_SEQ_CST);
	gate_wake(); /* Note [Waking the helper] */
	if (raw_helper)
		rt_raw_thread_join(&raw);
	else
		pthread_join(sampler, NULL);
	__atomic_store_n(&raw_helper, 0, __ATOMIC_RELEASE);
	running = 0;
	sample_all(LOOK_FINAL);
}

void rt_sampler_stop(void)
{
	int cancel = rt_nocancel_begin();

	if (control_acquire()) {
		stop_locked();
		control_release();
	}
	rt_nocancel_end(cancel);
}

/* The helper makes the call (Note [Credentials by request]): 1 if it did,
 * or it ended meanwhile. */
static int helper_follows(long call, long a0, long a1, long a2)
{
	unsigned asked, done;
	struct timespec ms = {0, 1000000};

	cred_call[0] = call;
	cred_call[1] = a0;
	cred_call[2] = a1;
	cred_call[3] = a2;
	cred_result = -1;
	asked = __atomic_add_fetch(&cred_asked, 1, __ATOMIC_RELEASE);
	gate_wake();
	while ((done = __atomic_load_n(&cred_done, __ATOMIC_ACQUIRE)) != asked &&
	       __atomic_load_n(&raw.tid, __ATOMIC_ACQUIRE) != 0)
		syscall(SYS_futex, &cred_done, FUTEX_WAIT_PRIVATE, done, &ms, NULL, 0);
	if (done == asked)
		return cred_result == 0;
	__atomic_store_n(&cred_done, asked, __ATOMIC_RELEASE); /* not asked again */
	return 1;
}

/* Note [Credentials by request]: the helper made anew by this thread. */
static void renew(void)
{
	int cancel = rt_nocancel_begin();

	if (control_acquire()) {
		if (running && raw_helper) {
			stop_locked();
			start_locked(START_KNOWN);
		}
		control_release();
	}
	rt_nocancel_end(cancel);
}

/* 1 if this process has a helper glibc does not count, and then with
 * cred_lock held until rt_credentials_release. */
int rt_credentials_hold(void)
{
	if (getpid() != rt_pid || !__atomic_load_n(&raw_helper, __ATOMIC_ACQUIRE))
		return 0; /* a vfork child's call, or glibc's own helper */
	rt_quiet_lock(&cred_lock);
	return 1;
}

void rt_credentials_release(int held)
{
	int saved = errno;

	if (held)
		rt_quiet_unlock(&cred_lock);
	errno = saved;
}

/* After the program's call succeeded, with cred_lock held. */
void rt_sampler_credentials(long call, long a0, long a1, long a2)
{
	int saved = errno;

	if (sandboxed || !helper_follows(call, a0, a1, a2))
		renew();
	errno = saved;
}

/* At exit: stop for good. */
void rt_sampler_finish(void)
{
	int cancel = rt_nocancel_begin();

	if (control_acquire()) {
		finished = 1;
		stop_locked();
		control_release();
	}
	rt_nocancel_end(cancel);
}

/* After fork the helper does not exist in the child (another thread may
 * have held control_lock: it is made anew), but its memory does, if glibc
 * does not count it: freed. */
void rt_sampler_after_fork(void)
{
	pthread_mutex_init(&control_lock, NULL);
	control_holder = 0;
	finished = 0;
	if (raw_helper)
		rt_raw_thread_forget(&raw);
	__atomic_store_n(&raw_helper, 0, __ATOMIC_RELEASE);
	rt_quiet_after_fork(&cred_lock);
	cred_done = cred_asked;
	running = 0;
	samples = 0;
	looks = 0;
	prev_wall = 0;
	idle_stride = 1;
	/* The child has a thread state only if the thread that forked had
	 * one: else it waits for its first call too.  With one, it has its
	 * helper at once, deferred or not in the parent. */
	__atomic_store_n(&gate_open, rt_self != NULL, __ATOMIC_SEQ_CST);
	if (rt_self != NULL)
		__atomic_store_n(&deferred, 0, __ATOMIC_SEQ_CST);
}

uint64_t rt_sampler_samples(void)
{
	return samples;
}

uint64_t rt_sampler_looks(void)
{
	return looks;
}
