/*
 * clock.c - the clocks: the time-stamp counter for clock=cycles, the
 * per-thread CPU clock and the monotonic clock for the samplers, and the
 * calibration of the monitor's own cost per call.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime.h"

static uint64_t start_tick, start_ns;

/*
 * Note [The tick rate]: the profile gives the counter's rate, which turns
 * clock=cycles' ticks into seconds, measured against CLOCK_MONOTONIC from
 * the run's start to the write.  Each end is a pair of the two clocks
 * read close together: the monotonic clock between two reads of the
 * counter, whose midpoint stands for the counter at that moment, from the
 * tightest of a few tries; so an end is off by half that bracket at most
 * (two reads of the counter and one of the clock: 20-40 ns on a 2-vCPU
 * VM), and over the shortest span measured, 1 ms, the rate by less than
 * 0.01 %, where a report prints four digits of it.  A run shorter than
 * that waits for the rest, spinning, as the write may run where a
 * sandbox's filter allows no sleep (Note [Sandboxed] in sandbox.c).  The
 * span was 20 ms, one read of each clock an end: every short process
 * under clock=cycles spun until it had run 20 ms, 20 ms of CPU more for a
 * program that runs 0.5 ms (docs/performance.md, session 32).
 */
#define TICK_RATE_MIN_NS 1000000u
#define TICK_PAIR_TRIES 5

/* The counter and the monotonic clock at one moment, as closely as the
 * tightest of a few brackets gives it (Note [The tick rate]). */
static void tick_ns_pair(uint64_t *tick, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < TICK_PAIR_TRIES; i++) {
		uint64_t before = rt_tick(), now = rt_now_ns(CLOCK_MONOTONIC), after = rt_tick();

		if (i == 0 || after - before < best) { /* the first, whatever it is */
			best = after - before;
			*tick = before + (after - before) / 2;
			*ns = now;
		}
	}
}

/* At start-up: the run's start, which the tick rate is measured from
 * (rt_ticks_per_sec) whether or not anything is ever recorded. */
void rt_clock_start(void)
{
	tick_ns_pair(&start_tick, &start_ns);
}

