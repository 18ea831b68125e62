/* unshare(CLONE_NEWPID), then a child, which is pid 1 of the new
 * namespace: the process that unshared can start no thread any more
 * (the kernel refuses CLONE_THREAD once its children's pid namespace is
 * not its own), so the sampler cannot start again after the call
 * (namespaces.c).  Built without -finstrument-functions, as unshare(1)
 * is, it must print nothing of ccprof's.  Unprivileged, a user namespace
 * comes with it; "unshare: ..." says whether it worked. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	int status;
	pid_t pid;

	if (unshare(CLONE_NEWPID) != 0 && unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0) {
		printf("unshare: %s\n", strerror(errno));
		return 0;
	}
	printf("unshare: ok\n");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		printf("child pid %d\n", (int)getpid());
		return 3;
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	printf("child status %d\n", WEXITSTATUS(status));
	return 0;
}
