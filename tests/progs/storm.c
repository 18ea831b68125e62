/* A storm of signals whose handler runs instrumented code, delivered at
 * any instruction of the hooks: the shadow stack must stay in step, so
 * main is never lost from a history, and every call of a, b and c is
 * counted in a context of its own function.
 *
 * The handler calls a different one of NH functions each time, so for
 * its first NH signals in each of main's contexts it takes the slow path
 * and fills that context's transition caches while the interrupted hook
 * may be half-way through reading them (Note [Cache reads] in hooks.c). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include "repeat.h"

#define NH 1024

static volatile int stop;
static pthread_t main_thread;
static unsigned long na, nb, nc;

#define H(n) __attribute__((noinline)) static void h##n(void) { __asm__ volatile(""); }
#define PH(n) h##n,
X256(H, 0) X256(H, 1) X256(H, 2) X256(H, 3)
static void (*const handlers[NH])(void) = { X256(PH, 0) X256(PH, 1) X256(PH, 2) X256(PH, 3) };

__attribute__((noinline)) void b(void) { nb++; }
__attribute__((noinline)) void c(void) { nc++; }

__attribute__((noinline)) void a(void)
{
	na++;
	b();
	c();
}

static volatile unsigned handled;

void on_usr1(int sig)
{
	(void)sig;
	handlers[handled++ % NH]();
}

__attribute__((no_instrument_function)) static void *blaster(void *arg)
{
	while (!stop)
		pthread_kill(main_thread, SIGUSR1);
	return arg;
}

int main(void)
{
	struct timespec t0, t;
	pthread_t th;

	signal(SIGUSR1, on_usr1);
	main_thread = pthread_self();
	pthread_create(&th, NULL, blaster, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* A second at least; up to five while the handler has not yet taken
	 * the slow path in every context (a loaded machine delivers fewer). */
	do {
		for (int i = 0; i < 10000; i++)
			a();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 1 || (handled < 8 * NH && t.tv_sec - t0.tv_sec < 5));
	stop = 1;
	pthread_join(th, NULL);
	printf("calls a %lu\ncalls b %lu\ncalls c %lu\nhandled %u\n", na, nb, nc, handled);
	return 0;
}
