/* lingering.c - daemonizes by hand: the parent prints the daemon's pid
 * and exits at once; the daemon (setsid) sleeps a second, makes one
 * call and exits.  `ccprof record` ends with the parent and must say the
 * daemon is still running (Note [Processes that outlive the run] in
 * src/cli/cmd_record.c). */
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) static int work(int i)
{
	return i * 2;
}

int main(void)
{
	int sum = work(1);
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid != 0) {
		printf("daemon %d\n", (int)pid);
		return pid < 0;
	}
	setsid();
	sleep(1);
	sum += work(2);
	return sum == 0;
}
