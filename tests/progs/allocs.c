/*
 * allocs.c - allocations the program counts itself, for allocation
 * profiling (tests/alloc.py).  Each function allocates a known number of
 * bytes in a known number of blocks, through every allocation function
 * the runtime counts, and prints what it did on stderr ("alloc F BYTES
 * BLOCKS"), so the test can compare them with the profile's self
 * allocation of F.  Blocks are freed, except those kept to the end so
 * that memcheck's counts see the same program as the profile.
 *
 *   allocs [plain]  all of them, once
 *   allocs threads  also two threads, each allocating in its worker
 *   allocs fork     also a child that allocates and writes its own profile
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Through here, so that the compiler cannot drop a malloc/free pair. */
static void *volatile sink;

static void drop(void *p)
{
	sink = p;
	free(sink);
}

static void report(const char *fn, unsigned long bytes, unsigned long blocks)
{
	fprintf(stderr, "alloc %s %lu %lu\n", fn, bytes, blocks);
}

__attribute__((noinline)) void small(int n)
{
	void *p[64];

	for (int i = 0; i < n; i++)
		p[i] = sink = malloc(24);
	for (int i = 0; i < n; i++)
		drop(p[i]);
}

__attribute__((noinline)) void arrays(int n)
{
	for (int i = 0; i < n; i++)
		drop(calloc(10, 8));
}

/* 16, 32, ..., 1024: seven reallocs, each a block of its new size. */
__attribute__((noinline)) void grow(void)
{
	char *p = NULL;

	for (size_t s = 16; s <= 1024; s *= 2) {
		p = realloc(p, s);
		p[s - 1] = 1;
	}
	p = reallocarray(p, 100, 20);
	drop(p);
}

__attribute__((noinline)) void aligned(void)
{
	void *a = NULL, *b, *c, *d;

	if (posix_memalign(&a, 64, 100) != 0)
		abort();
	b = aligned_alloc(64, 128);
	c = memalign(32, 50);
	d = valloc(10);
	drop(a);
	drop(b);
	drop(c);
	drop(d);
}

__attribute__((noinline)) void zero(void)
{
	drop(malloc(0));
}

__attribute__((noinline)) void nothing(void)
{
	static volatile int x;

	x++;
}

/* Fails: neither a block nor bytes. */
__attribute__((noinline)) void refused(void)
{
	void *p = sink = malloc((size_t)-1 / 2);

	if (p != NULL)
		abort();
}

__attribute__((noinline)) void outer(void)
{
	small(2);
}

__attribute__((noinline)) void *worker(void *arg)
{
	int n = (int)(long)arg;

	for (int i = 0; i < n; i++)
		drop(malloc(1000));
	return NULL;
}

__attribute__((noinline)) void child_work(void)
{
	drop(malloc(333));
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "plain";

	small(5);
	report("small", 5 * 24 + 2 * 24, 5 + 2); /* with outer's call */
	arrays(3);
	report("arrays", 3 * 80, 3);
	grow();
	report("grow", 16 + 32 + 64 + 128 + 256 + 512 + 1024 + 2000, 8);
	aligned();
	report("aligned", 100 + 128 + 50 + 10, 4);
	zero();
	report("zero", 0, 1);
	nothing();
	report("nothing", 0, 0);
	refused();
	report("refused", 0, 0);
	outer();
	report("outer", 0, 0);
	if (strcmp(mode, "threads") == 0) {
		pthread_t t[2];

		for (long i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, worker, (void *)(i + 3));
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		report("worker", 7 * 1000, 7);
	}
	if (strcmp(mode, "fork") == 0) {
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			child_work();
			exit(0);
		}
		waitpid(pid, &st, 0);
		report("child_work", 0, 0); /* in the parent */
	}
	printf("done\n");
	return 0;
}
