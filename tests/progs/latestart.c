/*
 * latestart.c - built with -finstrument-functions, but only burn_a and
 * burn_b are instrumented: a process whose first instrumented call comes
 * late, or never (Note [The sampler waits for the first call] in
 * src/runtime/sampler.c).  It prints its own voluntary context switches
 * (all its threads', the sampler's included) as "nvcsw N".
 *
 *   latestart idle        no instrumented call: sleeps 1 s
 *   latestart late        sleeps 200 ms, then burn_a and burn_b take
 *                         60 ms of CPU each
 *   latestart lastthread  no instrumented call: main ends by pthread_exit
 *                         while a thread sleeps 150 ms; the process must
 *                         end when that thread does (Note [Last thread])
 *   latestart rawexit     no instrumented call: main ends by the exit
 *                         system call itself, with status 3, and so does
 *                         the process (Note [A leader that died alone])
 *   latestart forkidle    main calls burn_a (1 ms), then a thread that
 *                         never calls instrumented code forks: the child,
 *                         with no thread state, sleeps 1 s and prints
 *                         its own count ("child nvcsw N")
 *   latestart quiet       burn_a, a 1 s sleep, burn_b; prints the sleep's
 *                         own switches as "quiet nvcsw N" (Note [Quiet
 *                         samples])
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PLAIN __attribute__((no_instrument_function))

PLAIN static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0)
		;
}

PLAIN static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

PLAIN static void spin(double ms)
{
	double end = cpu_ms() + ms;
	volatile unsigned x = 0;

	while (cpu_ms() < end)
		for (int i = 0; i < 1000; i++)
			x += (unsigned)i;
}

static double burn_ms = 60;

__attribute__((noinline)) void burn_a(void)
{
	spin(burn_ms);
}

__attribute__((noinline)) void burn_b(void)
{
	spin(60);
}

PLAIN static void *sleeper(void *arg)
{
	(void)arg;
	sleep_ms(150);
	return NULL;
}

PLAIN static void *forker(void *arg)
{
	struct rusage ru;
	pid_t pid = fork();

	(void)arg;
	if (pid == 0) {
		sleep_ms(1000);
		getrusage(RUSAGE_SELF, &ru);
		printf("child nvcsw %ld\n", ru.ru_nvcsw);
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	return NULL;
}

PLAIN int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "idle";
	struct rusage ru;

	if (strcmp(mode, "quiet") == 0) {
		long before;

		burn_a();
		getrusage(RUSAGE_SELF, &ru);
		before = ru.ru_nvcsw;
		sleep_ms(1000);
		getrusage(RUSAGE_SELF, &ru);
		printf("quiet nvcsw %ld\n", ru.ru_nvcsw - before);
		burn_b();
	} else if (strcmp(mode, "late") == 0) {
		sleep_ms(200);
		burn_a();
		burn_b();
	} else if (strcmp(mode, "forkidle") == 0) {
		pthread_t t;

		burn_ms = 1;
		burn_a();
		pthread_create(&t, NULL, forker, NULL);
		pthread_join(t, NULL);
	} else if (strcmp(mode, "rawexit") == 0) {
		puts("main exits");
		fflush(stdout);
		syscall(SYS_exit, 3);
	} else if (strcmp(mode, "lastthread") == 0) {
		pthread_t t;

		pthread_create(&t, NULL, sleeper, NULL);
		puts("main exits");
		fflush(stdout);
		pthread_exit(NULL);
	} else {
		sleep_ms(1000);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("nvcsw %ld\n", ru.ru_nvcsw);
	return 0;
}
