/* manycallees.c - one context with far more callees than the runtime's
 * caches hold: main calls 2,048 distinct functions in turn, ROUNDS times
 * (default 5).  The context's two inline slots and the thread cache's
 * 512 slots hold at most 514 of its transitions, so from the second round
 * on at least 1,534 calls a round miss them and are found in the thread's
 * table: the profile's slow finds (STATS key 15, docs/format.md).  Prints
 * "calls f N", the calls of the 2,048 made in all.  With `fork`, it then
 * forks a child that calls one of them once more, and prints "child PID":
 * the child's profile has its own finds, at most that call's.
 *
 * Usage: manycallees [ROUNDS [fork]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "repeat.h"

static unsigned long calls;

#define F(n) __attribute__((noinline)) static void f##n(void) { calls++; __asm__ volatile(""); }
#define P(n) f##n,
X256(F, 0) X256(F, 1) X256(F, 2) X256(F, 3) X256(F, 4) X256(F, 5) X256(F, 6) X256(F, 7)
static void (*const fs[])(void) = {
	X256(P, 0) X256(P, 1) X256(P, 2) X256(P, 3) X256(P, 4) X256(P, 5) X256(P, 6) X256(P, 7)
};

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5;

	for (int r = 0; r < rounds; r++)
		for (size_t i = 0; i < sizeof fs / sizeof *fs; i++)
			fs[i]();
	printf("calls f %lu\n", calls);
	if (argc > 2 && strcmp(argv[2], "fork") == 0) {
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			fs[0]();
			return 0;
		}
		printf("child %ld\n", (long)pid);
		return pid > 0 && waitpid(pid, NULL, 0) == pid ? 0 : 1;
	}
	return 0;
}
