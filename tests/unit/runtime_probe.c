/*
 * runtime_probe.c - clock=cycles' estimate of a hook's cost is cut to the
 * shortest intervals the probed hooks ended (Note [The shortest interval]
 * in src/runtime/clock.c), but not by an interval shorter than a read of
 * the counter, which a counter that moves in steps shows when two reads
 * fall in one step (Note [A coarse counter]).  clock.c is compiled in
 * here, with stubs for what it calls outside the estimate.
 */
#include "unit/clock_stubs.h"
#include "unit/check.h"

#define FX(ticks) ((uint64_t)(ticks) << RT_FX)

static struct rt_thread t;

/* A thread whose calibrated estimate (1,000 ticks a hook) is far above
 * every interval below, so that the bound alone decides it. */
static void start(uint64_t tick_cost)
{
	rt_config.tick_cost = tick_cost;
	rt_config.overhead_fx = FX(1000);
	rt_config.probe_base_fx = 0;
	t = (struct rt_thread){0};
	rt_overhead_thread_init(&t);
}

/* A batch of probes: intervals[i % n], each ending an enter hook, or an
 * exit one where exits[i % n]. */
static void batch(const uint64_t *intervals, const int *exits, int n)
{
	uint64_t target = t.probes + PROBE_BATCH;

	/* A probe the thread was descheduled in (PROBE_MAX_TICKS) is not
	 * counted: go on until a batch's worth were. */
	for (int i = 0; t.probes < target && i < 100 * PROBE_BATCH; i++) {
		uint64_t now = rt_tick();

		t.last_tick = now;
		rt_probe_overhead(&t, now, intervals[i % n], exits[i % n] ? RT_AT_EXIT : RT_AT_ENTER);
	}
}

int main(void)
{
	static const uint64_t steps[] = { 52, 26, 78, 1, 26, 52 };
	static const int enters[] = { 0, 0, 0, 0, 0, 0 };
	static const uint64_t mixed[] = { 60, 80, 90, 100 };
	static const int kinds[] = { 0, 1, 0, 1 };

	/* A counter in steps of 26 ticks: the 1-tick interval is no bound. */
	start(26);
	batch(steps, enters, 6);
	CHECK_EQ_U(t.overhead_fx >> RT_FX, 26,
		   "a coarse counter: the shortest interval of a step or more bounds the estimate");
	CHECK(t.probes == PROBE_BATCH, "every probe of the batch counted");

	/* The same intervals where a read costs 1 tick: 1 is a real bound. */
	start(1);
	batch(steps, enters, 6);
	CHECK_EQ_U(t.overhead_fx >> RT_FX, 1, "a fine counter: a 1-tick interval still bounds it");

	/* By kind: the mean of the shortest ending at an enter and at an exit. */
	start(26);
	batch(mixed, kinds, 4);
	CHECK_EQ_U(t.overhead_fx >> RT_FX, 70, "the bound is the mean of the enters' 60 and the exits' 80");

	/* Only intervals shorter than a read: no bound, the estimate stands. */
	start(26);
	{
		static const uint64_t ones[] = { 1 };
		static const int one_kind[] = { 0 };

		batch(ones, one_kind, 1);
	}
	CHECK(t.overhead_fx >> RT_FX >= 1000,
	      "no interval of a read or more: the estimate is not cut (%lu ticks)",
	      (unsigned long)(t.overhead_fx >> RT_FX));
	return check_failures != 0;
}
