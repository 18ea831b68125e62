/* Exits with the status given, or dies by the signal given: ccprof record
 * must pass either through unchanged. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) void finish(const char *how, int n)
{
	printf("finishing %s %d\n", how, n);
	fflush(stdout);
	if (strcmp(how, "signal") == 0)
		raise(n);
	exit(n);
}

int main(int argc, char **argv)
{
	finish(argc > 1 ? argv[1] : "exit", argc > 2 ? (int)strtol(argv[2], NULL, 10) : 0);
	return 99;
}
