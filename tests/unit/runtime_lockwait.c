/*
 * runtime_lockwait.c - rt_quiet_trylock_until (src/runtime/quietlock.c,
 * compiled in), with which a write from a signal handler or _exit waits
 * for the heap's locks (Note in heap.c above ASYNC_LOCK_WAIT_NS): it gets
 * a lock that another thread lets go before the deadline, gives up on
 * one that is not, tries only once with no deadline, and keeps to the
 * clock while signals cut its sleeps short (the count of tries it had
 * before ended a 50 ms wait early).  Nothing is timed from above: a late
 * return on a loaded machine passes.
 */
#include "runtime/quietlock.c"

#include <pthread.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "unit/check.h"

uint64_t rt_now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct rt_quiet_mutex lock = RT_QUIET_MUTEX_INIT;
static volatile int release_now;
static volatile sig_atomic_t alarms;

/* Holds the lock until main says so. */
static void *holder(void *arg)
{
	struct timespec tick = {0, 1000000};

	(void)arg;
	rt_quiet_lock(&lock);
	while (!__atomic_load_n(&release_now, __ATOMIC_ACQUIRE))
		nanosleep(&tick, NULL);
	rt_quiet_unlock(&lock);
	return NULL;
}

/* Lets the holder go after ms milliseconds. */
static void *releaser(void *arg)
{
	struct timespec after = {0, (long)(intptr_t)arg * 1000000L};

	nanosleep(&after, NULL);
	__atomic_store_n(&release_now, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static uint64_t now(void)
{
	return rt_now_ns(CLOCK_MONOTONIC);
}

static pthread_t start_holder(void)
{
	pthread_t t;
	struct timespec tick = {0, 1000000};

	release_now = 0;
	pthread_create(&t, NULL, holder, NULL);
	while (__atomic_load_n(&lock.word, __ATOMIC_ACQUIRE) == 0)
		nanosleep(&tick, NULL);
	return t;
}

static void stop_holder(pthread_t t)
{
	__atomic_store_n(&release_now, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
}

int main(void)
{
	pthread_t h = start_holder(), r;
	uint64_t t0;
	int got;

	/* One try: held, so not had. */
	t0 = now();
	got = rt_quiet_trylock_until(&lock, 0);
	CHECK(!got, "deadline 0: one try, the held lock not had (%.1f ms)", (now() - t0) / 1e6);

	/* Let go 20 ms on, the deadline 10 s on: had once let go. */
	pthread_create(&r, NULL, releaser, (void *)(intptr_t)20);
	t0 = now();
	got = rt_quiet_trylock_until(&lock, t0 + 10000000000ull);
	CHECK(got && now() - t0 >= 15000000, "a lock let go before the deadline is had (after %.1f ms)",
	      (now() - t0) / 1e6);
	if (got)
		rt_quiet_unlock(&lock);
	pthread_join(r, NULL);
	pthread_join(h, NULL);

	/* Never let go: given up at the deadline, not before, while a
	 * timer's signal every 0.1 ms cuts every sleep short. */
	struct sigaction sa;
	struct itimerval every = {{0, 100}, {0, 100}}, off = {{0, 0}, {0, 0}};

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	h = start_holder();
	setitimer(ITIMER_REAL, &every, NULL);
	t0 = now();
	got = rt_quiet_trylock_until(&lock, t0 + 60000000);
	uint64_t took = now() - t0;
	setitimer(ITIMER_REAL, &off, NULL);
	CHECK(!got && took >= 60000000, "a lock held past the deadline: given up after %.1f ms, "
					"not before 60 ms (%d signals meanwhile)",
	      took / 1e6, (int)alarms);
	CHECK(alarms > 0, "the timer's signals came while it waited (%d)", (int)alarms);
	stop_holder(h);

	/* Free: had at the first try. */
	got = rt_quiet_trylock_until(&lock, 0);
	CHECK(got, "a free lock is had at once");
	if (got)
		rt_quiet_unlock(&lock);
	return check_failures != 0;
}
