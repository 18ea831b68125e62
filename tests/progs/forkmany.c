/* forkmany N: N children, one after another, each calls child_work once
 * and ends by _exit, as a shell's subshells do; the parent waits for
 * each and calls parent_work once per child. */
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void parent_work(void) { sink++; }
__attribute__((noinline)) void child_work(void) { sink++; }

/* Digits by hand, and not hooked: clang hooks glibc's inline atoi, a
 * call the tests would have to expect. */
__attribute__((no_instrument_function)) static int count_of(const char *s)
{
	int n = 0;

	while (*s >= '0' && *s <= '9')
		n = n * 10 + (*s++ - '0');
	return n;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? count_of(argv[1]) : 1;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			child_work();
			_exit(0);
		}
		waitpid(pid, NULL, 0);
		parent_work();
	}
	return 0;
}
