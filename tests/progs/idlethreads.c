/* Many threads waiting for work, as a server's pool does: what the
 * sampler costs for them (Note [Idle threads in turn] in
 * src/runtime/sampler.c).  N threads each call work() and wait MS
 * milliseconds; with "burst", thread 0 wakes halfway, spends 20 ms of
 * CPU in burst() and waits again, and prints on stderr "burnt NS", the
 * CPU time burst() took.
 *
 *   idlethreads N MS [burst]    prints the calls the profile must show */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpuspin.h"

static unsigned long nwork, nburst;
static long wait_ms, burnt;
static int with_burst;

__attribute__((noinline)) void work(void)
{
	__atomic_fetch_add(&nwork, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void burst(void)
{
	long t0 = cpu_ns();

	nburst++;
	spin_cpu(20000000L);
	burnt = cpu_ns() - t0;
}

/* Sleep ms milliseconds of wall time. */
static void wait_for(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

__attribute__((noinline)) void *body(void *arg)
{
	work();
	if (arg != NULL && with_burst) {
		wait_for(wait_ms / 2);
		burst();
		wait_for(wait_ms / 2);
	} else {
		wait_for(wait_ms);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	pthread_t *t = calloc((size_t)(n > 0 ? n : 1), sizeof *t);

	wait_ms = argc > 2 ? atol(argv[2]) : 1000;
	with_burst = argc > 3 && strcmp(argv[3], "burst") == 0;
	if (t == NULL || n < 1)
		return 1;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, body, i == 0 ? (void *)1 : NULL) != 0)
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("calls work %lu\ncalls burst %lu\n", nwork, nburst);
	if (with_burst)
		fprintf(stderr, "burnt %ld\n", burnt);
	return 0;
}
