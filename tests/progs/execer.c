/* exec: before_exec runs 4 times, then the program execs /bin/echo; the
 * profile of the part before the exec must be written. */
#include <stdio.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void before_exec(void) { sink++; }

int main(void)
{
	for (int i = 0; i < 4; i++)
		before_exec();
	fflush(stdout);
	execl("/bin/echo", "echo", "exec'd", (char *)NULL);
	perror("execl");
	return 1;
}
