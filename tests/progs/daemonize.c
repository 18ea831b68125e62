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
 *                    right, its signal mask as it was */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(int argc, char **argv)
{
	int fail = argc > 1 && strcmp(argv[1], "fail") == 0;
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
	} else if (daemon(1, 1) != 0) {
		perror("daemon");
		return 1;
	}
	for (int i = 0; i < 7; i++)
		sum += after_daemon(i);
	printf("daemon: after_daemon %d (sum %d)\n", after_calls, sum);
	return 0;
}
