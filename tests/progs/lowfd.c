/*
 * lowfd.c - a program that relies on open(2) returning the lowest free
 * descriptor while another thread works in bursts and sleeps: the
 * sampler must open no file meanwhile (Note [CPU time where it ran] in
 * src/runtime/sampler.c; helper-122).
 *
 * main closes 0, then opens /dev/null and closes it again until the
 * worker has done 600 rounds of 0.4 ms of work and a 1.1 ms sleep, and
 * prints "opens N other M": M of the N opens did not return 0.
 *
 * lowfd unshare: the worker also calls unshare(0) in each round, which
 * the runtime takes over and after which it restarts its sampling
 * thread (Note [Sandboxed] in src/runtime/sandbox.c).
 */
#define _GNU_SOURCE /* unshare */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile int done;
static int unshares;
static volatile unsigned long sink;

static unsigned long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

__attribute__((noinline)) void work(void)
{
	unsigned long long end = cpu_ns() + 400000;

	while (cpu_ns() < end)
		for (int i = 0; i < 200; i++)
			sink++;
}

__attribute__((noinline)) void nap(void)
{
	struct timespec ts = {0, 1100000};

	nanosleep(&ts, NULL);
}

static void *worker(void *arg)
{
	for (int i = 0; i < 600; i++) {
		work();
		if (unshares && unshare(0) != 0)
			perror("unshare");
		nap();
	}
	done = 1;
	return arg;
}

int main(int argc, char **argv)
{
	unsigned long opens = 0, other = 0;
	pthread_t t;

	unshares = argc > 1 && strcmp(argv[1], "unshare") == 0;
	close(0);
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 2;
	while (!done) {
		int fd = open("/dev/null", O_RDONLY);

		opens++;
		if (fd != 0)
			other++;
		if (fd >= 0)
			close(fd);
	}
	pthread_join(t, NULL);
	fprintf(stderr, "opens %lu other %lu\n", opens, other);
	return 0;
}
