/* vforktime.c - a parent that works between vforks, and whose children
 * die inside a function they called, as dash's do in `tryexec`:
 * child_run calls in_child, then ends by _exit, or by exec of /bin/true,
 * or (nested) after a vfork of its own whose child does the same.  The
 * parent works in parent_work and in main itself, after each vfork
 * returns.  Usage: vforktime exit|exec|nested N.  Prints the children it
 * waited for.  A profile must charge the parent's time to parent_work
 * and main, not to child_run or in_child, which only the children run
 * (Note [A vfork child's calls] in src/runtime/vfork.c); the children's
 * calls are counted in the parent's profile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

/* About 100 us of CPU. */
static void spin(void)
{
	for (unsigned long i = 0; i < 100000; i++)
		sink += i;
}

__attribute__((noinline)) static void parent_work(void)
{
	spin();
}

__attribute__((noinline)) static void in_child(void)
{
	sink++;
}

__attribute__((noinline)) static void child_run(const char *how)
{
	in_child();
	if (strcmp(how, "exec") == 0)
		execl("/bin/true", "true", (char *)NULL);
	if (strcmp(how, "nested") == 0) {
		pid_t g = vfork();

		if (g == 0)
			child_run("exit");
		if (g < 0 || waitpid(g, NULL, 0) != g)
			_exit(3);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "exit";
	int n = argc > 2 ? atoi(argv[2]) : 1000, waited = 0;

	for (int i = 0; i < n; i++) {
		int status;
		pid_t pid;

		parent_work();
		pid = vfork();
		if (pid == 0)
			child_run(how);
		if (pid < 0) {
			perror("vfork");
			return 1;
		}
		/* main's own work, before any call: the context it is charged
		 * to is the one vfork returned to */
		for (unsigned long j = 0; j < 100000; j++)
			sink += j;
		if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0)
			waited++;
	}
	printf("%d children\n", waited);
	return 0;
}
