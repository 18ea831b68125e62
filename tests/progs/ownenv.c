/*
 * ownenv.c - a forked child execs with an environment the program builds
 * (Note [An environment the program makes] in src/runtime/exec.c), as
 * nginx's binary upgrade does.
 *
 *   ownenv keep    the child execs this program ("image") with LD_PRELOAD
 *                  alone, as the parent had it: the image runs profiled
 *   ownenv clean   the child execs /usr/bin/env with FOO=1 and TZ=UTC
 *                  only: env must print exactly those two
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void work(void)
{
	for (unsigned long i = 0; i < 3000000; i++)
		sink += i;
}

static void keep(char *self)
{
	char preload[4096];
	const char *value = getenv("LD_PRELOAD");
	char *argv[] = {self, "image", NULL};
	char *envp[] = {preload, NULL};

	snprintf(preload, sizeof preload, "LD_PRELOAD=%s", value ? value : "");
	execve("/proc/self/exe", argv, envp);
	_exit(127);
}

static void clean(void)
{
	char *argv[] = {"/usr/bin/env", NULL};
	char *envp[] = {"FOO=1", "TZ=UTC", NULL};

	execve(argv[0], argv, envp);
	_exit(127);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "keep";
	int status;
	pid_t pid;

	work();
	if (strcmp(mode, "image") == 0) {
		puts("image ran");
		return 0;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (strcmp(mode, "clean") == 0)
			clean();
		keep(argv[0]);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
