/* Past the context budget in one thread of two: a thread named "spread"
 * calls each of K functions R times, and each calls leaf(), so it has 2 + 2K
 * contexts (its root, spread, each f and each f's leaf); the main thread
 * has 3 (its root, main and main's leaf).  With
 * max_contexts=16, spread keeps its root, itself and the first 7 pairs,
 * and the calls of f7 .. f(K-1) and their leaves, all R rounds of them,
 * go to overflow contexts.  Prints K, R and every function's calls.  An
 * argument is the thread's name instead of "spread" (at most 15 bytes). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#define K 12
#define R 50

static int calls[K], leaf_calls;
static volatile unsigned sink;

__attribute__((noinline)) static void leaf(void)
{
	leaf_calls++;
	sink++;
}

#define F(i)                                     \
	__attribute__((noinline)) static void f##i(void) \
	{                                        \
		calls[i]++;                      \
		leaf();                          \
	}
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11)

static void (*const table[K])(void) = {f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11};

__attribute__((noinline)) static void *spread(void *arg)
{
	pthread_setname_np(pthread_self(), arg);
	for (int r = 0; r < R; r++)
		for (int i = 0; i < K; i++)
			table[i]();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;

	leaf();
	if (pthread_create(&th, NULL, spread, argc > 1 ? argv[1] : "spread") != 0)
		return 1;
	pthread_join(th, NULL);
	printf("K %d R %d\n", K, R);
	for (int i = 0; i < K; i++)
		printf("calls f%d %d\n", i, calls[i]);
	printf("calls leaf %d\n", leaf_calls);
	return 0;
}
