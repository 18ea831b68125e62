/*
 * heapwide.c - many contexts, few of them holding heap, for tests/heap.py
 * (Note [Contexts a heap sample reads] in src/runtime/heap.c).
 *
 *   heapwide K   enters each of the 2^K - 1 chains of g0 .. g(K-1) (as
 *                manyctx.c does) once without allocating, then again
 *                in a scrambled order, in which the chains whose number
 *                is a multiple of 97 allocate a block and keep it (in
 *                keep(), entered on the first round too): the
 *                contexts hold their first block in an order other than
 *                the one they were made in.  Then a thread allocates in
 *                held_by_ended() and ends, keeping its block; a second
 *                thread, which may take the first one's state, allocates
 *                and frees a block at the end of each chain of g0 .. g9,
 *                over and over, while main waits 60 ms in waits() for
 *                heap samples to come.  Prints "blocks N bytes B" for
 *                the kept ones.
 *   heapwide K free   the same, but every chain allocates, and frees
 *                each block at once (the thread too): 2^K contexts held
 *                a block, none holds one at the end.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_K 16

typedef void (*gfn)(unsigned mask);

static int k;
static int allocating, free_at_once;
static unsigned long nblocks, nbytes;
static void *kept[(1u << MAX_K) / 97 + 3];
static const gfn table[MAX_K];

static _Thread_local int churning;
static volatile int stop;

/* Through a volatile pointer: gcc removes a free(malloc(n)). */
__attribute__((noinline)) static void churn_one(void)
{
	void *volatile p = malloc(24);

	free(p);
}

/* Allocates only on the second round: the first makes its contexts. */
__attribute__((noinline)) static void keep(size_t bytes)
{
	void *p;

	if (!allocating)
		return;
	if ((p = malloc(bytes)) == NULL)
		abort();
	nbytes += bytes;
	if (free_at_once)
		free(p);
	else
		kept[nblocks++] = p;
}

/* The next member of the subset after `from`, if any; the last one
 * allocates when its chain's number is a multiple of 97. */
__attribute__((no_instrument_function)) static void next(unsigned mask, int from)
{
	unsigned rest = mask >> (from + 1);

	if (rest)
		table[from + 1 + __builtin_ctz(rest)](mask);
	else if (churning)
		churn_one();
	else if (mask % 97 == 0 || free_at_once)
		keep(mask % 61 + 1);
}

#define G(i)                                                      \
	__attribute__((noinline)) static void g##i(unsigned mask) \
	{                                                         \
		next(mask, i);                                    \
	}
G(0) G(1) G(2) G(3) G(4) G(5) G(6) G(7) G(8) G(9) G(10) G(11) G(12) G(13) G(14) G(15)

static const gfn table[MAX_K] = {g0, g1, g2,  g3,  g4,  g5,  g6,  g7,
				 g8, g9, g10, g11, g12, g13, g14, g15};

__attribute__((noinline)) static void held_by_ended(void)
{
	keep(12345);
}

static void *first_thread(void *arg)
{
	(void)arg;
	held_by_ended();
	return NULL;
}

/* Until main has waited: a block allocated and freed at the end of each
 * chain of g0 .. g9, which come to hold blocks between a sample's count
 * and its copy. */
static void *second_thread(void *arg)
{
	(void)arg;
	churning = 1;
	while (!stop)
		for (unsigned mask = 1; mask < 1024; mask++)
			next(mask, -1);
	return NULL;
}

__attribute__((noinline)) static void waits(void)
{
	struct timespec t = {0, 60000000};

	nanosleep(&t, NULL);
}

static void run_thread(void *(*body)(void *))
{
	pthread_t th;

	if (pthread_create(&th, NULL, body, NULL) != 0 || pthread_join(th, NULL) != 0)
		abort();
}

static void wait_beside_churn(void)
{
	pthread_t th;

	if (pthread_create(&th, NULL, second_thread, NULL) != 0)
		abort();
	waits();
	stop = 1;
	if (pthread_join(th, NULL) != 0)
		abort();
}

int main(int argc, char **argv)
{
	unsigned n;

	k = argc > 1 ? atoi(argv[1]) : 14;
	free_at_once = argc > 2 && strcmp(argv[2], "free") == 0;
	if (k < 8 || k > MAX_K)
		return 2;
	n = 1u << k;
	for (unsigned mask = 1; mask < n; mask++)
		next(mask, -1);
	allocating = 1;
	/* 40503 is odd: mask -> mask * 40503 mod n visits every chain once */
	for (unsigned i = 1; i < n; i++)
		next((i * 40503u) & (n - 1), -1);
	run_thread(first_thread);
	wait_beside_churn();
	printf("blocks %lu bytes %lu\n", nblocks, nbytes);
	return 0;
}
