/*
 * catch.c - frames an exception unwound, discarded where it is caught.
 *
 * Note [Caught exceptions]: gcc's code runs the exit hooks of the frames
 * an exception unwinds (their cleanups call them), but clang's does not:
 * the entries of those frames stay on the shadow stack, and only the
 * stack-pointer guess removes them (Note [Shadow stack]): the next call
 * discards the entries below its own stack pointer.  When the catching
 * function then calls one with a bigger frame than the ones unwound, its
 * hook's stack pointer lies below theirs, they stay, and the call shows
 * as the innermost unwound function's (clang -O0, a catch followed by a
 * call of a function with an 8 KB buffer: all 10 calls under the
 * thrower).  As for longjmp (Note [Longjmp]), the moment the frames go is
 * known: the catching frame's landing pad calls __cxa_begin_catch with
 * its stack pointer where the unwinder put it back, the one of the call
 * the exception came out of.  Every entry strictly below it is a frame the
 * exception left, so __cxa_begin_catch is interposed to pop them first.
 * Entries at that stack pointer stay: the catching function's own, and
 * functions inlined into it, which may still be running around the try.
 * Entries of manual regions stop the pop, as they stop the hooks'.  A
 * catch inside libstdc++ (std::terminate's handlers, a catch in a
 * function of its own) pops the frames below it, which are gone as well.
 * libccprof.a has it too, weak (the Makefile makes it so): a program
 * linked with it whose libstdc++ is shared calls ours, which finds
 * libstdc++'s with dlsym; in one linked with -static, libstdc++.a's
 * takes its place (it is defined beside __cxa_end_catch, which every
 * catch calls), and the stack pointers decide there, as before.
 */
#include <dlfcn.h>
#include <stdlib.h>

#include "runtime.h"

typedef void *(*begin_catch_fn)(void *);

static void *real_begin_catch;

static void begin_catch_lookup(void)
{
	real_begin_catch = dlsym(RTLD_NEXT, "__cxa_begin_catch");
}

/* Whether entry e belongs to a frame the exception unwound on its way to
 * the frame whose stack pointer is catcher. */
static int unwound(const struct rt_thread *t, const struct rt_shadow *e, uintptr_t catcher)
{
	(void)t;
	return !(e->sp & RT_REGION_SP) && e->sp < catcher;
}

RT_API void *__cxa_begin_catch(void *exception); /* the C++ ABI's; no header of libc has it */

RT_API void *__cxa_begin_catch(void *exception)
{
	struct rt_thread *t = rt_self;

	if (t != NULL)
		rt_pop_left(t, unwound, (uintptr_t)__builtin_dwarf_cfa());
	if (!rt_real_ready(&real_begin_catch, begin_catch_lookup))
		abort(); /* a catch without the C++ runtime: nothing sane is left */
	return ((begin_catch_fn)real_begin_catch)(exception);
}
