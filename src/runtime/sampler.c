/*
 * sampler.c - the sampling clocks (cpu, wall).
 *
 * One helper thread wakes every interval, reads each live thread's clock
 * and charges what it advanced to the context the thread is in at that
 * moment.  This puts no signal into the program (no EINTR in its system
 * calls, nothing to conflict with its own SIGPROF), works while it blocks
 * signals, and avoids the kernel tick's overruns of per-thread timers
 * (DESIGN.md §5).  The hooks read no clock at all.
 */
#include <signal.h>

#include "runtime.h"

static pthread_t sampler;
static int running;
static int stop_requested; /* under wake_lock */
static uint64_t samples;
/* The helper waits on `wake` between samples, so that a stop does not wait
 * out the rest of an interval (at exit, before exec): with interval=10s,
 * a sleep would hold up every exit of the program by up to ten seconds. */
static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;

static void wake_init(void)
{
	pthread_condattr_t a;

	pthread_mutex_init(&wake_lock, NULL);
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&wake, &a);
	pthread_condattr_destroy(&a);
}

static void sample_all(void)
{
	struct rt_thread *t;
	uint64_t wall = rt_now_ns(CLOCK_MONOTONIC);

	rt_registry_lock();
	for (t = rt_live_first(); t; t = t->live_next) {
		rt_charge_sample(t, rt_config.clock == CCP_CLOCK_CPU ? rt_now_ns(t->cpu_clock) : wall);
	}
	samples++;
	rt_registry_unlock();
}

static void advance(struct timespec *ts, uint64_t ns)
{
	uint64_t sum = (uint64_t)ts->tv_nsec + ns;

	ts->tv_sec += (time_t)(sum / 1000000000u);
	ts->tv_nsec = (long)(sum % 1000000000u);
}

static void *sampler_main(void *arg)
{
	struct timespec next;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		int stop;

		advance(&next, rt_config.interval_ns);
		pthread_mutex_lock(&wake_lock);
		while (!stop_requested && pthread_cond_timedwait(&wake, &wake_lock, &next) == 0)
			;
		stop = stop_requested;
		pthread_mutex_unlock(&wake_lock);
		if (stop)
			break;
		sample_all();
		{ /* after a long stall, do not try to catch up */
			struct timespec now;

			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec > next.tv_sec + 1)
				next = now;
		}
	}
	return NULL;
}

void rt_sampler_start(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	sigset_t all, old;

	if (running || rt_config.clock == CCP_CLOCK_CYCLES)
		return;
	pthread_once(&once, wake_init);
	/* The helper must never take a signal meant for the program. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	stop_requested = 0;
	running = pthread_create(&sampler, NULL, sampler_main, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!running)
		rt_warn("cannot start the sampling thread; no time will be recorded");
}

/* Stop the helper and take a last sample, so the tail of the run counts. */
void rt_sampler_stop(void)
{
	if (!running)
		return;
	pthread_mutex_lock(&wake_lock);
	stop_requested = 1;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&wake_lock);
	pthread_join(sampler, NULL);
	running = 0;
	sample_all();
}

/* After fork the helper does not exist in the child (it may have held
 * wake_lock: it is made anew). */
void rt_sampler_after_fork(void)
{
	if (running)
		wake_init();
	running = 0;
	samples = 0;
}

uint64_t rt_sampler_samples(void)
{
	return samples;
}
