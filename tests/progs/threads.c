/* 8 threads with known call counts: thread i calls leaf() 1000*(i+1)
 * times through mid(); thread 0 exits early; every thread is named. */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 8

static __thread volatile unsigned long sink; /* per thread: no race */

__attribute__((noinline)) void leaf(void) { sink++; }

__attribute__((noinline)) void mid(int n)
{
	for (int i = 0; i < n; i++)
		leaf();
}

__attribute__((noinline)) void *worker(void *arg)
{
	long i = (long)arg;
	char name[16];

	snprintf(name, sizeof name, "worker-%ld", i);
	pthread_setname_np(pthread_self(), name);
	mid(1000 * (int)(i + 1));
	if (i == 0)
		pthread_exit(NULL); /* early exit keeps its costs */
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	unsigned long want = 0;

	for (long i = 0; i < NTHREADS; i++) {
		pthread_create(&t[i], NULL, worker, (void *)i);
		want += 1000 * (unsigned long)(i + 1);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	printf("calls leaf %lu\ncalls mid %d\ncalls worker %d\n", want, NTHREADS, NTHREADS);
	return 0;
}
