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

/*
 * The monitor's cost per hook, in the clock's ticks: run the real hooks on
 * a private thread state around an empty "function" and take the fastest
 * of several batches.  Under clock=cycles each charged interval contains
 * the part of one hook after its clock read and the part of the next one
 * before it, i.e. one hook's cost, which charge_ticks then subtracts.
 */
void rt_clock_calibrate(void)
{
	enum { BATCH = 2000, ROUNDS = 7 };
	struct rt_thread *saved = rt_self, *t = rt_thread_private();
	uint64_t best = UINT64_MAX;
	int r, i;

	start_tick = rt_tick();
	start_ns = rt_now_ns(CLOCK_MONOTONIC);
	if (t == NULL)
		return;
	{ /* memoise the transition, so only the fast path is measured */
		struct rt_ctx *c = rt_thread_alloc(t, sizeof *c);

		if (c == NULL)
			return;
		c->fn = (uintptr_t)rt_clock_calibrate;
		t->root->cache_to[0] = c;
		t->root->cache_fn[0] = c->fn;
	}
	rt_self = t;
	for (r = 0; r < ROUNDS; r++) {
		uint64_t t0 = rt_cycles ? rt_tick() : rt_now_ns(CLOCK_MONOTONIC), t1;

		for (i = 0; i < BATCH; i++) {
			__cyg_profile_func_enter((void *)rt_clock_calibrate, NULL);
			__cyg_profile_func_exit((void *)rt_clock_calibrate, NULL);
		}
		t1 = rt_cycles ? rt_tick() : rt_now_ns(CLOCK_MONOTONIC);
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	rt_self = saved;
	rt_unmap(t->base, t->shadow_bytes);
	rt_config.overhead_ticks = rt_cycles ? best / (2 * BATCH) : 0;
	/* Stored per call (two hooks), in thousandths of a tick. */
	rt_config.overhead_milliticks = best * 1000 / BATCH;
}
