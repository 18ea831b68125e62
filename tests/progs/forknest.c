/* A fork inside a fork: the program's parent fork handler raises
 * SIGUSR1 while the interposed fork is still under way in the parent, and
 * the signal's handler forks.  That child, nested in the outer call,
 * must get its sampling thread all the same (Note [The child's sampler]
 * in src/runtime/forkchild.c): it spends SPIN_NS of CPU in spin() and
 * _exits.  Prints whether the inner fork happened. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpuspin.h"

#define SPIN_NS 60000000L

static volatile int raised;
static pid_t inner;

__attribute__((noinline)) static void spin(void)
{
	spin_cpu(SPIN_NS);
}

static void on_usr1(int sig)
{
	(void)sig;
	inner = fork();
	if (inner == 0) {
		spin();
		_exit(0);
	}
}

__attribute__((no_instrument_function)) static void parent_handler(void)
{
	if (!raised++)
		raise(SIGUSR1);
}

int main(void)
{
	int st;
	signal(SIGUSR1, on_usr1);
	pthread_atfork(NULL, parent_handler, NULL);
	pid_t outer = fork();
	if (outer == 0)
		_exit(0);
	waitpid(outer, &st, 0);
	waitpid(inner, &st, 0);
	printf("inner %s\n", inner > 0 ? "forked" : "failed");
	return 0;
}
