/*
 * shortthreads.c - threads that each run for less than the sampling
 * interval, one after another (Note [Short threads] in
 * src/model/threads.c).
 *
 *   shortthreads N US [MS]
 *                        N threads, each burning US microseconds of its
 *                        own CPU time in burn(), started and joined one
 *                        at a time; then, with MS, one long thread that
 *                        calls burn() and spins MS milliseconds in its
 *                        own uninstrumented start routine (a pool's or
 *                        an OpenMP worker's loop, which runs a task now
 *                        and then): time at its root that is no short
 *                        thread's
 *
 * Prints "spent BURN THREAD" in nanoseconds: the CPU time all the
 * threads spent in burn, and from the start to the end of their start
 * routine, as each thread measured it on its own CPU clock.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Not instrumented: the long thread's loop reads it thousands of times,
 * a system call of 1 to 20 us, and that time is its loop's, at its root;
 * as a function of its own it took 44 % of the 100 ms on one machine,
 * more where system calls cost more. */
static __attribute__((no_instrument_function)) long long thread_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static volatile unsigned sink;
static long long burn_us;

void burn(void)
{
	long long until = thread_ns() + burn_us * 1000;

	while (thread_ns() < until)
		for (unsigned i = 0; i < 200; i++)
			sink += i;
}

struct spent {
	long long burn, thread;
};

void *worker(void *arg)
{
	struct spent *s = arg;
	long long t0 = thread_ns(), t1;

	burn();
	t1 = thread_ns();
	s->burn = t1 - t0;
	s->thread = t1; /* since the thread began: its clock starts at 0 */
	return NULL;
}

/* A task the pool's loop runs between its turns: under clock=cycles the
 * loop's time is charged to the root at the hooks of such calls (what
 * follows a thread's last hook is charged nowhere under that clock). */
__attribute__((noinline)) void task(void)
{
	sink++;
}

__attribute__((no_instrument_function)) static void *long_worker(void *arg)
{
	long long until;

	burn(); /* the thread's first instrumented call: it registers */
	until = thread_ns() + *(long long *)arg * 1000000;
	while (thread_ns() < until) { /* a system call: seldom */
		for (unsigned i = 0; i < 100000; i++)
			sink += i;
		task();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	struct spent s, sum = {0, 0};

	burn_us = argc > 2 ? atoll(argv[2]) : 300;
	for (int i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, worker, &s) != 0)
			return 1;
		pthread_join(t, NULL);
		sum.burn += s.burn;
		sum.thread += s.thread;
	}
	printf("spent %lld %lld\n", sum.burn, sum.thread);
	if (argc > 3) {
		long long ms = atoll(argv[3]);
		pthread_t t;

		if (pthread_create(&t, NULL, long_worker, &ms) != 0)
			return 1;
		pthread_join(t, NULL);
	}
	return 0;
}
