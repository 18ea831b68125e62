/*
 * trapjump.h - a malloc left by siglongjmp, for the test programs that
 * link the allocator library trapalloc.c (leftalloc.c, heapleft.c):
 * interrupted() calls malloc, whose trap_hook raises SIGINT, and the
 * handler jumps back to where main called sigsetjmp(back, 1).
 */
#ifndef CCPROF_TESTS_TRAPJUMP_H
#define CCPROF_TESTS_TRAPJUMP_H

#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>

extern void (*trap_hook)(void);

static void *volatile sink;
static sigjmp_buf back;

static void on_int(int sig)
{
	(void)sig;
	siglongjmp(back, 1);
}

static void trip(void)
{
	raise(SIGINT);
}

/* Its malloc never returns: the handler jumps back to main. */
__attribute__((noinline)) void interrupted(void)
{
	trap_hook = trip;
	sink = malloc(10);
}

#endif
