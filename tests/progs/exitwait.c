/* exit()'s gate must not stall a program whose first exit needs the
 * thread that comes second (Note [Concurrent exit] in
 * src/runtime/exitgate.c; each mode took 10 s under the runtime):
 *   fork  main's atexit handler joins a worker, which forks; the child
 *         calls exit at once (the gate is the parent's, not the child's)
 *   hold  main returns; its atexit handler lets a worker take a lock and
 *         call exit, then needs that lock (the worker's exit ends the
 *         process, as without ccprof).  Flags, not sleeps, order the
 *         two, so that a loaded machine cannot let the worker exit first
 * Prints the same with and without ccprof; the test bounds the run. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int exiting, locked;
static pthread_t worker_thread;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *forker(void *unused)
{
	double t0;
	int status;
	pid_t pid;

	(void)unused;
	while (!exiting)
		usleep(1000);
	t0 = now();
	if ((pid = fork()) == 0)
		exit(7);
	waitpid(pid, &status, 0);
	printf("child exit status %d, within 5 s: %s\n", WEXITSTATUS(status),
	       now() - t0 < 5 ? "yes" : "no");
	fflush(stdout);
	return NULL;
}

static void join_forker(void)
{
	exiting = 1;
	pthread_join(worker_thread, NULL);
}

static void *holder(void *unused)
{
	(void)unused;
	while (!exiting)
		usleep(1000);
	pthread_mutex_lock(&log_lock);
	locked = 1;
	fprintf(stderr, "worker: fatal\n");
	exit(1);
}

static void take_log_lock(void)
{
	exiting = 1;
	while (!locked)
		usleep(1000);
	pthread_mutex_lock(&log_lock);
	pthread_mutex_unlock(&log_lock);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "fork") == 0) {
		atexit(join_forker);
		pthread_create(&worker_thread, NULL, forker, NULL);
		return 0;
	}
	atexit(take_log_lock);
	pthread_create(&worker_thread, NULL, holder, NULL);
	return 0;
}
