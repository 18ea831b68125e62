/*
 * heapuse.c - a live heap the program keeps account of itself, for heap
 * profiling (tests/heap.py).  Each function allocates and frees known
 * blocks; at the end the program prints, on stderr, what each function
 * still holds ("live F BYTES BLOCKS") and the largest total its live
 * heap reached ("peak BYTES").  It prints with write(2) only, so that no
 * stdio buffer joins the heap.
 *
 *   heapuse [plain]  one thread: held, dropped, leaked, reallocated,
 *                    a failed realloc, churn, aligned blocks, a spike
 *   heapuse threads  also blocks a worker allocates and main frees
 *   heapuse fork     also a child that frees an inherited block and
 *                    allocates its own (it prints its own lines, "child ")
 *   heapuse steps [MS]  five steps of 100,000 bytes, MS (30) ms apart
 *   heapuse stepsterm [MS]  the same, then 300,000 bytes more in gasp()
 *                    and at once, its lines printed, death by SIGTERM
 *   heapuse nomem    also 300,000 blocks of 16 bytes in crowd(), with
 *                    every anonymous mmap failing meanwhile where
 *                    tests/progs/mmapfail.c is preloaded (its switch
 *                    found by dlsym), so that the runtime's block table
 *                    cannot grow while malloc's brk heap can; then a
 *                    child forked that allocates a block and exits
 *   heapuse saw      also 2,000 blocks from 1,100,064 bytes, each 64
 *                    bytes bigger than the last and freed at once: a
 *                    new peak every time, above spike's
 *   heapuse stress   also four threads that allocate (and realloc) into
 *                    shared slots and free each other's blocks at random,
 *                    past spike's peak; each prints
 *                    what it still owns ("owned BYTES BLOCKS")
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Through here, so that the compiler keeps every malloc/free pair. */
static void *volatile sink;
#include "heapown.h"

static void *take(size_t n)
{
	void *p = sink = malloc(n);

	account((long)n);
	return p;
}

static void give_back(void *p, size_t n)
{
	sink = p;
	free(sink);
	account(-(long)n);
}

static void *held[16];

/* 10 blocks of 1000 bytes, kept in held[]. */
__attribute__((noinline)) void hold(void)
{
	for (int i = 0; i < 10; i++)
		held[i] = take(1000);
}

/* Frees 6 of hold's: hold keeps 4,000 bytes in 4 blocks. */
__attribute__((noinline)) void release(void)
{
	for (int i = 0; i < 6; i++)
		give_back(held[i], 1000);
}

/* Never freed: 3 blocks of 333 bytes. */
__attribute__((noinline)) void leak(void)
{
	for (int i = 0; i < 3; i++)
		memset(take(333), 1, 333);
}

/* 100 bytes grown to 5,000, then shrunk to 200 and kept: each realloc
 * is a new block of its new size, and the old one is no longer live. */
__attribute__((noinline)) void *resize(void)
{
	char *p = take(100);

	p = realloc(p, 5000);
	account(5000 - 100);
	p = realloc(p, 200);
	account(200 - 5000);
	return sink = p;
}

/* A realloc that fails leaves the block live, and whose it was. */
__attribute__((noinline)) void refuse(void *p)
{
	void *q = realloc(p, SIZE_MAX / 2);

	if (q != NULL)
		_exit(4);
}

/* 1,000 blocks of 64 bytes, each freed: nothing live. */
__attribute__((noinline)) void churn(void)
{
	for (int i = 0; i < 1000; i++)
		give_back(take(64), 64);
}

/* calloc, posix_memalign, aligned_alloc: 80 + 256 kept, 512 freed. */
__attribute__((noinline)) void aligned(void)
{
	void *a = calloc(10, 8), *b = NULL, *c;

	if (posix_memalign(&b, 64, 256) != 0)
		_exit(5);
	c = aligned_alloc(64, 512);
	account(80 + 256 + 512);
	sink = a;
	sink = b;
	give_back(c, 512);
}

/* The peak: a megabyte, for a moment. */
__attribute__((noinline)) void spike(void)
{
	give_back(take(1 << 20), 1 << 20);
}

struct handoff {
	void *blocks[8];
};

/* A worker's 8 blocks of 512 bytes: main frees 5 of them. */
__attribute__((noinline)) void produce(struct handoff *h)
{
	for (int i = 0; i < 8; i++)
		h->blocks[i] = malloc(512);
}

static void *worker(void *arg)
{
	produce(arg);
	return NULL;
}

__attribute__((noinline)) void consume(struct handoff *h)
{
	for (int i = 0; i < 5; i++)
		free(h->blocks[i]);
}

static void threads(void)
{
	static struct handoff h;
	pthread_t t;

	if (pthread_create(&t, NULL, worker, &h) != 0 || pthread_join(t, NULL) != 0)
		_exit(6);
	consume(&h);
	say("live", "produce", 3 * 512, 3);
}

