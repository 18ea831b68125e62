/* A program with its own malloc, instrumented, as bash has: the runtime's
 * allocations in a normal write reach it, and its hooks number the
 * functions they enter (Note [The program's malloc] in dump.c).  A forked
 * child execs from deep in its calls, as a shell's subshell does; the
 * parent waits and exits from a nested function.  Each of these writes a
 * profile while the program's malloc is entered from a new context. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- The program's allocator: a bump allocator, size before each block */

static char *next, *end;

void *malloc(size_t n)
{
	char *p;

	n = ((n + 15) & ~(size_t)15) + 16;
	if (next == NULL || (size_t)(end - next) < n) {
		size_t size = n > ((size_t)64 << 20) ? n : (size_t)64 << 20;

		next = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (next == MAP_FAILED)
			return NULL;
		end = next + size;
	}
	p = next;
	*(size_t *)p = n - 16;
	next += n;
	return p + 16;
}

void free(void *p)
{
	(void)p;
}

void *calloc(size_t n, size_t size)
{
	void *p = malloc(n * size);

	if (p)
		memset(p, 0, n * size);
	return p;
}

void *realloc(void *p, size_t n)
{
	void *q = malloc(n);

	if (q && p) {
		size_t old = *(size_t *)((char *)p - 16);

		memcpy(q, p, old < n ? old : n);
	}
	return q;
}

/* ---- The program --------------------------------------------------------- */

static volatile unsigned long sink;

__attribute__((noinline)) void work(void) { sink++; }

__attribute__((noinline)) void child_execs(void)
{
	alarm(20); /* a child that hangs in its write goes, in the end */
	fflush(stdout);
	execl("/bin/echo", "echo", "child exec'd", (char *)NULL);
	_exit(127);
}

__attribute__((noinline)) void leave(int status)
{
	printf("calls work 3\n");
	exit(status);
}

int main(void)
{
	pid_t pid;
	int status;

	for (int i = 0; i < 3; i++)
		work();
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		child_execs();
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	leave(WIFEXITED(status) ? WEXITSTATUS(status) + 5 : 99);
	return 1;
}
