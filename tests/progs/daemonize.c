/* daemon(3): the parent's work before the call, then the daemon's after
 * it.  glibc's daemon ends the parent by its own _exit, out of reach of
 * the runtime's _exit (Note [daemon's parent] in src/runtime/forkchild.c).
 * nochdir and noclose: the daemon keeps the directory and stdout, so its
 * line comes through the same pipe, and a reader of the pipe waits for
 * the daemon to end.  Prints what each process counted.
 *
 *   daemonize        as above
 *   daemonize fail   daemon's fork fails (RLIMIT_NPROC 0, as uid 65534
 *                    if root, to whom the limit does not apply): daemon
 *                    returns -1, and the process goes on in its own
 *                    right, its signal mask as it was
 *   daemonize detach FILE
 *                    daemon(0, 0): the daemon goes to / and puts
 *                    /dev/null on its standard streams; it writes to
 *                    FILE (a full path) its directory, what its streams
 *                    are, whether it leads a session, and its count */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/resource.h>
#include <unistd.h>

static int before_calls, after_calls;

__attribute__((noinline)) static int before_daemon(int i)
{
	before_calls++;
	return i * 3;
}

__attribute__((noinline)) static int after_daemon(int i)
{
	after_calls++;
	return i + 1;
}

/* No process more for this user: daemon's fork must fail. */
static int forbid_fork(void)
{
	struct rlimit none = { 0, 0 };

	if (getuid() == 0 && setuid(65534) != 0) {
		perror("setuid");
		return -1;
	}
	return setrlimit(RLIMIT_NPROC, &none);
}

static int blocked_signals(void)
{
	sigset_t now;
	int n = 0;

	sigprocmask(SIG_BLOCK, NULL, &now);
	for (int sig = 1; sig < 32; sig++)
		n += sigismember(&now, sig) == 1;
	return n;
}

/* What daemon(0, 0) made of this process, for `detach`: written to
 * FILE.tmp, then renamed, so that a reader sees all of it or nothing. */
static int describe(const char *file, int sum)
{
	char cwd[PATH_MAX], tmp[PATH_MAX], link[64], target[PATH_MAX];
	FILE *f;

	snprintf(tmp, sizeof tmp, "%s.tmp", file);
	if ((f = fopen(tmp, "w")) == NULL)
		return 1;
	fprintf(f, "cwd %s\n", getcwd(cwd, sizeof cwd) ? cwd : "?");
	for (int fd = 0; fd < 3; fd++) {
		ssize_t n;

		snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof target - 1);
		target[n < 0 ? 0 : n] = '\0';
		fprintf(f, "fd %d %s\n", fd, n < 0 ? "closed" : target);
	}
	fprintf(f, "session leader %s\n", getsid(0) == getpid() ? "yes" : "no");
	fprintf(f, "after_daemon %d (sum %d)\n", after_calls, sum);
	return fclose(f) != 0 || rename(tmp, file) != 0;
}

int main(int argc, char **argv)
{
	int fail = argc > 1 && strcmp(argv[1], "fail") == 0;
	int detach = argc > 2 && strcmp(argv[1], "detach") == 0;
	int sum = 0;

	for (int i = 0; i < 5; i++)
		sum += before_daemon(i);
	printf("parent: before_daemon %d\n", before_calls);
	fflush(stdout);
	if (fail && forbid_fork() != 0)
		return 1;
	if (fail) {
		int r = daemon(1, 1), e = errno;

		printf("daemon: %d (%s), %d signals blocked\n", r, r ? strerror(e) : "no error",
		       blocked_signals());
	} else if (detach) {
		if (daemon(0, 0) != 0) {
			perror("daemon");
			return 1;
		}
		for (int i = 0; i < 7; i++)
			sum += after_daemon(i);
		return describe(argv[2], sum);
	} else if (daemon(1, 1) != 0) {
		perror("daemon");
		return 1;
	}
	for (int i = 0; i < 7; i++)
		sum += after_daemon(i);
	printf("daemon: after_daemon %d (sum %d)\n", after_calls, sum);
	return 0;
}
