/* fork: the parent calls parent_work 3 times, forks, the child calls
 * child_work 5 times and exits; the parent then calls parent_work 2 more
 * times.  Each process's profile must hold only its own calls. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void parent_work(void) { sink++; }
__attribute__((noinline)) void child_work(void) { sink++; }

int main(void)
{
	int status;
	pid_t pid;

	for (int i = 0; i < 3; i++)
		parent_work();
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 5; i++)
			child_work();
		printf("child done\n");
		exit(0);
	}
	waitpid(pid, &status, 0);
	for (int i = 0; i < 2; i++)
		parent_work();
	printf("parent done %d\n", WEXITSTATUS(status));
	return 0;
}
