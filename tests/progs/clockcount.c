/*
 * clockcount.c - a shared library, preloaded before libccprof.so, that
 * counts the reads of CLOCK_MONOTONIC reaching libc's clock_gettime
 * through it, the runtime's among them: a wait that spins on the clock
 * makes hundreds of thousands (Note [The tick rate] in
 * src/runtime/clock.c).  It prints the count on stderr, with the pid,
 * "clockcount PID READS", after the runtime's write at exit: the runtime
 * writes from a handler its destructor registers (Note [After the
 * libraries' destructors] in src/runtime/init.c), and this library's
 * destructor, which runs before the runtime's (preloaded first, it is
 * finished first), registers its own the same way, so it runs after.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static unsigned long monotonic_reads;

/* libc's, looked up at the first call: the runtime's constructor reads
 * the clock before this library's runs.  Two threads may both look it
 * up; they store the same address. */
static clock_gettime_fn real_clock_gettime;

int clock_gettime(clockid_t id, struct timespec *ts)
{
	clock_gettime_fn real = __atomic_load_n(&real_clock_gettime, __ATOMIC_ACQUIRE);

	if (real == NULL) {
		*(void **)&real = dlsym(RTLD_NEXT, "clock_gettime");
		__atomic_store_n(&real_clock_gettime, real, __ATOMIC_RELEASE);
	}
	if (id == CLOCK_MONOTONIC)
		__atomic_add_fetch(&monotonic_reads, 1, __ATOMIC_RELAXED);
	return real(id, ts);
}

int __cxa_atexit(void (*f)(void *), void *arg, void *dso_handle);

static void say(void *unused)
{
	(void)unused;
	dprintf(2, "clockcount %d %lu\n", (int)getpid(),
		__atomic_load_n(&monotonic_reads, __ATOMIC_RELAXED));
}

__attribute__((destructor)) static void said(void)
{
	__cxa_atexit(say, NULL, NULL);
}
