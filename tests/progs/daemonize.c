/* daemon(3): the parent's work before the call, then the daemon's after
 * it.  glibc's daemon ends the parent by its own _exit, out of reach of
 * the runtime's _exit (Note [daemon's parent] in src/runtime/rawexit.c).
 * nochdir and noclose: the daemon keeps the directory and stdout, so its
 * line comes through the same pipe, and a reader of the pipe waits for
 * the daemon to end.  Prints what each process counted. */
#include <stdio.h>
#include <stdlib.h>
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

int main(void)
{
	int sum = 0;

	for (int i = 0; i < 5; i++)
		sum += before_daemon(i);
	printf("parent: before_daemon %d\n", before_calls);
	fflush(stdout);
	if (daemon(1, 1) != 0) {
		perror("daemon");
		return 1;
	}
	for (int i = 0; i < 7; i++)
		sum += after_daemon(i);
	printf("daemon: after_daemon %d (sum %d)\n", after_calls, sum);
	return 0;
}
