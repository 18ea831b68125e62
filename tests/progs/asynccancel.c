/* Threads that enable asynchronous cancellation and call only their own
 * code, which makes new contexts all the time (64^3 call chains h -> g ->
 * f), so that the runtime's slow path is busy when the cancellation
 * comes: it must not be cancelled holding a lock or with a table
 * half-built (Note [Cancellation] in src/runtime/cancel.c).
 *
 *   asynccancel DELAY_US   cancel 4 such threads after DELAY_US, join
 *                          them, call more functions, print "ok" */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NTHREADS 4

static volatile unsigned long sink;

#define D8(M, p) M(p##0) M(p##1) M(p##2) M(p##3) M(p##4) M(p##5) M(p##6) M(p##7)
#define D64(M) D8(M, 0) D8(M, 1) D8(M, 2) D8(M, 3) D8(M, 4) D8(M, 5) D8(M, 6) D8(M, 7)

#define F(n) __attribute__((noinline)) void f##n(void) { sink += 1; }
D64(F)
#define FP(n) f##n,
static void (*const fs[64])(void) = { D64(FP) };

#define G(n) __attribute__((noinline)) void g##n(void) { for (int i = 0; i < 64; i++) fs[i](); }
D64(G)
#define GP(n) g##n,
static void (*const gs[64])(void) = { D64(GP) };

#define H(n) __attribute__((noinline)) void h##n(void) { for (int i = 0; i < 64; i++) gs[i](); }
D64(H)
#define HP(n) h##n,
static void (*const hs[64])(void) = { D64(HP) };

static void *body(void *arg)
{
	int old;

	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
	for (;;)
		for (int k = 0; k < 64; k++)
			hs[k]();
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[NTHREADS];
	int i;

	for (i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, body, NULL);
	usleep(argc > 1 ? (useconds_t)atoi(argv[1]) : 1000);
	for (i = 0; i < NTHREADS; i++)
		pthread_cancel(t[i]);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 8; i++) /* new functions: the cost-centre lock */
		hs[63 - i]();
	puts("ok");
	return 0;
}
