/* main calls pthread_exit while three workers still run; when the last
 * of them ends, glibc ends the process with exit(0), and the atexit
 * handler prints the counts.  The runtime's sampling thread must not keep
 * the process alive after the program's last thread (Note [Last thread]
 * in src/runtime/sampler.c). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NWORKERS 3

static unsigned long nwork, nmain;

__attribute__((noinline)) void work(void) { __atomic_add_fetch(&nwork, 1, __ATOMIC_RELAXED); }
__attribute__((noinline)) void in_main(void) { nmain++; }

static void *worker(void *arg)
{
	long i = (long)arg;

	usleep(50000 * (unsigned)(i + 1)); /* outlive main */
	for (long k = 0; k < 1000 * (i + 1); k++)
		work();
	return NULL;
}

static void counts(void)
{
	printf("calls work %lu\ncalls in_main %lu\n", nwork, nmain);
}

int main(void)
{
	pthread_t t;

	atexit(counts);
	for (long i = 0; i < NWORKERS; i++)
		if (pthread_create(&t, NULL, worker, (void *)i) == 0)
			pthread_detach(t);
	in_main();
	pthread_exit(NULL);
}
