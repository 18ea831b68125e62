/*
 * earlysig.c - siginterrupt called before the runtime has started: a
 * library's constructor runs before the preloaded runtime's, and what it
 * asks of glibc must hold when the program later calls signal (glibc's
 * signal leaves SA_RESTART out for the signals siginterrupt(sig, 1) named).
 *
 * Built twice: with -DEARLYSIG_LIB -shared -fPIC as libearlysig.so, whose
 * constructor calls siginterrupt for SIGUSR1 (a signal the runtime
 * handles) and SIGRTMIN+3 (one it leaves alone); and as the program,
 * linked with it, which installs a handler for each with signal and
 * prints the flags sigaction gives back.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* siginterrupt */

#ifdef EARLYSIG_LIB
__attribute__((constructor)) static void interrupting(void)
{
	siginterrupt(SIGUSR1, 1);
	siginterrupt(SIGRTMIN + 3, 1);
}
#else
static void note(int sig)
{
	(void)sig;
}

static void show(const char *name, int sig)
{
	struct sigaction sa;

	signal(sig, note);
	sigaction(sig, NULL, &sa);
	printf("%s: flags %#x\n", name, (unsigned)sa.sa_flags);
}

int main(void)
{
	show("SIGUSR1", SIGUSR1);
	show("SIGRTMIN+3", SIGRTMIN + 3);
	return 0;
}
#endif
