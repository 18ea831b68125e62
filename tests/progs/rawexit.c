/* Ends by _exit or _Exit in several ways (Note [Ending by _exit] in
 * src/runtime/rawexit.c).  Usage: rawexit MODE; MODE is
 *   main     work, then _exit(3) from main
 *   Exit     work, then _Exit(4)
 *   child    a forked child works and ends by _exit(0); the parent waits
 *            and ends by exit(5)
 *   vfork    a vfork child that cannot exec ends by _exit(127); the
 *            parent works and returns 6
 *   handler  work, then SIGUSR1's handler ends by _exit(7)
 *   atexit   work, then exit(0), whose atexit handler ends by _exit(8)
 *   thread   work, then a second thread ends the process by _exit(9)
 *            while main waits
 *   altstack work, then SIGUSR1's handler, on an 8 KB alternate signal
 *            stack, ends by _exit(10): the write needs more room
 *   short    burns about 30 ms of CPU, says how much ("cpu_ms N") in the
 *            file $RAWEXIT_CPU_MS if set (else on stderr, where it made
 *            the bare and the profiled run's differ by the rounding:
 *            30 against 31), then _exit(11): run at a 50 ms interval,
 *            the sampler never woke
 * Prints, before it ends (to stderr, unbuffered: _exit flushes no stdio),
 * the calls each function made, "calls NAME N". */
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) static void leaf(int i)
{
	sink += i;
}

__attribute__((noinline)) static void work(int n)
{
	for (int i = 0; i < n; i++)
		leaf(i);
}

static void said(int work_calls, int leaf_calls)
{
	fprintf(stderr, "calls work %d\ncalls leaf %d\n", work_calls, leaf_calls);
}

__attribute__((noinline)) static void on_usr1(int sig)
{
	(void)sig;
	_exit(7);
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static void burn(double ms)
{
	double end = cpu_ms() + ms;

	while (cpu_ms() < end)
		sink++;
}

static void on_alt_stack(int sig, void (*handler)(int))
{
	static char stack[8192];
	stack_t ss = { .ss_sp = stack, .ss_size = sizeof stack };
	struct sigaction sa;

	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sa.sa_flags = SA_ONSTACK;
	sigaction(sig, &sa, NULL);
}

__attribute__((noinline)) static void on_usr1_alt(int sig)
{
	(void)sig;
	_exit(10);
}

__attribute__((noinline)) static void at_end(void)
{
	_exit(8);
}

__attribute__((noinline)) static void *ender(void *arg)
{
	(void)arg;
	work(10);
	_exit(9);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "main";
	pthread_t t;

	if (strcmp(mode, "child") == 0) {
		pid_t pid = fork();
		if (pid == 0) {
			work(30);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
		work(20);
		said(1, 20);
		exit(5);
	}
	if (strcmp(mode, "vfork") == 0) {
		pid_t pid = vfork();
		if (pid == 0) {
			execl("/nonexistent/program", "x", (char *)NULL);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
		work(40);
		said(1, 40);
		return 6;
	}
	if (strcmp(mode, "short") == 0) {
		double start = cpu_ms();
		const char *path = getenv("RAWEXIT_CPU_MS");
		FILE *f;

		burn(30);
		f = path ? fopen(path, "w") : stderr;
		if (f) {
			fprintf(f, "cpu_ms %.0f\n", cpu_ms() - start);
			fflush(f);
		}
		_exit(11);
	}
	work(50);
	if (strcmp(mode, "thread") == 0) {
		said(2, 60);
		pthread_create(&t, NULL, ender, NULL);
		pause();
	}
	said(1, 50);
	if (strcmp(mode, "Exit") == 0)
		_Exit(4);
	if (strcmp(mode, "handler") == 0) {
		signal(SIGUSR1, on_usr1);
		raise(SIGUSR1);
	}
	if (strcmp(mode, "altstack") == 0) {
		on_alt_stack(SIGUSR1, on_usr1_alt);
		raise(SIGUSR1);
	}
	if (strcmp(mode, "atexit") == 0) {
		atexit(at_end);
		exit(0);
	}
	_exit(3);
}
