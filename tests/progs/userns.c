/* unshare(CLONE_NEWUSER) needs a single-threaded process, which the
 * sampler thread of the cpu and wall clocks would spoil (namespaces.c).
 * Prints whether it worked, and the calls the profile must show. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

static unsigned long nf;

__attribute__((noinline)) int f(int x)
{
	nf++;
	return x * 2;
}

int main(void)
{
	int r = f(1);

	if (unshare(CLONE_NEWUSER) != 0)
		printf("unshare: %s\n", strerror(errno));
	else
		printf("unshare: ok\n");
	r = f(r);
	printf("result %d\ncalls f %lu\n", r, nf);
	return 0;
}
