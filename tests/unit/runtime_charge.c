/*
 * runtime_charge.c - clock=cycles bookkeeping (Note [Cycles clock] in
 * src/runtime/clock.c): each hook charges the ticks since the previous
 * one, less the per-hook overhead estimate, to the current context; a
 * short interval leaves a debt for the next, fractions of a tick carry,
 * so nothing is lost or invented over a run.
 */
#include "runtime/runtime.h"
#include "unit/check.h"

#define FX(ticks) ((uint64_t)((ticks) * (1 << RT_FX)))

static struct rt_thread t;
static struct rt_ctx a, b;

static void start(double overhead)
{
	t = (struct rt_thread){0};
	a = (struct rt_ctx){0};
	b = (struct rt_ctx){0};
	t.cur = &a;
	t.overhead_fx = FX(overhead);
	t.last_tick = 1000;
	t.first_tick = t.last_tick;
}

/* What the thread took off: its span less what it charged. */
static uint64_t subtracted(void)
{
	return rt_subtracted_ticks(&t, a.time + b.time);
}

/* The clock moves by `d` ticks, then a hook charges; `next` runs after. */
static void hook(uint64_t d, struct rt_ctx *next)
{
	rt_charge_ticks(&t, t.last_tick + d);
	t.cur = next;
}

int main(void)
{
	int i;

	start(10);
	hook(110, &b);
	CHECK_EQ_U(a.time, 100, "an interval less one hook's overhead");
	hook(4, &a); /* shorter than the overhead: a debt of 6 */
	CHECK_EQ_U(b.time, 0, "a short interval charges nothing");
	hook(50, &b);
	CHECK_EQ_U(a.time, 100 + 50 - 10 - 6, "the debt is paid by the next interval");
	CHECK_EQ_U(subtracted(), 3 * 10, "subtracted: the estimate for each of 3 hooks");

	/* A fractional estimate: 1000 intervals of 20 ticks at 2.5 each. */
	start(2.5);
	for (i = 0; i < 1000; i++)
		hook(20, i % 2 ? &a : &b);
	CHECK_EQ_U(a.time + b.time, 1000 * 20 - 2500, "fractions of a tick are carried, not lost");
	CHECK_EQ_U(subtracted(), 2500, "subtracted: 1000 hooks at 2.5");

	/* No overhead: every tick is charged, whatever the intervals. */
	start(0);
	for (i = 0; i < 100; i++)
		hook((uint64_t)i * 7, &a);
	CHECK_EQ_U(a.time, 7u * 99 * 100 / 2, "no estimate: the whole time is charged");

	/* More overhead than time: nothing is charged, and the debt remains. */
	start(30);
	for (i = 0; i < 10; i++)
		hook(20, &a);
	CHECK_EQ_U(a.time, 0, "a run shorter than its estimated overhead charges nothing");
	CHECK(t.carry == -(int64_t)FX(100), "and owes the difference (%lld)", (long long)t.carry);
	CHECK_EQ_U(subtracted(), 10 * 20, "subtracted: the span, not the 300 still owed in part");

	/* The runtime's own making, measured apart (Note [The profiler's own
	 * time] in machine.c): the interval's start moves past its 500
	 * ticks, which no context is charged and the estimate's subtracted
	 * leaves out. */
	start(10);
	hook(110, &b);
	t.last_tick += 500;
	t.own_ticks += 500;
	hook(60, &a);
	CHECK_EQ_U(b.time, 50, "the making's ticks are not the context's");
	CHECK_EQ_U(subtracted(), 2 * 10, "subtracted: the estimate for 2 hooks, not the making");

	/* The clock is never read here: a tick counter far from zero works. */
	start(1);
	t.last_tick = t.first_tick = UINT64_C(1) << 62;
	hook(1001, &a);
	CHECK_EQ_U(a.time, 1000, "large tick values");
	CHECK_EQ_U(subtracted(), 1, "subtracted at large tick values");
	return check_failures != 0;
}
