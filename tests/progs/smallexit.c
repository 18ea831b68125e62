/* A worker thread with the smallest stack pthreads allows
 * (PTHREAD_STACK_MIN, 16 KB here) ends the program with exit(3), as a
 * server's worker that finds a fatal error might: the write at exit runs
 * on that thread, and must not need more stack than it has (Note [A
 * write on a small stack] in src/runtime/dump.c).  With "main", the main
 * thread exits instead (status 4); with "dump", the worker writes the
 * profile with ccprof_dump() first, then the main thread exits. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccprof.h"

static unsigned long nleaf, nworker;

__attribute__((noinline)) void leaf(void)
{
	nleaf++;
}

static void *worker(void *arg)
{
	nworker++;
	for (int i = 0; i < 1000; i++)
		leaf();
	printf("calls leaf %lu\ncalls worker %lu\n", nleaf, nworker);
	fflush(stdout);
	if (arg == NULL)
		exit(3);
	if (strcmp(arg, "dump") == 0)
		ccprof_dump(); /* -1 bare (ENOSYS): not printed */
	return NULL;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "worker";
	int from_main = strcmp(how, "worker") != 0;
	pthread_attr_t attr;
	pthread_t t;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN);
	if (pthread_create(&t, &attr, worker, from_main ? (void *)how : NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	return from_main ? 4 : 0;
}
