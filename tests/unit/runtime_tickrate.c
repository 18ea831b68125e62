/*
 * runtime_tickrate.c - the counter's rate a profile gives (Note [The tick
 * rate] in src/runtime/clock.c), measured from the run's start to the
 * write, is checked against the rate this test measures by itself over
 * 300 ms: a run of no more than the shortest span, 1 ms, must already
 * give it to within 0.02 %, and within twice the tightest bracket more
 * where reading the clock takes a system call (microseconds, not tens of
 * nanoseconds).  clock.c is compiled in here.
 */
#include "unit/clock_stubs.h"
#include "unit/check.h"

/* The tightest bracket reference_pair saw, in ticks. */
static uint64_t tightest = UINT64_MAX;

/* The counter and the monotonic clock at one moment: the tightest of 20
 * brackets, the test's own (it is what it checks clock.c against). */
static void reference_pair(uint64_t *tick, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 20; i++) {
		uint64_t a = rt_tick(), n = rt_now_ns(CLOCK_MONOTONIC), b = rt_tick();

		if (b - a < best) {
			best = b - a;
			*tick = a + (b - a) / 2;
			*ns = n;
		}
	}
	tightest = best < tightest ? best : tightest;
}

static double reference_rate(void)
{
	struct timespec pause = { 0, 300000000 };
	uint64_t t0, n0, t1, n1;

	reference_pair(&t0, &n0);
	nanosleep(&pause, NULL);
	reference_pair(&t1, &n1);
	return (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
}

int main(void)
{
#if defined(__x86_64__) || defined(__i386__)
	double want = reference_rate(), worst = 0;
	uint64_t least = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t from = rt_now_ns(CLOCK_MONOTONIC), span;
		double got, off;

		rt_clock_start();
		got = (double)rt_ticks_per_sec();
		span = rt_now_ns(CLOCK_MONOTONIC) - from;
		off = fabs(got / want - 1);
		worst = off > worst ? off : worst;
		least = span < least ? span : least;
	}
	double bracket_ns = (double)tightest * 1e9 / want, allowed = 2e-4 + 2 * bracket_ns / 1e6;

	CHECK(worst < allowed, "a run's rate is within %.3f %% of one measured over 300 ms (worst of 5: "
			       "%.4f %%, reference %.6f GHz, a bracket %.0f ns)",
	      100 * allowed, 100 * worst, want / 1e9, bracket_ns);
	CHECK(least >= 1000000, "the rate is measured over 1 ms at least (shortest: %lu ns)",
	      (unsigned long)least);
#else
	CHECK(rt_ticks_per_sec() == 1000000000u, "without a counter, ticks are nanoseconds");
#endif
	return check_failures != 0;
}
