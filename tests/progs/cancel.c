/* Thread cancellation: a thread 20 deep in recursion is cancelled at a
 * cancellation point; its cleanup handler calls instrumented code.  The
 * main thread then goes on calling after_cancel(). */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static volatile unsigned long sink;
static pthread_barrier_t ready;
static unsigned long ndeep;

__attribute__((noinline)) void cleanup_work(void) { sink++; }

__attribute__((noinline)) void cleanup(void *arg)
{
	(void)arg;
	cleanup_work();
}

__attribute__((noinline)) void deep(int n)
{
	ndeep++;
	if (n == 0) {
		pthread_barrier_wait(&ready);
		for (;;)
			pause(); /* a cancellation point */
	}
	deep(n - 1);
	sink++;
}

__attribute__((noinline)) void *body(void *arg)
{
	pthread_cleanup_push(cleanup, arg);
	deep(20);
	pthread_cleanup_pop(0);
	return NULL;
}

__attribute__((noinline)) void after_cancel(void) { sink++; }

int main(void)
{
	pthread_t t;
	void *res;

	pthread_barrier_init(&ready, NULL, 2);
	pthread_create(&t, NULL, body, NULL);
	pthread_barrier_wait(&ready);
	pthread_cancel(t);
	pthread_join(t, &res);
	for (int i = 0; i < 3; i++)
		after_cancel();
	printf("cancelled %d\ncalls deep %lu\ncalls cleanup_work 1\ncalls after_cancel 3\n",
	       res == PTHREAD_CANCELED, ndeep);
	return 0;
}
