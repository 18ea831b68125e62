/*
 * Signals: argv[1] selects what happens.
 *   segv | fpe | abort | bus  crash inside crash_here() called from level2()
 *   term | int                raise the signal (default action) from work()
 *   handled                   a SIGINT handler of the program's own that
 *                             calls instrumented code, then exit(3)
 *   usr2                      raise SIGUSR2 (dump_signal), then go on
 *   nested                    a SIGALRM handler calling instrumented code
 *                             while the program is deep in recursion
 * The program prints what it did, so the runs with and without ccprof can
 * be compared line by line.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile int zero;
static volatile unsigned long sink;
static volatile sig_atomic_t ticks;

NOINLINE void crash_here(const char *how)
{
	if (strcmp(how, "segv") == 0)
		*(volatile int *)(long)zero = 1;
	else if (strcmp(how, "fpe") == 0)
		sink = (unsigned long)(100 / zero);
	else if (strcmp(how, "abort") == 0)
		abort();
	else if (strcmp(how, "bus") == 0)
		raise(SIGBUS);
}

NOINLINE void level2(const char *how) { crash_here(how); }

NOINLINE void in_handler(void) { sink++; }

NOINLINE void on_int(int sig)
{
	(void)sig;
	in_handler();
	printf("handled SIGINT\n");
	exit(3);
}

NOINLINE void on_alarm(int sig)
{
	(void)sig;
	in_handler();
	ticks++;
}

NOINLINE void spin(int depth)
{
	if (depth > 0) {
		spin(depth - 1);
		return;
	}
	while (ticks < 20)
		sink++;
}

NOINLINE void work(int sig)
{
	printf("raising %d\n", sig);
	fflush(stdout);
	raise(sig);
	printf("survived %d\n", sig);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "segv";

	setvbuf(stdout, NULL, _IONBF, 0);
	printf("start %s\n", how);
	if (strcmp(how, "term") == 0)
		work(SIGTERM);
	else if (strcmp(how, "int") == 0)
		work(SIGINT);
	else if (strcmp(how, "handled") == 0) {
		signal(SIGINT, on_int);
		work(SIGINT);
	} else if (strcmp(how, "usr2") == 0) {
		work(SIGUSR2);
	} else if (strcmp(how, "nested") == 0) {
		struct itimerval it = { { 0, 2000 }, { 0, 2000 } };

		signal(SIGALRM, on_alarm);
		setitimer(ITIMER_REAL, &it, NULL);
		spin(50);
		signal(SIGALRM, SIG_IGN);
		printf("ticks %d\n", (int)ticks);
	} else {
		level2(how);
	}
	printf("end\n");
	return 0;
}
