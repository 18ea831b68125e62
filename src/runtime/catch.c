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
 * libstdc++'s with dlsym; in one linked with -static or
 * -static-libstdc++, libstdc++.a's takes its place (it is defined beside
 * __cxa_end_catch, which every catch calls), and the stack pointers
 * decide there, as before.
 *
 * Note [A catch in a library of its own]: dlsym(RTLD_NEXT) looks only
 * through the objects loaded with the program, and a C++ library that a
 * C program opened with RTLD_LOCAL brought its libstdc++ in beside them,
 * not among them: its catches came to ours (preloaded, or linked in and
 * exported by -rdynamic), which found nothing to call and aborted the
 * program (helper-162).  So where dlsym finds none, ours asks the object
 * that called it, and its dependencies, through a handle of its own
 * (tests/progs/plugcatch.c).  dlopen is found by dlsym, not named: in a
 * program linked with -static, where no shared library can be the
 * caller (and libstdc++.a's catch takes the place of ours anyway), the
 * name made the linker warn at every link that dlopen there needs the
 * shared libraries of the glibc it was linked with.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

#include "runtime.h"

typedef void *(*begin_catch_fn)(void *);

static void *real_begin_catch;

RT_API void *__cxa_begin_catch(void *exception); /* the C++ ABI's; no header of libc has it */

typedef void *(*dlopen_fn)(const char *, int);

/* Symbol `name` as the object at `from` and its dependencies have it,
 * other than `ours`; NULL if none.  For cleanup.c's personality too. */
void *rt_symbol_beside(const void *from, const char *name, void *ours)
{
	dlopen_fn open_object = (dlopen_fn)dlsym(RTLD_DEFAULT, "dlopen");
	Dl_info info;
	void *h, *f;

	if (open_object == NULL || dladdr(from, &info) == 0 || info.dli_fname == NULL ||
	    info.dli_fname[0] == '\0')
		return NULL;
	if ((h = open_object(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD)) == NULL)
		return NULL; /* one reference more, given back below */
	f = dlsym(h, name);
	dlclose(h);
	return f == ours ? NULL : f;
}

/* libstdc++'s (or libc++abi's), looked up at the first catch that comes
 * from `from`, once found kept; errno as it was. */
static begin_catch_fn real_for(const void *from)
{
	void *f = __atomic_load_n(&real_begin_catch, __ATOMIC_ACQUIRE);
	int saved = errno;

	if (f == NULL && (f = dlsym(RTLD_NEXT, "__cxa_begin_catch")) == NULL)
		f = rt_symbol_beside(from, "__cxa_begin_catch", (void *)__cxa_begin_catch);
	if (f != NULL)
		__atomic_store_n(&real_begin_catch, f, __ATOMIC_RELEASE);
	errno = saved;
	return (begin_catch_fn)f;
}

/* Whether entry e belongs to a frame the exception unwound on its way to
 * the frame whose stack pointer is catcher. */
static int unwound(const struct rt_thread *t, const struct rt_shadow *e, uintptr_t catcher)
{
	(void)t;
	return !(e->sp & RT_REGION_SP) && e->sp < catcher;
}

RT_API void *__cxa_begin_catch(void *exception)
{
	struct rt_thread *t = rt_self;
	begin_catch_fn real = real_for(__builtin_return_address(0));

	if (t != NULL)
		rt_pop_left(t, unwound, (uintptr_t)__builtin_dwarf_cfa());
	if (real == NULL)
		abort(); /* a catch without the C++ runtime: nothing sane is left */
	return real(exception);
}
