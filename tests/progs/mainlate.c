/*
 * mainlate.c - a worker thread that registers before main does (a thread
 * registers at its first instrumented call; main here makes its first
 * after the worker's), or after it.
 *
 *   mainlate late     main starts the worker, joins it, then calls
 *                     main_work 3 times: the worker is the profile's
 *                     first thread, main the second
 *   mainlate early    main calls main_work 3 times first, then the same
 *                     worker: main first
 *
 * The worker calls worker_work 5 times.  Prints "calls main_work 3" and
 * "calls worker_work 5".
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static volatile int sink;
static int main_calls, worker_calls;

void main_work(void)
{
	main_calls++;
	sink++;
}

void worker_work(void)
{
	worker_calls++;
	sink++;
}

__attribute__((no_instrument_function)) static void *worker(void *arg)
{
	for (int i = 0; i < 5; i++)
		worker_work();
	return arg;
}

__attribute__((no_instrument_function)) static void run_worker(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, worker, NULL) == 0)
		pthread_join(t, NULL);
}

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	int late = argc > 1 && strcmp(argv[1], "late") == 0;

	if (late)
		run_worker();
	for (int i = 0; i < 3; i++)
		main_work();
	if (!late)
		run_worker();
	printf("calls main_work %d\ncalls worker_work %d\n", main_calls, worker_calls);
	return 0;
}
