/*
 * forkorder.c - two children forked one after the other, the first of
 * which runs its fork handlers late: record names them in the order they
 * were forked (rt_dump_fork_time in src/runtime/dump.c).  The child's
 * start was read in the child, after the fork, and nginx's workers were
 * named in the order the scheduler first ran them.
 *
 * Built twice: with -DFORKORDER_LIB -shared -fPIC as libforkorder.so,
 * whose constructor (run before the preloaded runtime's) registers a fork
 * handler that holds the first child 300 ms before the runtime's own
 * handler runs in it; and as the program, linked with it.  Prints
 * "child N PID" for each child in the order forked, and each child's
 * work() is counted in its own profile.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef FORKORDER_LIB
static int forks; /* in the parent; a child inherits its own number */

static void count(void)
{
	forks++;
}

static void hold_first(void)
{
	struct timespec t = {0, 300000000};

	if (forks == 1)
		nanosleep(&t, NULL);
}

__attribute__((constructor)) static void install(void)
{
	pthread_atfork(count, NULL, hold_first);
}
#else
int work(int x)
{
	return x + 1;
}

int main(void)
{
	pid_t kids[2];

	for (int i = 0; i < 2; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			return 1;
		if (kids[i] == 0)
			exit(work(i) == i + 1 ? 0 : 1);
	}
	for (int i = 0; i < 2; i++) {
		int status;

		if (waitpid(kids[i], &status, 0) != kids[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			return 1;
		printf("child %d %ld\n", i + 1, (long)kids[i]);
	}
	return 0;
}
#endif
