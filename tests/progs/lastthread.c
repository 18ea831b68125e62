/* main calls pthread_exit while three workers still run; when the last
 * of them ends, glibc ends the process with exit(0), and the atexit
 * handler prints the counts.  The runtime's sampling thread must not keep
 * the process alive after the program's last thread (Note [Last thread]
 * in src/runtime/lastthread.c).
 *
 *   lastthread raw       no workers: main ends by the exit system call
 *                        itself, with status 3, which ends the process
 *                        (Note [A leader that died alone])
 *   lastthread rawfirst  main ends so while the workers run; when the
 *                        last of them returns, the process ends, with
 *                        its status (0 since Linux 6.0, 3 before) and
 *                        without the atexit handlers (glibc's count of
 *                        threads never saw main end)
 *   lastthread rawlast   main calls pthread_exit and the workers end by
 *                        the exit system call: the process ends with the
 *                        last of them, status 0, without the atexit
 *                        handlers (glibc's count never saw them end); the
 *                        sampler is then alone, and ends it so, a POSIX
 *                        one (helper=pthread) too (Note [Last thread])
 *
 * The raw modes print the counts they will have made before main ends. */
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NWORKERS 3

static unsigned long nwork, nmain;

__attribute__((noinline)) void work(void) { __atomic_add_fetch(&nwork, 1, __ATOMIC_RELAXED); }
__attribute__((noinline)) void in_main(void) { nmain++; }

static int raw_workers; /* rawlast: the workers end by the exit system call */

static void *worker(void *arg)
{
	long i = (long)arg;

	usleep(50000 * (unsigned)(i + 1)); /* outlive main */
	for (long k = 0; k < 1000 * (i + 1); k++)
		work();
	if (raw_workers)
		syscall(SYS_exit, 0);
	return NULL;
}

static void counts(void)
{
	printf("calls work %lu\ncalls in_main %lu\n", nwork, nmain);
}

/* What the workers will have called by the end: 1000 * (1 + 2 + 3). */
#define WORK_CALLS (1000ul * NWORKERS * (NWORKERS + 1) / 2)

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int raw = strncmp(mode, "raw", 3) == 0, rawlast = strcmp(mode, "rawlast") == 0;
	pthread_t t;

	raw_workers = rawlast;
	if (!raw)
		atexit(counts);
	if (strcmp(mode, "raw") != 0)
		for (long i = 0; i < NWORKERS; i++)
			if (pthread_create(&t, NULL, worker, (void *)i) == 0)
				pthread_detach(t);
	in_main();
	if (rawlast) {
		printf("calls work %lu\ncalls in_main %lu\n", WORK_CALLS, nmain);
		fflush(stdout);
	} else if (raw) {
		if (strcmp(mode, "raw") != 0)
			printf("calls work %lu\n", WORK_CALLS);
		printf("calls in_main %lu\n", nmain);
		fflush(stdout);
		syscall(SYS_exit, 3);
	}
	pthread_exit(NULL);
}
