/*
 * cancelcount.c - preloaded before the runtime: counts the calls of
 * pthread_setcancelstate in the process (the runtime makes two each time
 * a hook tries to start a thread's state: Note [Cancellation] in
 * src/runtime/cancel.c) and prints "setcancelstate N" on stderr at exit.
 * With enabled=0 every hook of the program made two: Note [A disabled
 * runtime] in src/runtime/threads.c.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static unsigned long count;

int pthread_setcancelstate(int state, int *old)
{
	static int (*real)(int, int *);

	if (real == NULL)
		real = (int (*)(int, int *))dlsym(RTLD_NEXT, "pthread_setcancelstate");
	__atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
	return real ? real(state, old) : 0;
}

__attribute__((destructor)) static void say(void)
{
	fprintf(stderr, "setcancelstate %lu\n", count);
}
