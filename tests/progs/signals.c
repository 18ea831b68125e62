/*
 * Signals: argv[1] selects what happens.
 *   segv | fpe | abort | bus  crash inside crash_here() called from level2()
 *   term | int                raise the signal (default action) from work()
 *   handled                   a SIGINT handler of the program's own that
 *                             calls instrumented code, then exit(3)
 *   reraise                   xz's way: a SIGINT handler of the
 *                             program's own notes the signal; the program
 *                             cleans up, restores the default action and
 *                             raises it again, to die by it
 *   pipe                      raise SIGPIPE (default action), as a write to
 *                             a closed pipe does
 *   usr2                      raise SIGUSR2 (dump_signal), then go on
 *   nested                    a SIGALRM handler calling instrumented code
 *                             while the program is deep in recursion
 *   wait                      print "waiting PID" from wait_here(), then
 *                             wait for a signal to end the process
 *   threads                   the same with two more threads waiting in
 *                             idle(), to take a second signal
 * The program prints what it did, so the runs with and without ccprof can
 * be compared line by line.
 */
#include <pthread.h>
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
static volatile sig_atomic_t caught;

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

NOINLINE void note(int sig)
{
	caught = sig;
}

NOINLINE void clean_up(void)
{
	struct sigaction dfl;

	printf("cleaning up after %d\n", (int)caught);
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigaction(caught, &dfl, NULL);
	raise(caught);
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

NOINLINE void wait_here(void)
{
	printf("waiting %ld\n", (long)getpid());
	for (;;)
		pause();
}

static pthread_barrier_t started;

NOINLINE void *idle(void *arg)
{
	pthread_barrier_wait(&started);
	for (;;)
		pause();
	return arg;
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
	} else if (strcmp(how, "reraise") == 0) {
		struct sigaction sa;

		memset(&sa, 0, sizeof sa);
		sa.sa_handler = note;
		sigaction(SIGINT, &sa, NULL);
		work(SIGINT);
		clean_up();
	} else if (strcmp(how, "pipe") == 0) {
		work(SIGPIPE);
	} else if (strcmp(how, "wait") == 0) {
		wait_here();
	} else if (strcmp(how, "threads") == 0) {
		pthread_t t;

		pthread_barrier_init(&started, NULL, 3);
		for (int i = 0; i < 2; i++)
			pthread_create(&t, NULL, idle, NULL);
		pthread_barrier_wait(&started);
		wait_here();
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
