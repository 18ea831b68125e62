/* A program whose own allocator holds its lock across fork, as
 * jemalloc's and tcmalloc's do: its fork handlers, registered in main
 * after the runtime's, take the lock before the fork and give it back
 * after.  glibc runs the runtime's handlers before the program's, with
 * that lock still held:
 *   - in the parent, a write of the profile from there, which
 *     allocates, waited for ever (Note [daemon's parent] in
 *     src/runtime/forkchild.c);
 *   - in the child, the start of the sampling thread, which allocates
 *     too, waited for ever (Note [The child's sampler] there).
 * The child spends SPIN_NS of its CPU in spin(), which a child without a
 * sampler would not be charged.  Prints what each process counted.
 *
 *   forklock          daemon(1, 1); the daemon keeps stdout
 *   forklock fork     fork; the parent waits and prints the child's status
 *   forklock forkpty  forkpty; the same */
#include <pthread.h>
#include <stdio.h>
#include <pty.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpuspin.h"

extern void *__libc_malloc(size_t), *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t), *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;

#define LOCKED(call)                              \
	do {                                      \
		pthread_mutex_lock(&heap_lock);   \
		call;                             \
		pthread_mutex_unlock(&heap_lock); \
	} while (0)

__attribute__((no_instrument_function)) void *malloc(size_t n)
{
	void *p;
	LOCKED(p = __libc_malloc(n));
	return p;
}

__attribute__((no_instrument_function)) void *calloc(size_t a, size_t b)
{
	void *p;
	LOCKED(p = __libc_calloc(a, b));
	return p;
}

__attribute__((no_instrument_function)) void *realloc(void *q, size_t n)
{
	void *p;
	LOCKED(p = __libc_realloc(q, n));
	return p;
}

__attribute__((no_instrument_function)) void *aligned_alloc(size_t a, size_t n)
{
	void *p;
	LOCKED(p = __libc_memalign(a, n));
	return p;
}

__attribute__((no_instrument_function)) void free(void *q)
{
	LOCKED(__libc_free(q));
}

__attribute__((no_instrument_function)) static void hold_heap(void)
{
	pthread_mutex_lock(&heap_lock);
}

__attribute__((no_instrument_function)) static void give_heap(void)
{
	pthread_mutex_unlock(&heap_lock);
}

static int before_calls, after_calls;

__attribute__((noinline)) static void before_daemon(void)
{
	before_calls++;
}

__attribute__((noinline)) static void after_daemon(void)
{
	after_calls++;
}

#define SPIN_NS 60000000L

__attribute__((noinline)) static void spin(void)
{
	spin_cpu(SPIN_NS);
}

static void child_work(void)
{
	for (int i = 0; i < 7; i++)
		after_daemon();
	spin();
}

static int run_daemon(void)
{
	if (daemon(1, 1) != 0) {
		perror("daemon");
		return 1;
	}
	child_work();
	printf("daemon: after_daemon %d\n", after_calls);
	return 0;
}

/* The child's status, as the parent saw it. */
static int wait_child(pid_t pid, const char *how)
{
	int status;

	if (pid < 0) {
		perror(how);
		return 1;
	}
	if (pid == 0) {
		child_work();
		exit(after_calls);
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return 1;
	}
	printf("%s: child exited %d\n", how, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "daemon";
	int master;

	pthread_atfork(hold_heap, give_heap, give_heap);
	for (int i = 0; i < 5; i++)
		before_daemon();
	printf("parent: before_daemon %d\n", before_calls);
	fflush(stdout);
	if (strcmp(mode, "fork") == 0)
		return wait_child(fork(), "fork");
	if (strcmp(mode, "forkpty") == 0)
		return wait_child(forkpty(&master, NULL, NULL, NULL), "forkpty");
	return run_daemon();
}
