/*
 * forks.c - a fork-heavy workload, as a shell running subshells or a
 * server that forks per request: N children in turn, each making a few
 * hundred calls of its own and exiting, the parent waiting for each.
 * What ccprof costs here is per process (a child's start and its profile
 * written at its exit), not per call.
 *
 *     forks [N]   (default 300)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static unsigned step(unsigned x)
{
	return x * 2654435761u + 1;
}

__attribute__((noinline)) static unsigned walk(unsigned depth, unsigned x)
{
	return depth == 0 ? step(x) : walk(depth - 1, step(x)) ^ walk(depth - 1, x);
}

__attribute__((noinline)) static int child(unsigned i)
{
	return (int)(walk(6, i) & 1); /* 255 calls: this, 127 walks, 127 steps */
}

__attribute__((noinline)) static int spawn(unsigned i)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0)
		exit(child(i));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		fprintf(stderr, "forks: child %u did not exit\n", i);
		exit(2);
	}
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	unsigned i, n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 300;
	unsigned odd = 0;

	for (i = 0; i < n; i++)
		odd += (unsigned)spawn(i);
	printf("%u children, %u odd\n", n, odd);
	return 0;
}
