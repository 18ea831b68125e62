/*
 * clock.c - the clocks: the time-stamp counter for clock=cycles, the
 * per-thread CPU clock and the monotonic clock for the samplers, and the
 * calibration of the monitor's own cost per call.
 */
#include <string.h>

#include "runtime.h"

static uint64_t start_tick, start_ns;

uint64_t rt_now_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sampling clocks: charge what the thread's clock advanced since the last
 * sample to the context it is in now.  Caller holds the registry lock. */
void rt_charge_sample(struct rt_thread *t, uint64_t now)
{
	struct rt_ctx *c = RT_ACQUIRE(&t->cur);

	if (now > t->last_sample)
		RT_STORE(&c->time, RT_LOAD(&c->time) + (now - t->last_sample));
	t->last_sample = now;
}

/* The tick rate, measured over the whole run (at least 20 ms of it). */
uint64_t rt_ticks_per_sec(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint64_t ns, ticks;

	while ((ns = rt_now_ns(CLOCK_MONOTONIC) - start_ns) < 20000000u)
		;
	ticks = rt_tick() - start_tick;
	return (uint64_t)((double)ticks * 1e9 / (double)ns);
#else
	return 1000000000u;
#endif
}

/* Ticks (or ns) per call of `fn`: the fastest of `rounds` rounds of `n`
 * calls.  The clock is elapsed time, so a round in which the thread was
 * descheduled only reads longer: the minimum is the cost itself. */
static double per_call(void (*fn)(void), int n, int rounds)
{
	double best = 1e300;
	int r, i;

	for (r = 0; r < rounds; r++) {
		uint64_t t0 = rt_cycles ? rt_tick() : rt_now_ns(CLOCK_MONOTONIC), t1;

		for (i = 0; i < n; i++)
			fn();
		t1 = rt_cycles ? rt_tick() : rt_now_ns(CLOCK_MONOTONIC);
		if ((double)(t1 - t0) / n < best)
			best = (double)(t1 - t0) / n;
	}
	return best;
}

/*
 * What the profiler adds to one call, in the clock's ticks: an empty
 * instrumented function against the same function bare (calib.c), both
 * run on a private thread state with the transition memoised.  Under
 * clock=cycles every interval between two hooks' clock reads contains, on
 * average, half of that, which charge_ticks subtracts; the rest of the
 * interval is the program's own time.
 * Rounds are short (well under a scheduler time slice) and many, so that
 * some run undisturbed on a busy machine.  The other clocks only report
 * the estimate, from a quicker measurement.
 */
void rt_clock_calibrate(void)
{
	int n = rt_cycles ? 10000 : 2000, rounds = rt_cycles ? 30 : 5;
	struct rt_thread *saved = rt_self, *t = rt_thread_private();
	double inst, bare;

	start_tick = rt_tick();
	start_ns = rt_now_ns(CLOCK_MONOTONIC);
	if (t == NULL)
		return;
	{ /* memoise the transition, so only the fast path is measured */
		struct rt_ctx *c = rt_thread_alloc(t, sizeof *c);

		if (c == NULL)
			return;
		c->fn = (uintptr_t)rt_calib_instrumented;
		t->root->cache_to[0] = c;
		t->root->cache_fn[0] = c->fn;
	}
	rt_self = t;
	inst = per_call(rt_calib_instrumented, n, rounds);
	rt_self = saved;
	bare = per_call(rt_calib_bare, n, rounds);
	rt_unmap(t->base, t->shadow_bytes);
	inst = inst > bare ? inst - bare : 0;
	rt_config.overhead_ticks = rt_cycles ? (uint64_t)(inst / 2 + 0.5) : 0;
	/* Stored per call (two hooks), in thousandths of a tick. */
	rt_config.overhead_milliticks = (uint64_t)(inst * 1000);
}
