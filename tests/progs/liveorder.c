/*
 * liveorder.c - running threads that outlive others which ended out of
 * their start order, each then busy in its own function: the sampler
 * must still look at every one (Note [Running threads in an array] in
 * src/runtime/threads.c: a thread that ends takes the last one's place
 * in the array).
 *
 *   liveorder N   starts N threads (N a multiple of 4, at most 256), each
 *                 calling started(); three in four then end, after a
 *                 sleep that puts their ends in an order of their own;
 *                 the rest, named "busy", then spend 40 ms of their CPU
 *                 each in busy().  Prints the calls the profile must
 *                 show.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cpuspin.h"

#define MAX_THREADS 256

static pthread_barrier_t all_started, others_ended;
static unsigned long nstarted, nbusy;

__attribute__((noinline)) void started(void)
{
	__atomic_fetch_add(&nstarted, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void busy(void)
{
	__atomic_fetch_add(&nbusy, 1, __ATOMIC_RELAXED);
	spin_cpu(40000000L);
}

static void *body(void *arg)
{
	long i = (long)arg;

	started();
	pthread_barrier_wait(&all_started);
	if (i % 4 != 0) {
		/* ends 0-30 ms from now, in an order unlike the start's */
		struct timespec ts = {0, (i * 7919 % 31) * 1000000L};

		nanosleep(&ts, NULL);
		return NULL;
	}
	pthread_setname_np(pthread_self(), "busy");
	pthread_barrier_wait(&others_ended);
	busy();
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 64;
	pthread_t t[MAX_THREADS];

	if (n < 4 || n > MAX_THREADS || n % 4 != 0)
		return 2;
	pthread_barrier_init(&all_started, NULL, (unsigned)n + 1);
	pthread_barrier_init(&others_ended, NULL, (unsigned)n / 4 + 1);
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, body, (void *)i) != 0)
			return 1;
	pthread_barrier_wait(&all_started);
	for (long i = 0; i < n; i++)
		if (i % 4 != 0)
			pthread_join(t[i], NULL);
	pthread_barrier_wait(&others_ended);
	for (long i = 0; i < n; i += 4)
		pthread_join(t[i], NULL);
	printf("started %lu busy %lu\n", nstarted, nbusy);
	return 0;
}
