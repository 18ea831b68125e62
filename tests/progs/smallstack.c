/* A thread with the smallest stack pthreads allows (PTHREAD_STACK_MIN,
 * 16 KB here) starts a program with posix_spawn, as a worker thread of a
 * server might: the interposed posix_spawn (src/runtime/exec.c) must fit
 * in what glibc's own leaves of that stack. */
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>

extern char **environ;

__attribute__((noinline)) void work(void) { }

static void *spawner(void *arg)
{
	char *argv[] = {"true", NULL};
	pid_t pid;
	int status = -1, rc;

	(void)arg;
	work();
	rc = posix_spawnp(&pid, "true", NULL, NULL, argv, environ);
	if (rc == 0)
		waitpid(pid, &status, 0);
	printf("posix_spawnp %d, exit status %d\n", rc, status);
	return NULL;
}

int main(void)
{
	pthread_attr_t attr;
	pthread_t t;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN);
	work();
	if (pthread_create(&t, &attr, spawner, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	printf("calls work 2\ncalls spawner 1\ncalls main 1\n");
	return 0;
}
