/*
 * heapdumps.c - profiles written mid-run (ccprof_dump) while the sampler
 * takes heap samples and a worker thread allocates, for tests/heap.py:
 * every write must succeed.  The worker keeps every block, so a sample
 * taken after the write read its context's allocated bytes holds more
 * than those (a file the reader refuses), and samples taken by the
 * sampler and by the writers meet in the same buffer.  Prints "dumps
 * failed N" on stderr.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ccprof.h"

static volatile int stop;
static void *volatile sink;

__attribute__((noinline)) void grow(void)
{
	sink = malloc(64);
}

static void *worker(void *arg)
{
	(void)arg;
	while (!stop) {
		grow();
		usleep(1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300, failed = 0;
	pthread_t t;

	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	for (int i = 0; i < n; i++)
		failed += ccprof_dump() != 0;
	stop = 1;
	if (pthread_join(t, NULL) != 0)
		return 1;
	fprintf(stderr, "dumps failed %d\n", failed);
	return 0;
}
