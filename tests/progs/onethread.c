/*
 * onethread.c - whether the profiled program is still single-threaded in
 * glibc's eyes (Note [A helper glibc does not count] in
 * src/runtime/rawthread.c).  It works in work() for ~0.2 s of CPU, then
 * prints glibc's __libc_single_threaded and how many tasks the process
 * has (the sampler's among them).
 *
 *   onethread plain   the above
 *   onethread thread  then makes a thread of its own, which works too,
 *                     and prints the flag again after joining it
 *   onethread fork    then forks; the child works and prints its own
 *   onethread exec    then tries to exec a program that is not there,
 *                     works again and prints the flag again (the
 *                     profiler restarts its sampler after the failure)
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tasks.h"

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long step(unsigned long x)
{
	return x * 2654435761u + 1;
}

__attribute__((noinline)) static void work(void)
{
	unsigned long x = 1;

	for (long i = 0; i < 3000000; i++)
		x = step(x);
	sink = x;
}

static void say(const char *who)
{
	printf("%s single=%d tasks=%d\n", who, __libc_single_threaded, tasks());
	fflush(stdout);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++)
		work();
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "plain";

	for (int i = 0; i < 20; i++)
		work();
	say("main");
	if (strcmp(mode, "thread") == 0) {
		pthread_t t;

		if (pthread_create(&t, NULL, worker, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
		say("joined");
	} else if (strcmp(mode, "fork") == 0) {
		pid_t child = fork();
		int status;

		if (child == 0) {
			for (int i = 0; i < 20; i++)
				work();
			say("child");
			return 0;
		}
		if (child < 0 || waitpid(child, &status, 0) != child)
			return 1;
		return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	} else if (strcmp(mode, "exec") == 0) {
		char *args[] = {"/nonexistent/onethread-no-such-program", NULL};

		if (execv(args[0], args) == 0 || errno != ENOENT)
			return 1;
		for (int i = 0; i < 20; i++)
			work();
		say("after exec");
	}
	return 0;
}
