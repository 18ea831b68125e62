/* Many threads running at once: the mappings the runtime adds for each
 * (Note [Segment pool] in src/runtime/shadow.c).  N threads each make
 * calls, one of them deep enough to need a second shadow stack
 * segment, and wait; while all of them wait, main counts the lines of
 * /proc/self/maps and reads what the process maps.  Threads start one
 * after another, each after the one before made its first call, and
 * thread 0 dives once all have, so that the segments are taken in the
 * same order in every run.
 *
 *   livethreads N    prints "mappings M", "vmsize BYTES" and the calls
 *                    the profile must show */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#include "vmsize.h"

#define DEEP 70000 /* deeper than a segment's 65,535 entries */

static unsigned long nleaf, ndive, nbody;
static pthread_barrier_t all_started, all_waiting, counted;
static sem_t started;

__attribute__((noinline)) void leaf(void)
{
	__atomic_fetch_add(&nleaf, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void dive(int depth)
{
	__atomic_fetch_add(&ndive, 1, __ATOMIC_RELAXED);
	if (depth > 0)
		dive(depth - 1);
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

__attribute__((noinline)) void *body(void *arg)
{
	__atomic_fetch_add(&nbody, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 10; i++)
		leaf();
	sem_post(&started);
	if (arg != NULL) {
		pthread_barrier_wait(&all_started);
		dive(DEEP);
	}
	pthread_barrier_wait(&all_waiting);
	pthread_barrier_wait(&counted);
	return NULL;
}

static int count_mappings(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int c, lines = 0;

	if (f == NULL)
		return -1;
	while ((c = getc(f)) != EOF)
		lines += c == '\n';
	fclose(f);
	return lines;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, mappings;
	unsigned long vmsize;
	pthread_t *t = calloc((size_t)n, sizeof *t);
	pthread_attr_t attr;

	if (t == NULL || n < 1)
		return 1;
	/* Room for the deep one's frames on its stack. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 16u << 20);
	sem_init(&started, 0, 0);
	pthread_barrier_init(&all_started, NULL, 2);
	pthread_barrier_init(&all_waiting, NULL, (unsigned)n + 1);
	pthread_barrier_init(&counted, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++) {
		if (pthread_create(&t[i], i == 0 ? &attr : NULL, body, i == 0 ? (void *)1 : NULL) != 0)
			return 1;
		while (sem_wait(&started) != 0) /* its first calls made */
			;
	}
	pthread_barrier_wait(&all_started);
	pthread_barrier_wait(&all_waiting);
	mappings = count_mappings();
	vmsize = mapped_now();
	pthread_barrier_wait(&counted);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("mappings %d\nvmsize %lu\n", mappings, vmsize);
	printf("calls body %lu\ncalls leaf %lu\ncalls dive %lu\n", nbody, nleaf, ndive);
	return 0;
}
