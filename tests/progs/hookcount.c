/*
 * hookcount.c - a shared library, preloaded before libccprof.so, that
 * defines the two hooks and only counts the enter hooks that reach it:
 * with it first, the runtime's own calibration fixture (calib.c, whose
 * hooks go through the PLT) calls these, not the runtime's.  So the
 * count is how many of the fixture's calls this process made: whether,
 * and how often, it calibrated (Note [Calibration at the first hook] in
 * src/runtime/clock.c).  A forked child counts from zero, its own calls
 * only.  Printed at exit, with the pid, on stderr.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static unsigned long entered;

void __cyg_profile_func_enter(void *fn, void *call_site)
{
	(void)fn;
	(void)call_site;
	__atomic_add_fetch(&entered, 1, __ATOMIC_RELAXED);
}

void __cyg_profile_func_exit(void *fn, void *call_site)
{
	(void)fn;
	(void)call_site;
}

static void forked(void)
{
	entered = 0;
}

__attribute__((constructor)) static void start(void)
{
	pthread_atfork(NULL, NULL, forked);
}

__attribute__((destructor)) static void said(void)
{
	dprintf(2, "hookcount %d %lu\n", (int)getpid(), __atomic_load_n(&entered, __ATOMIC_RELAXED));
}
