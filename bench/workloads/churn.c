/*
 * churn.c - a thread-churn workload, as a program that spreads each task
 * over a few threads it starts for it: R rounds of K threads started at
 * once, each making a few calls and ending, the main thread joining them
 * all before the next round.  What ccprof costs here is per thread (a
 * thread's state made as it starts, its record kept as it ends), not per
 * call.
 *
 *     churn [R [K]]   (default 600 rounds of 8)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_barrier_t all_started;
static unsigned long calls;

__attribute__((noinline)) static void leaf(void)
{
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) static void mid(void)
{
	leaf();
	leaf();
}

static void *body(void *arg)
{
	pthread_barrier_wait(&all_started);
	for (int i = 0; i < 5; i++)
		mid();
	return arg;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 600, k = argc > 2 ? atoi(argv[2]) : 8;
	pthread_t *t = calloc(k > 0 ? (size_t)k : 1, sizeof *t);

	if (t == NULL || rounds < 1 || k < 1)
		return 2;
	for (int r = 0; r < rounds; r++) {
		pthread_barrier_init(&all_started, NULL, (unsigned)k);
		for (int i = 0; i < k; i++)
			if (pthread_create(&t[i], NULL, body, NULL) != 0)
				return 1;
		for (int i = 0; i < k; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&all_started);
	}
	printf("%lu calls in %d threads\n", calls, rounds * k);
	free(t);
	return 0;
}