uint64_t rt_now_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* clock=wall, and the charges made apart (a thread's time before its
 * first hook): charge what the thread's clock advanced since the last
 * sample to the context it is in now, or, if the runtime is making a
 * transition there, to its own time (Note [The profiler's own time] in
 * machine.c).  clock=cpu samples otherwise: Note [CPU time where it ran]
 * in sampler.c.  Caller holds the registry lock. */
void rt_charge_sample(struct rt_thread *t, uint64_t now)
{
	if (now > t->last_sample)
		rt_charge_current(t, now - t->last_sample);
	t->last_sample = now;
}

/* Charge ns to the context the thread is in now, or to the runtime's own
 * time if it is making a transition there.  Under the registry lock. */
void rt_charge_current(struct rt_thread *t, uint64_t ns)
{
	struct rt_ctx *c = rt_charged_ctx(t);
	uint64_t *to = c == NULL ? &t->own_ticks : &c->time;

	RT_STORE(to, RT_LOAD(to) + ns);
}

/*
 * Note [The tail after the last hook]: under clock=cycles the hooks
 * charge each interval when it ends, at the next hook, so a thread's
 * time after its last hook was charged nowhere: a pool's loop at the end
 * of its uninstrumented start routine, main's thread in the program's
 * atexit handlers (tests/progs/latefirst.c: 0.5 s of a thread vanished).
 * A thread's end charges it (thread_exit), and so does the write at exit
 * for the thread that writes, both on the thread's own state, which only
 * its hooks change.  Not another thread's, still running at exit: its
 * hooks may be mid-charge; nor a thread's time before its first hook,
 * which no tick marks (clock=cpu charges both: Note [A thread's time
 * before its first hook] in threads.c).
 */

/* The tick rate, measured over the whole run, at least 1 ms of it (Note
 * [The tick rate]).  Measured afresh where the monotonic clock or the
 * counter stands before the start's: a fork child in a time namespace
 * its parent made after its start (unshare(CLONE_NEWTIME)) reads the
 * clock at another offset, which put the rate at 0.  Without a clock at
 * all, ticks count as nanoseconds. */
uint64_t rt_ticks_per_sec(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint64_t tick, ns, from_tick = start_tick, from_ns = start_ns;
	long spins = 0;

	tick_ns_pair(&tick, &ns);
	if (ns <= from_ns || tick <= from_tick) {
		from_tick = tick;
		from_ns = ns;
	}
	while (rt_now_ns(CLOCK_MONOTONIC) - from_ns < TICK_RATE_MIN_NS && ++spins < 10000000L)
		;
	tick_ns_pair(&tick, &ns);
	if (ns <= from_ns || tick <= from_tick)
		return 1000000000u;
	return (uint64_t)((double)(tick - from_tick) * 1e9 / (double)(ns - from_ns));
#else
	return 1000000000u;
#endif
}

/*
 * Note [Cycles clock]
 * ~~~~~~~~~~~~~~~~~~~
 * Under clock=cycles each hook reads the time-stamp counter once, first
 * thing, and charges the interval since the previous hook's read to the
 * context that ran it (rt_charge_ticks).  Every such interval holds, besides
 * the program's own time, one hook's worth of monitor: the rest of the
 * previous hook after its read, the instrumentation around this hook's
 * call (argument set-up, the call through the PLT, registers saved) and
 * this hook's start.  A second read per hook would measure the first part
 * but double the cost, so the hooks subtract an estimate instead:
 *
 *   overhead per hook = F + (P - Pf)
 *
 * F is what the calibration fixture (calib.c) measures: an empty
 * instrumented function against the same function bare, half of the
 * difference per hook.  But a real program's hooks run colder than the
 * fixture's (contexts and caches out of L1, branches mispredicted), so
 * every 61st hook of each thread also reads the counter at its end: P,
 * the mean time a hook spends after its first read, measured in the
 * program itself; Pf is the same probe in the fixture.  Each thread
 * keeps its own P, a running mean over batches of 64 probes.  A probe
 * longer than PROBE_MAX_TICKS is an interruption, not the hook's cost;
 * the probe's own second read is charged to no one.
 *
 * The estimate never exceeds the shortest interval a batch's probed hooks
 * ended (Note [The shortest interval]).
 *
 * Note [The shortest interval]: an interval holds one hook's worth of
 * monitor and the program's work in between, so what a hook costs is at
 * most the shortest interval there is.  F + (P - Pf) broke that bound on
 * a 2-vCPU VM whose counter read costs 11 ns: 45-68 ns per call against
 * the 23-36 ns per call that clock=cycles really added to the bare run,
 * and every interval was owed to the estimate: clock=cycles charged
 * nothing at all on 11 of make bench's 14 rows (docs/performance.md,
 * session 28).  The session-4 runtime did the same there, so the machine
 * moved, not the code.  So each probed hook also notes the interval its
 * read ended, and a batch's estimate is cut to the mean of the shortest
 * of those ending at an enter hook and the shortest ending at an exit
 * (a sample of every 61st interval, 64 a batch).  By kind, because the
 * two hold different parts of the hooks: the shortest of all, an
 * enter's, cut the estimate to 26 ns a call and charged the bench's
 * dispatch +45 %.  Where calls do almost nothing, the shortest intervals
 * are nearly all monitor, and the bound is about right; where calls do
 * real work, the shortest still hold some, and the bound takes it too.
 * Either way what is charged is no longer nothing: it is still no closer
 * than the last paragraph of "clock=cycles: how close" in
 * docs/performance.md allows.
 *
 * Note [A coarse counter]: a counter need not count every tick.  On a
 * 2-vCPU VM whose counter runs at 2.6 GHz it moves in steps of 26 ticks
 * (10 ns), and two reads within one step differ by 1: of a million pairs
 * of back-to-back reads, 94 % differed by 26, 3 % by 52 and 2.6 % by 1.
 * An interval that reads 1 tick ended within the step it began in; it
 * says nothing about what a hook costs, yet as the shortest interval it
 * cut the estimate to one tick a hook: tests/progs/hookcost.c's
 * estimate read 0.8 ns a call in 5 runs of 8 instead of 10-20, and
 * report --hook-cost marked none of its helpers (session 31).  No
 * interval between two hooks can be shorter than a read of the counter,
 * which ends it, so one below tick_cost (the median of back-to-back
 * reads: a read's cost, or the counter's step) is left out of the
 * shortest.  On a counter that counts every tick no interval is that
 * short, and nothing changes.
 */
#define PROBE_EVERY 61 /* prime: no lockstep with a loop's pattern of calls */
#define PROBE_BATCH 64
#define PROBE_MAX_TICKS 20000u

void rt_overhead_thread_init(struct rt_thread *t)
{
	t->overhead_fx = rt_config.overhead_fx;
	t->probe_avg_fx = rt_config.probe_base_fx;
	t->probe_every = PROBE_EVERY;
	t->probe_left = PROBE_EVERY;
	t->probe_shortest[RT_AT_ENTER] = t->probe_shortest[RT_AT_EXIT] = UINT64_MAX;
}

/* The bound of Note [The shortest interval], RT_FX units, or -1: the mean
 * of the shortest intervals ending at each kind of hook (an enter's and
 * an exit's hold different halves of the hooks). */
static int64_t shortest_bound(const struct rt_thread *t)
{
	uint64_t in = t->probe_shortest[RT_AT_ENTER], out = t->probe_shortest[RT_AT_EXIT];
	const uint64_t none = (uint64_t)1 << 40;

	if (in >= none && out >= none)
		return -1;
	if (in >= none || out >= none)
		return (int64_t)((in < out ? in : out) << RT_FX);
	return (int64_t)(((in + out) << RT_FX) / 2);
}

/* The end of a probed hook, which read `start` first thing, ending an
 * interval of `interval` ticks.  A slow path that moved the interval's
 * start past its making (Note [The profiler's own time] in machine.c) is
 * no part of a hook's cost: measured from there. */
void rt_probe_overhead(struct rt_thread *t, uint64_t start, uint64_t interval,
		       enum rt_hook_kind kind)
{
	uint64_t from = t->last_tick > start ? t->last_tick : start;
	uint64_t d = rt_tick() - from;
	int64_t est, shortest;

	t->probe_left = t->probe_every;
	if (interval >= rt_config.tick_cost && interval < t->probe_shortest[kind])
		t->probe_shortest[kind] = interval; /* Note [A coarse counter] */
	/* The probe's own read lands in the next interval: owe it there. */
	t->carry -= (int64_t)(rt_config.tick_cost << RT_FX);
	if (d > PROBE_MAX_TICKS)
		return;
	d = d > rt_config.tick_cost ? d - rt_config.tick_cost : 0;
	t->probe_sum += d;
	t->probe_total += d;
	RT_STORE(&t->probes, t->probes + 1); /* read by the profile writer */
	if (++t->probe_n < PROBE_BATCH)
		return;
	t->probe_avg_fx = (3 * t->probe_avg_fx + (t->probe_sum << RT_FX) / PROBE_BATCH) / 4;
	est = (int64_t)rt_config.overhead_fx + (int64_t)t->probe_avg_fx - (int64_t)rt_config.probe_base_fx;
	shortest = shortest_bound(t);
	est = shortest >= 0 && est > shortest ? shortest : est; /* Note [The shortest interval] */
	RT_STORE(&t->overhead_fx, est > 0 ? (uint64_t)est : 0);
	t->probe_sum = 0;
	t->probe_n = 0;
	t->probe_shortest[RT_AT_ENTER] = t->probe_shortest[RT_AT_EXIT] = UINT64_MAX;
}

/* The estimate per call (two hooks) the profile records, in thousandths of
 * a tick: the threads' own, weighted by how much they ran. */
uint64_t rt_overhead_milliticks(void)
{
	double sum = 0, weight = 0;
	struct rt_thread *t;

	if (!rt_cycles)
		return rt_config.overhead_milliticks;
	for (t = rt_registry_first(); t; t = t->next) {
		double w = (double)(RT_LOAD(&t->probes) + 1);

		sum += w * (double)RT_LOAD(&t->overhead_fx);
		weight += w;
	}
	if (weight == 0)
		return rt_config.overhead_milliticks;
	return (uint64_t)(sum / weight * 2000.0 / (1 << RT_FX));
}

/* What two back-to-back reads of the counter differ by: the median of
 * many (a read's own cost, which a probe's interval includes once). */
static uint64_t tick_cost(void)
{
	uint32_t hist[256] = {0}, i, seen = 0;
	int n = 4001, k;

	for (k = 0; k < n; k++) {
		uint64_t a = rt_tick(), b = rt_tick();

		hist[b - a < 255 ? b - a : 255]++;
	}
	for (i = 0; i < 256; i++)
		if ((seen += hist[i]) > (uint32_t)n / 2)
			return i;
	return 0;
}

#define MAX_ROUNDS 64

/* The median of v[0..n-1] (n <= MAX_ROUNDS; sorts v). */
static double median(double *v, int n)
{
	int i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double x = v[j];

			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	return n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
}

/* Ticks (or ns) per call of `fn` over `rounds` rounds of `n` calls: for
 * clock=cycles, whose hooks subtract it, the median round.  Not the
 * fastest: on this kind of machine the same loop settles into a few
 * distinct speeds (up to 20 % apart, from one round to the next, in one
 * process), and a program's hooks run at their mix, not at the best of
 * them.  The other clocks only report the estimate, from a few rounds:
 * the fastest is the cost itself, as a round in which the thread was
 * descheduled only reads longer. */
static double per_call(void (*fn)(void), int n, int rounds)
{
	double v[MAX_ROUNDS];
	int r, i;

	for (r = 0; r < rounds && r < MAX_ROUNDS; r++) {
		uint64_t t0 = rt_cycles ? rt_tick() : rt_now_ns(CLOCK_MONOTONIC), t1;

		for (i = 0; i < n; i++)
			fn();
		t1 = rt_cycles ? rt_tick() : rt_now_ns(CLOCK_MONOTONIC);
		v[r] = (double)(t1 - t0) / n;
	}
	if (!rt_cycles) {
		double best = 0;

		for (i = 0; i < r; i++)
			best = i == 0 || v[i] < best ? v[i] : best;
		return best;
	}
	return median(v, r);
}

/* The fixture's probed in-hook time per hook (Note [Cycles clock]), the
 * median of the rounds' means, as in per_call. */
static double probed_per_hook(struct rt_thread *t, int n, int rounds)
{
	double v[MAX_ROUNDS];
	int r, i, k = 0;

	t->probe_every = 1;
	for (r = 0; r < rounds && r < MAX_ROUNDS; r++) {
		uint64_t total = t->probe_total, probes = t->probes;

		t->probe_left = 1;
		for (i = 0; i < n; i++)
			rt_calib_instrumented();
		if (t->probes > probes)
			v[k++] = (double)(t->probe_total - total) / (double)(t->probes - probes);
	}
	return median(v, k);
}

/*
 * Note [A quick estimate]: under the sampling clocks the estimate is
 * only reported (`ccprof info`, report --hook-cost), and a short
 * process paid for it in full: 10,000 calls of the fixture each way, 150
 * of the 1,700 us the runtime cost `objdump -h` (docs/performance.md,
 * session 30).  3 rounds of 500 give the same estimate, the fastest
 * round being the cost: 40 runs of that objdump each way, median 4.4 ns
 * a call against 4.2, the middle half 3.9-5.0 against 3.6-4.7, in 20 us
 * of calls; the state the fixture runs on (threads.c) is no longer
 * written through, which took 27 us more.
 */
#define CALIB_CALLS 500
#define CALIB_ROUNDS 3

/*
 * Note [How long clock=cycles calibrates]: 41 rounds of 5,000 calls for
 * each of its three measurements took 15 ms of every process that ran
 * instrumented code (hello world: 18 ms under clock=cycles against 0.5
 * bare, once the tick rate no longer spun for 20 ms: Note [The tick
 * rate]).  21 rounds of 500 take 2 ms, and estimate as well: over 24
 * runs each, the estimate a process made fell in the same two groups
 * (43.6 and 52-68 ticks a call on a 2-vCPU VM; which one a process gets
 * does not depend on the rounds), and within the lower one 500 x 21
 * gave 43.4-43.6 against 43.6-44.4.  On dispatch, the charged total
 * spread the same with either (0.41-0.82 s and 0.44-0.70 s, 6 runs each,
 * bare 0.43 s): the run's probes (Note [Cycles clock]), not the
 * fixture's rounds, decide how close it comes.
 */
#define CALIB_CYCLES_CALLS 500
#define CALIB_CYCLES_ROUNDS 21

/*
 * What the profiler adds to one call, in the clock's ticks: an empty
 * instrumented function against the same function bare (calib.c), both
 * run on a private thread state with the transition memoised.  Under
 * clock=cycles this is F of Note [Cycles clock], and the fixture's probe
 * Pf is measured too.
 * Rounds are short (well under a scheduler time slice) and many, so that
 * some run undisturbed on a busy machine.  The other clocks only report
 * the estimate, from a quicker measurement.
 */
static void calibrate(void)
{
	int n = rt_cycles ? CALIB_CYCLES_CALLS : CALIB_CALLS;
	int rounds = rt_cycles ? CALIB_CYCLES_ROUNDS : CALIB_ROUNDS;
	struct rt_thread *saved = rt_self, *t = rt_thread_private();
	double inst, bare, probed = 0;

	if (t == NULL)
		return;
	{ /* memoise the transition, so only the fast path is measured */
		struct rt_ctx *c = rt_context_alloc(t, (uintptr_t)rt_calib_instrumented);

		if (c == NULL)
			return;
		rt_pair_put(&t->root->cache[0], c);
	}
	if (rt_cycles)
		rt_config.tick_cost = tick_cost();
	t->probe_left = UINT32_MAX; /* no probes while timing */
	rt_set_self(t);
	inst = per_call(rt_calib_instrumented, n, rounds);
	if (rt_cycles)
		probed = probed_per_hook(t, n, rounds);
	rt_set_self(saved);
	bare = per_call(rt_calib_bare, n, rounds);
	rt_shadow_give_back(t);
	inst = inst > bare ? inst - bare : 0;
	if (rt_cycles) {
		rt_config.overhead_fx = (uint64_t)(inst / 2 * (1 << RT_FX) + 0.5);
		rt_config.probe_base_fx = (uint64_t)(probed * (1 << RT_FX) + 0.5);
	}
	/* Stored per call (two hooks), in thousandths of a tick. */
	rt_config.overhead_milliticks = (uint64_t)(inst * 1000);
}

/*
 * Note [Calibration at the first hook]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * `ccprof record` preloads the runtime into every process of the run: the
 * shell, make, the compilers, /bin/true, which run no instrumented code.
 * Calibrated at start-up, each paid for it: 14 ms a process under
 * clock=cycles (5000 calls x 41 rounds x 3 measurements), 0.7 ms under
 * the others; /bin/true took 14.9 ms instead of 0.84, a build under make
 * 0.80 s instead of 0.52.  The estimate is needed only where a thread's
 * state is made (it copies it: rt_overhead_thread_init), so the first
 * thread state of the process calibrates, in rt_thread_start, once per
 * process; what the run's duration needs stays at start-up
 * (rt_clock_start).  A process that never runs instrumented code
 * records nothing and writes no profile; one written before any call
 * (ccprof_dump) records 0, which `ccprof info` shows as not measured.
 *
 * Once: calib_owner is 0, then the tid of the thread calibrating, then
 * CALIB_DONE.  Another thread's first hook meanwhile waits for it, in
 * 1 ms sleeps: a thread that went on without the estimate would
 * subtract nothing (clock=cycles) until its probes caught up, thousands
 * of hooks later.  The wait cannot deadlock: the calibrating thread takes
 * no lock and runs none of the program's code, only the fixture's hooks.
 * A calibrating thread that is gone left its process by a fork (or
 * died): a forked child sees its parent's tid, not one of its own
 * threads, and calibrates for itself.  The waiting thread's hooks, and
 * those of a signal handler on it, record nothing meanwhile (`starting`
 * in threads.c), as during any thread's start.
 *
 * The calibration switches rt_self to a private state (calibrate), from
 * inside a hook's slow path: a signal handler that ran instrumented code
 * then would record on that state, lost, and upset the timing.  So
 * signals are held (up to ~2 ms late), but for the synchronous ones,
 * which a fault in the runtime itself would raise and which the kernel
 * would not leave blocked anyway; held until the thread's state is made
 * (rt_thread_start puts them back), so that a handler that came
 * meanwhile records its calls, which `starting` would have dropped.  A
 * first hook inside a signal handler calibrates there: the calibration
 * calls what a thread's start calls (mmap, the clocks), nothing more.
 *
 * The CPU time the calibrating thread took is the profiler's own time:
 * under clock=cpu a thread other than the leader is charged from its
 * start (Note [A thread's time before its first hook] in threads.c), and
 * this is not its root's.  Under the other clocks, and for the leader,
 * the thread's time counts from after the calibration, as before.
 */
#define CALIB_DONE (-1L)

static long calib_owner;

/* Whether the thread `tid` is not (any longer) one of this process's:
 * errno kept, as the hooks must keep it. */
static int owner_gone(long tid, long self)
{
	int saved = errno, gone;

	if (tid == self)
		return 1;
	gone = syscall(SYS_tgkill, (long)getpid(), tid, 0L) != 0 && errno == ESRCH;
	errno = saved;
	return gone;
}

/* Calibrate here, signals held (the caller gives them back). */
static uint64_t calibrate_here(sigset_t *mask)
{
	uint64_t cpu = rt_now_ns(CLOCK_THREAD_CPUTIME_ID), after;
	sigset_t held;

	sigfillset(&held);
	sigdelset(&held, SIGSEGV);
	sigdelset(&held, SIGBUS);
	sigdelset(&held, SIGILL);
	sigdelset(&held, SIGFPE);
	sigdelset(&held, SIGTRAP);
	pthread_sigmask(SIG_BLOCK, &held, mask);
	calibrate();
	__atomic_store_n(&calib_owner, CALIB_DONE, __ATOMIC_RELEASE);
	after = rt_now_ns(CLOCK_THREAD_CPUTIME_ID);
	return after > cpu ? after - cpu : 0;
}

/* Whether this thread calibrated: then *own is the CPU time it took and
 * the signals are held, *mask the mask to put back once the thread's
 * state is made (a handler that came meanwhile then records its calls). */
int rt_clock_calibrate_once(uint64_t *own, sigset_t *mask)
{
	struct timespec ms = {0, 1000000};
	long seen = __atomic_load_n(&calib_owner, __ATOMIC_ACQUIRE), self;
	int saved = errno, here = 0;

	*own = 0;
	if (seen == CALIB_DONE)
		return 0;
	self = (long)syscall(SYS_gettid);
	while (seen != CALIB_DONE) {
		if (seen == 0 || owner_gone(seen, self)) {
			if (__atomic_compare_exchange_n(&calib_owner, &seen, self, 0,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				*own = calibrate_here(mask);
				here = 1;
				break;
			}
			continue; /* another thread took it: `seen` says which */
		}
		nanosleep(&ms, NULL);
		seen = __atomic_load_n(&calib_owner, __ATOMIC_ACQUIRE);
	}
	errno = saved;
	return here;
}
