/*
 * calibonce.c - not instrumented: its only way into the runtime is the
 * region API (ccprof__enter makes the thread's state, as a first hook
 * does).  Run with tests/progs/hookcount.c preloaded first, which counts
 * the calibration fixture's calls (Note [Calibration at the first hook]
 * in src/runtime/clock.c).
 *
 *   calibonce none      no region: nothing calibrates
 *   calibonce one       main enters a region: one calibration
 *   calibonce dump      only writes a profile (ccprof_dump): no call,
 *                       nothing calibrated, the estimate not measured
 *   calibonce threads   four threads enter a region at once: one
 *                       calibration, the others wait for it
 *   calibonce fork      a child forked before the first region enters
 *                       one (its own calibration), then the parent does
 *                       (its own), then a child forked after enters one
 *                       (none: it has its parent's)
 *   calibonce late      sleeps 5 ms, then enters a region: a run longer
 *                       than the tick rate's shortest span, 1 ms, which
 *                       the write then measures without waiting (Note
 *                       [The tick rate] in src/runtime/clock.c)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ccprof.h"

static pthread_barrier_t ready;

static void region(void)
{
	ccprof_cc_t cc = ccprof_cc("calibonce");

	ccprof_enter(cc);
	ccprof_leave(cc);
}

static void *thread(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&ready);
	region();
	return NULL;
}

static void child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		region();
		exit(0); /* hookcount's destructor says what it counted */
	}
	waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "none";

	if (strcmp(mode, "one") == 0) {
		region();
	} else if (strcmp(mode, "dump") == 0) {
		return ccprof_dump() == 0 ? 0 : 1;
	} else if (strcmp(mode, "threads") == 0) {
		pthread_t t[4];
		int i;

		pthread_barrier_init(&ready, NULL, 4);
		for (i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, thread, NULL);
		for (i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
	} else if (strcmp(mode, "late") == 0) {
		struct timespec pause = { 0, 5000000 };

		while (nanosleep(&pause, &pause) != 0)
			;
		region();
	} else if (strcmp(mode, "fork") == 0) {
		child();
		region();
		child();
	}
	return 0;
}
