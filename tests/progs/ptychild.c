/* forkpty(3): the child on a new pseudo-terminal, the parent reading it.
 * The child says what its standard streams are and whether it leads a
 * session with the terminal as its controlling one, then exits 3; the
 * parent prints what it read, less carriage returns, and the child's
 * status.  src/runtime/forkchild.c does glibc's work itself in a program
 * linked with libccprof.a and -static; this compares it with the bare
 * program's libc. */
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

static int child_calls, parent_calls;

__attribute__((noinline)) static int in_child(void)
{
	char name[64];
	int fd;

	child_calls++;
	printf("child: isatty %d %d %d\n", isatty(0), isatty(1), isatty(2));
	printf("child: session leader %s\n", getsid(0) == getpid() ? "yes" : "no");
	printf("child: foreground group is ours %s\n", tcgetpgrp(0) == getpgrp() ? "yes" : "no");
	fd = open("/dev/tty", O_RDWR);
	printf("child: /dev/tty opens %s\n", fd >= 0 ? "yes" : "no");
	printf("child: stdin is %s\n", ttyname_r(0, name, sizeof name) == 0 &&
					       strncmp(name, "/dev/pts/", 9) == 0 ? "a pts" : "?");
	printf("child: %d call\n", child_calls);
	fflush(stdout);
	return 3;
}

__attribute__((noinline)) static void in_parent(int master, pid_t pid)
{
	char buf[512];
	ssize_t n;
	int status;

	parent_calls++;
	/* fwrite, not putchar: glibc's stdio.h has putchar inline, and
	 * clang hooks it as a function of the program's. */
	while ((n = read(master, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
		size_t kept = 0;

		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != '\r')
				buf[kept++] = buf[i];
		fwrite(buf, 1, kept, stdout);
	}
	waitpid(pid, &status, 0);
	printf("parent: child exit %d, %d call\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
	       parent_calls);
}

int main(void)
{
	struct winsize ws = { 24, 80, 0, 0 };
	int master = -1;
	pid_t pid;

	fflush(stdout);
	pid = forkpty(&master, NULL, NULL, &ws);
	if (pid < 0) {
		perror("forkpty");
		return 1;
	}
	if (pid == 0)
		return in_child();
	in_parent(master, pid);
	close(master);
	return 0;
}
