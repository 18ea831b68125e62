/*
 * latesig.c - the program installs a handler for dump_signal (SIGUSR1
 * here) after the runtime started, as xz does for its progress line.  The
 * runtime's handler stands in front of it (Note [Handlers present at
 * start] in src/runtime/dispositions.c): each SIGUSR1 writes the profile,
 * then runs the program's handler.  Before, the program's handler took
 * the runtime's place and no SIGUSR1 wrote anything.
 *
 *   latesig sigaction|signal|sysv
 *        installs on_usr1 by that call (sysv: SA_RESETHAND, as
 *        sysv_signal), prints what sigaction then says of SIGUSR1, and
 *        raises SIGUSR1 three times, calling step() before each.  sysv's
 *        second SIGUSR1 kills by the default action.
 *
 * Prints "handled N" as it goes.  With LATESIG_PROFILE=PATH the handler
 * also looks for PATH and removes it, and "dumps seen N" goes to stderr:
 * each dump written before the handler ran is seen once.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t handled, seen;
static const char *profile;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
	if (profile && access(profile, F_OK) == 0 && unlink(profile) == 0)
		seen++;
}

int step(int i)
{
	return i * 3;
}

static void install(const char *how)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	sa.sa_flags = SA_RESTART;
	if (strcmp(how, "signal") == 0)
		signal(SIGUSR1, on_usr1);
	else if (strcmp(how, "sysv") == 0)
		sysv_signal(SIGUSR1, on_usr1);
	else
		sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR1, NULL, &sa);
	printf("SIGUSR1: ours %d, SA_RESTART %d, SA_RESETHAND %d, SIGUSR2 in mask %d\n",
	       sa.sa_handler == on_usr1, !!(sa.sa_flags & SA_RESTART),
	       !!(sa.sa_flags & SA_RESETHAND), sigismember(&sa.sa_mask, SIGUSR2));
}

int main(int argc, char **argv)
{
	int sum = 0;

	profile = getenv("LATESIG_PROFILE");
	install(argc > 1 ? argv[1] : "sigaction");
	for (int i = 0; i < 3; i++) {
		sum += step(i);
		fflush(stdout);
		if (profile)
			fprintf(stderr, "dumps seen %d\n", (int)seen);
		raise(SIGUSR1);
		printf("handled %d\n", (int)handled);
	}
	if (profile)
		fprintf(stderr, "dumps seen %d\n", (int)seen);
	return sum == 9 ? 0 : 1;
}
