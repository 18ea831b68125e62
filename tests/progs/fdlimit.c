/* fdlimit.c - a process with every descriptor its RLIMIT_NOFILE allows
 * open (soft and hard limit 16), the last one a file it holds a POSIX
 * record lock through, that calls work() N times and then ends:
 * exit (return from main), _exit, term (raise SIGTERM), or dump
 * (ccprof_dump, then a check that its last descriptor is still open and
 * its lock still held, seen from a child, then exit).  Usage: fdlimit
 * exit|_exit|term|dump N.  A profile must be written all the same (Note
 * [At the descriptor limit] in src/runtime/dump.c). */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ccprof.h"

#define LIMIT 16

static volatile unsigned long sink;

__attribute__((noinline)) static void work(void)
{
	sink++;
}

/* Fills the table: /dev/null up to LIMIT - 2, the locked file last. */
static int fill(void)
{
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct rlimit r = { LIMIT, LIMIT };
	int fd;

	if (setrlimit(RLIMIT_NOFILE, &r) != 0)
		return -1;
	while ((fd = open("/dev/null", O_RDONLY)) >= 0 && fd < LIMIT - 2)
		;
	if (fd != LIMIT - 2)
		return -1;
	fd = open("locked", O_RDWR | O_CREAT, 0644);
	if (fd != LIMIT - 1 || fcntl(fd, F_SETLK, &lk) != 0 || open("/dev/null", O_RDONLY) >= 0)
		return -1;
	return fd;
}

/* Whether another process finds our lock on the file. */
static int lock_held(int fd)
{
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(fcntl(fd, F_GETLK, &lk) == 0 && lk.l_type == F_WRLCK &&
		      lk.l_pid == getppid() ? 0 : 1);
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "exit";
	int n = argc > 2 ? atoi(argv[2]) : 100, fd = fill();

	if (fd < 0) {
		perror("fill");
		return 2;
	}
	for (int i = 0; i < n; i++)
		work();
	printf("work %d\n", n);
	fflush(stdout);
	if (strcmp(how, "_exit") == 0)
		_exit(0);
	if (strcmp(how, "term") == 0)
		raise(SIGTERM);
	if (strcmp(how, "dump") == 0) {
		ccprof_dump();
		printf("descriptor %s, lock %s\n", fcntl(fd, F_GETFD) >= 0 ? "open" : "closed",
		       lock_held(fd) ? "held" : "gone");
	}
	return 0;
}
