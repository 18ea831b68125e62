/*
 * latefirst.c - a thread that spends CPU time before its first
 * instrumented call (Note [A thread's time before its first hook] in
 * src/runtime/threads.c).
 *
 *   latefirst MS_BEFORE MS_WORK [MS_AFTER]
 *                        one thread: MS_BEFORE milliseconds of its own
 *                        CPU time in its uninstrumented start routine,
 *                        then work(), MS_WORK milliseconds, then
 *                        MS_AFTER milliseconds more in its start routine;
 *                        and MS_AFTER in an atexit handler of main's
 *                        thread, after main returned
 *
 * Prints "spent BEFORE WORK AFTER" in nanoseconds, as the thread measured
 * them on its own CPU clock (AFTER: the thread's, after work()), then
 * "elapsed WORK AFTER ATEXIT", the same on the monotonic clock (what
 * clock=cycles charges, more than CPU time on a loaded machine).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long ms_before, ms_work, ms_after, spent_before, spent_work, spent_after;
static long long elapsed_work, elapsed_after;
static volatile unsigned sink;

__attribute__((no_instrument_function)) static long long thread_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

__attribute__((no_instrument_function)) static long long mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

__attribute__((no_instrument_function)) static void spin_until(long long until)
{
	while (thread_ns() < until)
		for (unsigned i = 0; i < 1000; i++)
			sink += i;
}

void work(void)
{
	long long t0 = thread_ns(), e0 = mono_ns();

	spin_until(t0 + ms_work * 1000000);
	spent_work = thread_ns() - t0;
	elapsed_work = mono_ns() - e0;
}

__attribute__((no_instrument_function)) static void *start(void *arg)
{
	(void)arg;
	spin_until(ms_before * 1000000); /* the thread's clock starts at 0 */
	spent_before = thread_ns();
	work(); /* the first instrumented call: the runtime meets the thread */
	if (ms_after) { /* after its last hook */
		long long t0 = thread_ns(), e0 = mono_ns();

		spin_until(t0 + ms_after * 1000000);
		spent_after = thread_ns() - t0;
		elapsed_after = mono_ns() - e0;
	}
	return NULL;
}

__attribute__((no_instrument_function)) static void at_end(void)
{
	long long e0 = mono_ns();

	spin_until(thread_ns() + ms_after * 1000000);
	printf("elapsed %lld %lld %lld\n", elapsed_work, elapsed_after, mono_ns() - e0);
}

int main(int argc, char **argv)
{
	pthread_t t;

	ms_before = argc > 1 ? atoll(argv[1]) : 60;
	ms_work = argc > 2 ? atoll(argv[2]) : 20;
	ms_after = argc > 3 ? atoll(argv[3]) : 0;
	if (pthread_create(&t, NULL, start, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	printf("spent %lld %lld %lld\n", spent_before, spent_work, spent_after);
	if (ms_after)
		atexit(at_end);
	return 0;
}
