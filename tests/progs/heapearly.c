/*
 * heapearly.c - blocks allocated before the runtime starts, for
 * tests/heap.py (Note [Blocks from before the start] in
 * src/runtime/heap.c).  Built twice: with -DHEAPEARLY_LIB as a shared
 * library, not instrumented, whose constructor runs before the preloaded
 * runtime's (Note [Start-up order] in src/runtime/alloc.c), and without
 * as the program, which links it.  Like heapuse.c, it keeps account of
 * its own live heap and prints with write(2) only, on stderr: what is
 * still live outside any context ("live outside BYTES BLOCKS": the
 * constructor's blocks), what each function holds, the live heap when
 * main starts ("start main BYTES BLOCKS") and the largest total
 * ("peak main BYTES 0").
 *
 * The constructor (its argv[1] is the program's mode) allocates, frees
 * one block again, reallocates one, fails to reallocate one and allocates
 * an aligned one, all before the runtime starts; main then, after 50 ms
 * (samples of the heap as it starts), allocates a megabyte for a moment
 * (the peak, above the constructor's blocks), frees one of the
 * constructor's blocks and reallocates another.
 *
 *   heapearly [plain]  as above
 *   heapearly big      the constructor's freed block is 2,000,000 bytes:
 *                      the peak comes before the runtime starts
 *   heapearly many     the constructor also keeps 5,000 blocks of 16
 *                      bytes, more than the runtime keeps before it starts
 *   heapearly threads  the constructor also starts three threads that
 *                      allocate, reallocate and free blocks at random
 *                      while the runtime starts, until main stops them;
 *                      they free all they hold before they end
 *   heapearly idle     the same three threads, idle: the blocks glibc
 *                      keeps for them are the same
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void heapearly_account(long bytes, long blocks);
void heapearly_say(const char *what, const char *fn, long bytes, long blocks);
long heapearly_live(long *blocks);
long heapearly_peak(void);
void heapearly_stop(void);
extern void *heapearly_keep[3];

#ifdef HEAPEARLY_LIB
static long live_now, live_blocks, live_peak;
void *heapearly_keep[3];

void heapearly_account(long bytes, long blocks)
{
	live_now += bytes;
	live_blocks += blocks;
	if (live_now > live_peak)
		live_peak = live_now;
}

long heapearly_live(long *blocks)
{
	*blocks = live_blocks;
	return live_now;
}

long heapearly_peak(void)
{
	return live_peak;
}

void heapearly_say(const char *what, const char *fn, long bytes, long blocks)
{
	char line[128];
	int n = snprintf(line, sizeof line, "%s %s %ld %ld\n", what, fn, bytes, blocks);

	if (write(2, line, (size_t)n) < 0)
		_exit(3);
}

static void *volatile sink;
static pthread_t workers[3];
static int nworkers, stop, busy;

/* Until stopped: 64 slots of blocks, each freed, reallocated or
 * replaced at random. */
static void *work(void *arg)
{
	void *slot[64] = { 0 };
	unsigned r = (unsigned)(uintptr_t)arg * 7919u + 1;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		unsigned i, n;

		if (!busy) {
			usleep(1000);
			continue;
		}
		r = r * 1103515245u + 12345u;
		i = (r >> 8) % 64;
		n = 1000 + (r >> 24) % 64;
		if ((r >> 20) & 1) {
			void *q = realloc(slot[i], n);

			if (q)
				slot[i] = q;
		} else {
			free(slot[i]);
			slot[i] = malloc(n);
		}
	}
	for (int i = 0; i < 64; i++)
		free(slot[i]);
	return NULL;
}

void heapearly_stop(void)
{
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < nworkers; i++)
		pthread_join(workers[i], NULL);
}

__attribute__((constructor(101))) static void heapearly_init(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "plain";
	size_t gone = strcmp(mode, "big") == 0 ? 2000000 : 700;
	void *p;

	heapearly_keep[0] = malloc(3000); /* freed by main */
	heapearly_account(3000, 1);
	sink = calloc(10, 500); /* live at the end */
	heapearly_account(5000, 1);
	sink = p = malloc(gone); /* freed before the start */
	heapearly_account((long)gone, 1);
	free(p);
	heapearly_account(-(long)gone, -1);
	p = malloc(100); /* reallocated before the start, and by main */
	heapearly_account(100, 1);
	heapearly_keep[1] = realloc(p, 2000);
	heapearly_account(1900, 0);
	p = malloc(64); /* a realloc that fails: still live at the end */
	heapearly_account(64, 1);
	if (realloc(p, SIZE_MAX / 2) != NULL)
		_exit(4);
	heapearly_keep[2] = p;
	if (posix_memalign(&p, 64, 256) != 0)
		_exit(4);
	sink = p;
	heapearly_account(256, 1);
	if (strcmp(mode, "many") == 0)
		for (int i = 0; i < 5000; i++) {
			sink = malloc(16);
			heapearly_account(16, 1);
		}
	if (strcmp(mode, "threads") == 0 || strcmp(mode, "idle") == 0) {
		busy = strcmp(mode, "threads") == 0;
		for (; nworkers < 3; nworkers++)
			if (pthread_create(&workers[nworkers], NULL, work, (void *)(uintptr_t)nworkers))
				_exit(4);
	}
}
#else
static void *volatile sink;

__attribute__((noinline)) void spike(void)
{
	sink = malloc(1 << 20);
	heapearly_account(1 << 20, 1);
	free(sink);
	heapearly_account(-(1 << 20), -1);
}

/* The program frees a block of the constructor's ... */
__attribute__((noinline)) void release_early(void)
{
	free(heapearly_keep[0]);
	heapearly_account(-3000, -1);
}

/* ... and reallocates another: 50 bytes of its own. */
__attribute__((noinline)) void resize_early(void)
{
	sink = realloc(heapearly_keep[1], 50);
	heapearly_account(50 - 2000, 0);
}

int main(void)
{
	struct timespec ts = { 0, 50000000 };
	long bytes, blocks;

	bytes = heapearly_live(&blocks);
	heapearly_say("start", "main", bytes, blocks);
	nanosleep(&ts, NULL);
	spike();
	release_early();
	resize_early();
	heapearly_stop();
	bytes = heapearly_live(&blocks);
	heapearly_say("live", "outside", bytes - 50, blocks - 1);
	heapearly_say("live", "resize_early", 50, 1);
	heapearly_say("peak", "main", heapearly_peak(), 0);
	return 0;
}
#endif
