/* The exec family in a statically linked program (libccprof.a linked in:
 * runtime/execsys.c).  argv[1] picks the call, made by a forked child:
 *   execv      /proc/self/exe
 *   execvp     this program by its name, found through PATH
 *   script     a file in PATH without an interpreter line (ENOEXEC: sh)
 *   fexecve    a descriptor of /proc/self/exe
 *   fexecvenull  the same with a null environment (EINVAL)
 *   missing    a name in no PATH directory (ENOENT)
 *   denied     a file in PATH that may not be run (EACCES)
 *   spawnp     posix_spawnp of this program by its name
 * The image prints "image" and calls image_work; the parent prints how
 * the child ended.  The test gives PATH and the files. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

__attribute__((noinline)) void parent_work(void) { }
__attribute__((noinline)) void image_work(void) { }

static void exec_as(const char *how, const char *name)
{
	char *argv[] = {(char *)name, "image", "arg", NULL};

	if (strcmp(how, "execv") == 0)
		execv("/proc/self/exe", argv);
	else if (strcmp(how, "execvp") == 0)
		execvp(name, argv);
	else if (strcmp(how, "script") == 0)
		execvp("staticexec-script", argv);
	else if (strcmp(how, "fexecve") == 0)
		fexecve(open("/proc/self/exe", O_RDONLY | O_CLOEXEC), argv, environ);
	else if (strcmp(how, "fexecvenull") == 0)
		fexecve(open("/proc/self/exe", O_RDONLY | O_CLOEXEC), argv, NULL);
	else if (strcmp(how, "missing") == 0)
		execvp("staticexec-nowhere", argv);
	else if (strcmp(how, "denied") == 0)
		execvp("staticexec-denied", argv);
	printf("%s failed: %s\n", how, strerrorname_np(errno));
	fflush(stdout);
	_exit(127);
}

static void report(int status)
{
	if (WIFEXITED(status))
		printf("child exited %d\n", WEXITSTATUS(status));
	else
		printf("child died by %d\n", WTERMSIG(status));
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "execv";
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	int status;
	pid_t pid;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(how, "image") == 0) {
		image_work();
		printf("image %s\n", argc > 2 ? argv[2] : "");
		return 0;
	}
	parent_work();
	if (strcmp(how, "spawnp") == 0) {
		char *child[] = {(char *)name, "image", "spawned", NULL};
		int e = posix_spawnp(&pid, name, NULL, NULL, child, environ);

		if (e != 0) {
			printf("posix_spawnp failed: %s\n", strerrorname_np(e));
			return 1;
		}
	} else if ((pid = fork()) == 0) {
		exec_as(how, name);
	}
	waitpid(pid, &status, 0);
	report(status);
	return 0;
}
