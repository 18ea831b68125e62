/*
 * heapfork.c - fork while other threads hold glibc's stdio locks, for
 * tests/heap.py: one thread holds stdout's lock and allocates under it,
 * another waits for that lock in fflush(NULL), holding the list of
 * streams, which glibc's fork takes after the fork handlers.  A fork
 * handler that held the heap table's locks across the fork then waited
 * for the list, and the allocation for the table: the program hung.
 * Built with -DHEAPFORK_LIB, uninstrumented, it is a library whose
 * constructor registers fork handlers that allocate, before the
 * runtime's own (which then run first of the prepare handlers); the
 * program built with -DHEAPFORK_WITH_LIB uses it.
 * Prints "done"; an alarm ends it if it hangs.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *volatile sink;

#ifdef HEAPFORK_LIB
static void alloc_free(void)
{
	sink = malloc(100);
	free(sink);
}

__attribute__((constructor)) static void heapfork_init(void)
{
	pthread_atfork(alloc_free, alloc_free, alloc_free);
}

int heapfork_lib(void)
{
	return 1;
}
#else
#ifdef HEAPFORK_WITH_LIB
int heapfork_lib(void);
#else
static int heapfork_lib(void)
{
	return 0;
}
#endif

static void pause_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* From 0 to 200 ms: holds stdout, and allocates at the end. */
__attribute__((noinline)) void *locked_alloc(void *arg)
{
	(void)arg;
	flockfile(stdout);
	pause_ms(200);
	sink = malloc(100);
	free(sink);
	funlockfile(stdout);
	return NULL;
}

/* From 50 ms: holds the list of streams, waits for stdout. */
__attribute__((noinline)) void *flusher(void *arg)
{
	(void)arg;
	pause_ms(50);
	fflush(NULL);
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pid_t pid;
	int st;

	alarm(10);
	if (pthread_create(&a, NULL, locked_alloc, NULL) != 0 ||
	    pthread_create(&b, NULL, flusher, NULL) != 0)
		return 1;
	pause_ms(100); /* the fork waits for the list from here */
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || pthread_join(a, NULL) != 0 ||
	    pthread_join(b, NULL) != 0)
		return 1;
	printf("done%s\n", heapfork_lib() ? " (with handlers)" : "");
	return 0;
}
#endif
