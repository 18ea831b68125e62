/* A thread named "busy-worker" (pthread_setname_np) works until the
 * process ends by SIGTERM, which main raises: the profile, written by
 * the runtime's handler, names the live threads as one written at exit
 * does (dump.c, gather_threads). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile int started;
static volatile unsigned long sink;

__attribute__((noinline)) static void work(void)
{
	sink++;
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "busy-worker");
	started = 1;
	for (;;)
		work();
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	while (!started)
		usleep(1000);
	usleep(20000);
	raise(SIGTERM);
	return 0;
}
