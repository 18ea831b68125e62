/* Many threads waiting for work, as a server's pool does: what the
 * sampler costs for them (Note [Idle threads in turn] in
 * src/runtime/sampler.c).  N threads each call work() and wait MS
 * milliseconds; with "burst", thread 0 wakes halfway, spends 20 ms of
 * CPU in burst() and waits again, and prints on stderr "burnt NS", the
 * CPU time burst() took.  With "stages", thread 0 instead works in 40
 * rounds, each a 20 ms sleep, then 3 ms of CPU in first() and 3 ms in
 * second(), and prints on stderr "spent NS NS", what each took.  With
 * "fork", main forks halfway a child that spends 100 ms of CPU in
 * childwork() and exits; the parent waits for it.
 *
 *   idlethreads N MS [burst|stages|fork]    prints the calls the profile
 *                                           must show (the parent's) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpuspin.h"

static unsigned long nwork, nburst, nfirst, nsecond;
static long wait_ms, burnt, spent[2];
static const char *mode = "";

__attribute__((noinline)) void work(void)
{
	__atomic_fetch_add(&nwork, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void burst(void)
{
	long t0 = cpu_ns();

	nburst++;
	spin_cpu(20000000L);
	burnt = cpu_ns() - t0;
}

__attribute__((noinline)) void first(void)
{
	long t0 = cpu_ns();

	nfirst++;
	spin_cpu(3000000L);
	spent[0] += cpu_ns() - t0;
}

__attribute__((noinline)) void second(void)
{
	long t0 = cpu_ns();

	nsecond++;
	spin_cpu(3000000L);
	spent[1] += cpu_ns() - t0;
}

__attribute__((noinline)) void childwork(void)
{
	spin_cpu(100000000L);
}

/* Sleep ms milliseconds of wall time. */
static void wait_for(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

__attribute__((noinline)) void *body(void *arg)
{
	work();
	if (arg != NULL && strcmp(mode, "burst") == 0) {
		wait_for(wait_ms / 2);
		burst();
		wait_for(wait_ms / 2);
	} else if (arg != NULL && strcmp(mode, "stages") == 0) {
		for (int i = 0; i < 40; i++) {
			wait_for(20);
			first();
			second();
		}
	} else {
		wait_for(wait_ms);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	pthread_t *t = calloc((size_t)(n > 0 ? n : 1), sizeof *t);

	wait_ms = argc > 2 ? atol(argv[2]) : 1000;
	mode = argc > 3 ? argv[3] : "";
	if (t == NULL || n < 1)
		return 1;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, body, i == 0 ? (void *)1 : NULL) != 0)
			return 1;
	if (strcmp(mode, "fork") == 0) {
		pid_t child;

		wait_for(wait_ms / 2);
		if ((child = fork()) == 0) {
			childwork();
			exit(0);
		}
		if (child < 0 || waitpid(child, NULL, 0) != child)
			return 1;
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("calls work %lu\ncalls burst %lu\ncalls first %lu\ncalls second %lu\n", nwork, nburst,
	       nfirst, nsecond);
	if (strcmp(mode, "burst") == 0)
		fprintf(stderr, "burnt %ld\n", burnt);
	if (strcmp(mode, "stages") == 0)
		fprintf(stderr, "spent %ld %ld\n", spent[0], spent[1]);
	return 0;
}
