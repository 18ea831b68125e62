/* daemon(3) in a program whose own allocator holds its lock across fork,
 * as jemalloc's and tcmalloc's do: its fork handlers, registered in main
 * after the runtime's, take the lock before the fork and give it back
 * after.  The runtime's parent handler runs before the program's, with
 * that lock still held: a write of the parent's profile from there,
 * which allocates, waited for ever (Note [daemon's parent] in
 * src/runtime/rawexit.c).  Prints what each process counted; nochdir
 * and noclose, as tests/progs/daemonize.c. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

int main(void)
{
	pthread_atfork(hold_heap, give_heap, give_heap);
	for (int i = 0; i < 5; i++)
		before_daemon();
	printf("parent: before_daemon %d\n", before_calls);
	fflush(stdout);
	if (daemon(1, 1) != 0) {
		perror("daemon");
		return 1;
	}
	for (int i = 0; i < 7; i++)
		after_daemon();
	printf("daemon: after_daemon %d\n", after_calls);
	return 0;
}
