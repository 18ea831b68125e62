/* Ways out of a process that bypass part of the usual exit:
 *   quick    at_quick_exit handler, quick_exit(4): no atexit, no destructors
 *   _Fork    a child made by _Fork(), which runs no fork handlers, calls
 *            exit(3); the parent waits and exits 0
 *   dtor     main returns; a destructor function calls work() after every
 *            atexit handler (in a static link too)
 *   fexecve  exec /bin/echo through fexecve, which does not call execve
 *   _exit    _exit(6): no exit handlers; the preloaded runtime writes
 *            the profile first (src/runtime/rawexit.c)
 *   exit_group  the exit_group system call, 6: past every libc function,
 *            so no profile
 * Each prints "calls work N" with the count the profile must hold. */
#define _GNU_SOURCE /* _Fork */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static unsigned long nwork;

__attribute__((noinline)) void work(void) { nwork++; }

static void at_quick(void)
{
	work();
	printf("calls work %lu\n", nwork);
	fflush(stdout); /* quick_exit does not */
}

__attribute__((destructor)) static void late(void)
{
	if (nwork == 10) { /* mode dtor: main returned */
		work();
		printf("calls work %lu\n", nwork);
	}
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "dtor";

	for (int i = 0; i < 10; i++)
		work();
	fflush(stdout);
	if (strcmp(how, "quick") == 0) {
		at_quick_exit(at_quick);
		quick_exit(4);
	}
	if (strcmp(how, "_Fork") == 0) {
		pid_t pid = _Fork();
		int status;

		if (pid == 0) {
			work();
			exit(3);
		}
		waitpid(pid, &status, 0);
		printf("child exit %d\ncalls work %lu\n", WEXITSTATUS(status), nwork);
		nwork++; /* no destructor call */
		return 0;
	}
	if (strcmp(how, "_exit") == 0)
		_exit(6);
	if (strcmp(how, "exit_group") == 0)
		syscall(SYS_exit_group, 6);
	if (strcmp(how, "fexecve") == 0) {
		char *args[] = { "echo", "exec'd", NULL };
		int fd = open("/bin/echo", O_RDONLY | O_CLOEXEC);

		printf("calls work %lu\n", nwork);
		fflush(stdout);
		fexecve(fd, args, environ);
		perror("fexecve");
		return 1;
	}
	return 0;
}
