/* A storm of signals whose handler runs instrumented code, delivered at
 * any instruction of the hooks: the shadow stack must stay in step, so
 * main is never lost from a history. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

static volatile int stop;
static pthread_t main_thread;
static unsigned long na;

__attribute__((noinline)) void h(void) { }
__attribute__((noinline)) void b(void) { }
__attribute__((noinline)) void c(void) { }

__attribute__((noinline)) void a(void)
{
	na++;
	b();
	c();
}

void on_usr1(int sig)
{
	(void)sig;
	h();
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
	do {
		for (int i = 0; i < 10000; i++)
			a();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 1);
	stop = 1;
	pthread_join(th, NULL);
	printf("calls a %lu\n", na);
	return 0;
}