/* In the child: an inherited block freed, one of its own kept. */
__attribute__((noinline)) void child_work(void)
{
	free(held[9]);
	sink = malloc(777);
}

static void forked(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		prefix = "child ";
		child_work();
		say("live", "child_work", 777, 1);
		exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0)
		_exit(7);
}

#define STRESSERS 4
#define SLOTS 1024

static struct {
	void *p;
	size_t n;
	int owner;
} slot[SLOTS];
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static long owned_bytes[STRESSERS], owned_blocks[STRESSERS];

/* n bytes, an even n by way of a realloc from half as many: the block
 * is stress_alloc's either way. */
__attribute__((noinline)) void *stress_alloc(size_t n)
{
	void *p = malloc(n % 2 ? n : n / 2);

	return n % 2 ? p : realloc(p, n);
}

/* Each round puts a new block in a random slot and frees the one it
 * replaces, whoever allocated it; the free is outside the lock, so frees
 * and allocations of all threads meet in the runtime's block table.
 * Blocks grow over the rounds, so that the heap passes spike's peak
 * (about 2.8 MB at the end) and frees take pictures of new peaks while
 * the other threads allocate. */
static void *stresser(void *arg)
{
	int me = (int)(intptr_t)arg;
	unsigned seed = (unsigned)me * 7919u + 1;

	for (int i = 0; i < 20000; i++) {
		size_t n = 1 + (size_t)(rand_r(&seed) % 512) + (size_t)i / 4;
		int k = rand_r(&seed) % SLOTS;
		void *p = stress_alloc(n), *old;

		pthread_mutex_lock(&slot_lock);
		old = slot[k].p;
		if (old) {
			owned_bytes[slot[k].owner] -= (long)slot[k].n;
			owned_blocks[slot[k].owner]--;
		}
		slot[k].p = p;
		slot[k].n = n;
		slot[k].owner = me;
		owned_bytes[me] += (long)n;
		owned_blocks[me]++;
		pthread_mutex_unlock(&slot_lock);
		free(old);
	}
	return NULL;
}

static void stress(void)
{
	pthread_t t[STRESSERS];

	for (int i = 0; i < STRESSERS; i++)
		if (pthread_create(&t[i], NULL, stresser, (void *)(intptr_t)i) != 0)
			_exit(8);
	for (int i = 0; i < STRESSERS; i++)
		if (pthread_join(t[i], NULL) != 0)
			_exit(9);
	for (int i = 0; i < STRESSERS; i++)
		say("owned", "stress_alloc", owned_bytes[i], owned_blocks[i]);
}

/* A saw-tooth: each block is a new peak, freed at once. */
__attribute__((noinline)) void saw(void)
{
	for (size_t i = 1; i <= 2000; i++)
		give_back(take(1100000 + i * 64), 1100000 + i * 64);
}

static void pause_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Five steps: after step k, step holds k * 100,000 bytes for ms ms. */
__attribute__((noinline)) void step(void)
{
	take(100000);
}

static void steps(int ms)
{
	for (int k = 1; k <= 5; k++) {
		step();
		pause_ms(ms);
	}
	say("live", "step", 500000, 5);
}

#define CROWD 300000

__attribute__((noinline)) void crowd(void)
{
	static void *blocks[CROWD];
	void (*fail)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "mmapfail_set");
	long got = 0;

	mallopt(M_MMAP_MAX, 0); /* malloc's heap from brk alone */
	if (fail)
		fail(1);
	for (int i = 0; i < CROWD; i++)
		got += (blocks[i] = take(16)) != NULL;
	if (fail)
		fail(0);
	say("live", "crowd", 16 * got, got);
	if (fork() == 0) {
		take(16);
		exit(0);
	}
	wait(NULL);
}

__attribute__((noinline)) void gasp(void)
{
	take(300000);
	say("live", "gasp", 300000, 1);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "plain";
	void *kept;

	hold();
	release();
	leak();
	kept = resize();
	refuse(kept);
	churn();
	aligned();
	spike();
	if (strcmp(mode, "threads") == 0)
		threads();
	if (strcmp(mode, "fork") == 0)
		forked();
	if (strcmp(mode, "steps") == 0 || strcmp(mode, "stepsterm") == 0)
		steps(argc > 2 ? atoi(argv[2]) : 30);
	if (strcmp(mode, "stepsterm") == 0)
		gasp();
	if (strcmp(mode, "nomem") == 0)
		crowd();
	if (strcmp(mode, "stress") == 0)
		stress();
	if (strcmp(mode, "saw") == 0)
		saw();
	say("live", "hold", 4000, 4);
	say("live", "release", 0, 0);
	say("live", "leak", 999, 3);
	say("live", "resize", 200, 1);
	say("live", "refuse", 0, 0);
	say("live", "churn", 0, 0);
	say("live", "aligned", 336, 2);
	say("live", "spike", 0, 0);
	say("peak", "main", live_peak, 0);
	if (strcmp(mode, "stepsterm") == 0)
		raise(SIGTERM);
	return 0;
}
