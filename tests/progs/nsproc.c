/*
 * nsproc.c - a process that makes a PID and a mount namespace, as
 * `unshare --pid --mount-proc` and bwrap do, and has its first child
 * mount a /proc there, which does not show the process itself: its
 * profile must still be written (Note [Another namespace's /proc at the
 * write] in src/runtime/sandbox.c).  Prints "unshare refused" and exits
 * 3 where it may not make them; else calls work() N times (default
 * 1000) and prints "calls work N".
 *
 *   nsproc init   makes a PID namespace and forks its PID 1, which sleeps
 *                 1.5 s and prints "child slept", or "child interrupted"
 *                 if a handler cut the sleep short; 0.3 s on, the parent
 *                 sends it SIGTERM, which at its default action does
 *                 nothing to init (Note [A namespace's init] in
 *                 src/runtime/signals.c), and prints how it ended.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long done;

__attribute__((noinline)) static void work(void)
{
	done++;
}

static int fork_init(void)
{
	struct timespec rest = {1, 500000000}, settle = {0, 300000000};
	int status;
	pid_t child;

	if (unshare(CLONE_NEWPID) != 0) {
		printf("unshare refused\n");
		return 3;
	}
	if ((child = fork()) < 0) {
		perror("nsproc: fork");
		return 2;
	}
	if (child == 0) {
		work();
		printf("child %s\n", nanosleep(&rest, NULL) == 0 ? "slept" : "interrupted");
		fflush(stdout);
		_exit(0);
	}
	nanosleep(&settle, NULL);
	kill(child, SIGTERM);
	waitpid(child, &status, 0);
	printf("child %s %d\n", WIFSIGNALED(status) ? "killed by" : "exited",
	       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	int status;

	if (argc > 1 && strcmp(argv[1], "init") == 0)
		return fork_init();

	if (unshare(CLONE_NEWPID | CLONE_NEWNS) != 0 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		printf("unshare refused\n");
		return 3;
	}
	pid_t child = fork();
	if (child < 0) {
		perror("nsproc: fork");
		return 2;
	}
	if (child == 0) {
		if (mount("proc", "/proc", "proc", 0, NULL) != 0) {
			perror("nsproc: mount");
			_exit(2);
		}
		_exit(0);
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "nsproc: the child did not mount /proc\n");
		return 2;
	}
	for (unsigned long i = 0; i < n; i++)
		work();
	printf("calls work %lu\n", (unsigned long)done);
	return 0;
}
