/* A forked child's profile holds only what the child did: the parent
 * makes 8 x 8 x 8 = 512 calling contexts (top_i -> mid_j -> leaf_k), each
 * leaf allocating and freeing a block, and keeps 4 blocks of 500 bytes
 * live, then forks.  The child calls child_a 3 times, child_a calls
 * child_b twice each time (6), and child_c once, which allocates 3 blocks
 * of 1000 bytes and keeps them; it prints "child done" and exits, or with
 * the argument "term" dies by SIGTERM (its profile is then written from
 * the runtime's signal handler).  The parent waits and returns 0.  (tests/runtime.py fork_child_contexts,
 * tests/heap.py fork_child_contexts.) */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;
void *kept[8]; /* not static: the compiler keeps the allocations */

#define LEAF(k) __attribute__((noinline)) void leaf_##k(void) \
	{ void *p = malloc(16 + k); sink += (unsigned long)p; free(p); }
LEAF(0) LEAF(1) LEAF(2) LEAF(3) LEAF(4) LEAF(5) LEAF(6) LEAF(7)
static void (*const leaves[8])(void) = { leaf_0, leaf_1, leaf_2, leaf_3,
					 leaf_4, leaf_5, leaf_6, leaf_7 };

#define MID(j) __attribute__((noinline)) void mid_##j(void) \
	{ for (int k = 0; k < 8; k++) leaves[k](); }
MID(0) MID(1) MID(2) MID(3) MID(4) MID(5) MID(6) MID(7)
static void (*const mids[8])(void) = { mid_0, mid_1, mid_2, mid_3,
				       mid_4, mid_5, mid_6, mid_7 };

#define TOP(i) __attribute__((noinline)) void top_##i(void) \
	{ for (int j = 0; j < 8; j++) mids[j](); }
TOP(0) TOP(1) TOP(2) TOP(3) TOP(4) TOP(5) TOP(6) TOP(7)
static void (*const tops[8])(void) = { top_0, top_1, top_2, top_3,
				       top_4, top_5, top_6, top_7 };

__attribute__((noinline)) void child_b(void) { sink++; }

__attribute__((noinline)) void child_a(void)
{
	child_b();
	child_b();
}

__attribute__((noinline)) void child_c(void)
{
	for (int i = 0; i < 3; i++)
		kept[4 + i] = malloc(1000);
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	for (int i = 0; i < 8; i++)
		tops[i]();
	for (int i = 0; i < 4; i++)
		kept[i] = malloc(500);
	printf("parent made its contexts\n");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 3; i++)
			child_a();
		child_c();
		printf("child done\n");
		if (argc > 1 && strcmp(argv[1], "term") == 0) {
			fflush(stdout);
			raise(SIGTERM);
		}
		exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	printf("parent done %d\n", WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status));
	return 0;
}
