/* A worker thread with the smallest stack pthreads allows
 * (PTHREAD_STACK_MIN, 16 KB here) ends the program with exit(3), as a
 * server's worker that finds a fatal error might: the write at exit runs
 * on that thread, and must not need more stack than it has (Note [The
 * write at exit on a small stack] in src/runtime/init.c).  With "main",
 * the main thread exits instead, the worker waiting. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	return NULL;
}

int main(int argc, char **argv)
{
	int from_main = argc > 1 && strcmp(argv[1], "main") == 0;
	pthread_attr_t attr;
	pthread_t t;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN);
	if (pthread_create(&t, &attr, worker, from_main ? &attr : NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	return from_main ? 4 : 0;
}
