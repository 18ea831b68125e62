/*
 * heapforkin.c - fork while another thread is inside the heap table, for
 * tests/heap.py (Note [Heap table and fork] in src/runtime/heap.c).
 *
 * A worker's malloc is held inside the table, with its stripe locked:
 * the program's own mmap, which the runtime's table calls to grow a
 * stripe, waits there until main has forked.  In the child, that lock
 * belongs to a thread that is gone.  The library part (built with
 * -DHEAPFORKIN_LIB, uninstrumented) registers, from its constructor and
 * so before the runtime's, a child fork handler that allocates 2,048
 * blocks and frees them: it runs before the runtime's child handler has
 * cleared the table, so one of its blocks falls in the locked stripe.
 * The forking thread must stay out of the table until fork ends, or the
 * child spins for ever on that lock.
 *
 * Prints "live F BYTES BLOCKS" (prefixed "child " in the child) for
 * what each function still holds; exits 1 if the worker never reached
 * the table's mmap, the child's handler did not run, or the child has
 * not ended 5 s after the fork (it is then killed).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HANDLER_BLOCKS 2048

#ifdef HEAPFORKIN_LIB
static void *blocks[HANDLER_BLOCKS];
static int allocated;

/* Enough blocks at once to fall in every stripe of the table. */
static void allocate_in_child(void)
{
	for (int i = 0; i < HANDLER_BLOCKS; i++)
		allocated += (blocks[i] = malloc(16)) != NULL;
	for (int i = 0; i < HANDLER_BLOCKS; i++)
		free(blocks[i]);
}

/* What the handler allocated in this process (the program calls it, so
 * that the linker keeps the library). */
int heapforkin_allocated(void)
{
	return allocated;
}

__attribute__((constructor)) static void heapforkin_init(void)
{
	pthread_atfork(NULL, NULL, allocate_in_child);
}
#else
#define WORKER_BLOCKS 4096

int heapforkin_allocated(void);

static atomic_int inside, forked;
static _Thread_local volatile int armed; /* gcc takes malloc for one that reads no flag */
static void *volatile sink;
static void *kept[WORKER_BLOCKS];

static __attribute__((no_instrument_function)) void pause_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Every mmap of the process but glibc's own: the runtime's table is
 * grown through here.  The worker's, inside malloc, waits for the fork. */
__attribute__((no_instrument_function)) void *mmap(void *addr, size_t len, int prot, int flags,
						   int fd, off_t off)
{
	if (armed) {
		atomic_store(&inside, 1);
		while (!atomic_load(&forked))
			pause_ms(1);
	}
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

/* Its block is the one whose entry was held across the fork. */
__attribute__((noinline)) void *worker_alloc(void)
{
	void *p;

	armed = 1;
	p = malloc(16);
	armed = 0;
	return p;
}

__attribute__((noinline)) void worker_free(int n)
{
	for (int i = 0; i < n; i++)
		free(kept[i]);
}

static void *worker(void *arg)
{
	int n = 0;

	(void)arg;
	while (n < WORKER_BLOCKS && !atomic_load(&inside))
		kept[n++] = worker_alloc(); /* a new stripe, soon: its first slots */
	worker_free(n - 1);
	sink = kept[n - 1];
	return NULL;
}

__attribute__((noinline)) void child_keep(void)
{
	sink = malloc(333);
}

static void say(const char *prefix, const char *fn, long bytes, long blocks)
{
	char line[128];
	int n = snprintf(line, sizeof line, "%slive %s %ld %ld\n", prefix, fn, bytes, blocks);

	if (write(2, line, (size_t)n) < 0)
		_exit(3);
}

int main(void)
{
	pthread_t t;
	pid_t pid;
	int st = 0, waited;

	alarm(20);
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	for (waited = 0; !atomic_load(&inside) && waited < 5000; waited++)
		pause_ms(1);
	if (!atomic_load(&inside)) {
		atomic_store(&forked, 1);
		fputs("the worker never reached the table's mmap\n", stderr);
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		if (heapforkin_allocated() != HANDLER_BLOCKS)
			_exit(2); /* the handler did not run */
		child_keep();
		say("child ", "child_keep", 333, 1);
		say("child ", "worker_alloc", 0, 0);
		exit(0);
	}
	atomic_store(&forked, 1);
	if (pid < 0 || pthread_join(t, NULL) != 0)
		return 1;
	for (waited = 0; waitpid(pid, &st, WNOHANG) == 0; waited++) {
		if (waited == 5000) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			fputs("the child hung\n", stderr);
			return 1;
		}
		pause_ms(1);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	say("", "worker_alloc", 16, 1);
	say("", "child_keep", 0, 0);
	printf("done\n");
	return 0;
}
#endif
