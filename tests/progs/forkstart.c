/* A forked child's start is the runtime's own time (Note [A forked
 * child's start] in src/runtime/init.c): the parent calls leaf() from
 * main, then forks; the child calls leaf() from main again, a transition
 * it inherited, so it makes no context of its own, and exits.  Under
 * clock=cycles its profile has own time all the same: the fork handler's,
 * which was charged to main.  (tests/runtime.py fork_child_start.) */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

volatile int sink;

__attribute__((noinline)) void leaf(void)
{
	sink++;
}

int main(void)
{
	pid_t pid;
	int status = 0;

	leaf();
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		leaf();
		return 0;
	}
	waitpid(pid, &status, 0);
	printf("child %d\n", (int)pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
