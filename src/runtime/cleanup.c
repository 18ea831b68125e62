/*
 * cleanup.c - frames an exception unwound, discarded where a cleanup runs.
 *
 * Note [Cleanups on the way]: clang's code runs no exit hook for the
 * frames an exception unwinds (Note [Caught exceptions] in catch.c), and
 * a catch pops them at __cxa_begin_catch.  But a frame the exception
 * only passes through may run code on the way: the destructors of its
 * locals, in a landing pad that ends by _Unwind_Resume.  Until then the
 * unwound entries were still on the shadow stack, and a destructor that
 * called a function with a bigger frame than theirs had its call charged
 * to the innermost of them (helper-180: yaml-cpp's SingleDocParser, 34
 * of 334 destructions shown under HandleDocument, which the exception
 * had left; a Guard's destructor's calls under the thrower).  The
 * unwinder asks the frame's personality routine whether the frame has
 * such code, and jumps to it when the answer is _URC_INSTALL_CONTEXT.
 * So __gxx_personality_v0 is interposed: on that answer in the cleanup
 * phase, the frame's own entry is found (its function starts where the
 * frame's unwind region does, and its sp is at most what _Unwind_GetCFA
 * gives for the frame, which libgcc's unwinder gives as the stack
 * pointer the hooks saw, the frame's own entry's: the outermost such,
 * for a recursive function; helper-183 checked it in gdb on a direct
 * recursion with a destructor in each frame), and the entries strictly
 * below it are popped, as at a catch.  Kept among them: an inlined
 * copy's entry with arguments still pushed (Note [Arguments not yet
 * popped] in machine.c: the same call site as the frame's, less than 32
 * bytes below), whose exit hook gcc's landing pad runs next.  gcc's code
 * runs the exit hooks itself, so under it there is nothing left to pop.
 * A frame whose entry is not found (not instrumented, a landing pad in a
 * function's split-off part, whose region starts there) pops nothing:
 * the stack pointers decide, as before.
 *
 * In the shared runtime only: in libccprof.a a definition of ours would
 * take the place of libstdc++.a's under -static-libstdc++, whose object
 * nothing else need pull in, and leave no personality to call.  The
 * unwinder's accessors are looked up, not linked: the runtime depends on
 * libc alone, and a program that throws has loaded them, if not among
 * the objects loaded with it (a C program that opened a C++ library with
 * RTLD_LOCAL), then beside the unwinder that called us; and libstdc++'s
 * personality then beside the code of the frame (Note [A catch in a
 * library of its own] in catch.c; tests/progs/plugcatch.c).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <unwind.h>

#include "runtime.h"

typedef _Unwind_Reason_Code personality_fn(int, _Unwind_Action, _Unwind_Exception_Class,
					    struct _Unwind_Exception *, struct _Unwind_Context *);
typedef _Unwind_Word context_word_fn(struct _Unwind_Context *);
typedef _Unwind_Ptr context_ptr_fn(struct _Unwind_Context *);

RT_API personality_fn __gxx_personality_v0;

static personality_fn *real_personality;
static void *get_cfa, *get_region_start, *get_ip; /* unwinder_function's */

/* The landing frame's call site, for still_pushed (per thread: two
 * threads may unwind at once). */
static __thread uintptr_t landing_cs __attribute__((tls_model("initial-exec")));

/* The unwinder's function `name`: among the objects loaded with the
 * program, else in the object of the unwinder (`unwinder`, an address
 * in it) and its dependencies; once found kept in *slot. */
static void *unwinder_function(void **slot, const char *name, const void *unwinder)
{
	void *f = __atomic_load_n(slot, __ATOMIC_RELAXED);
	int saved = errno;

	if (f == NULL && (f = dlsym(RTLD_DEFAULT, name)) == NULL)
		f = rt_symbol_beside(unwinder, name, NULL);
	if (f != NULL)
		__atomic_store_n(slot, f, __ATOMIC_RELAXED);
	errno = saved;
	return f;
}

/* libstdc++'s (or libc++abi's) personality, once found kept; where the
 * objects loaded with the program have none (a C++ library opened with
 * RTLD_LOCAL brought its own), the one beside the frame's code. */
static personality_fn *real_for(struct _Unwind_Context *ctx, const void *unwinder)
{
	personality_fn *f = __atomic_load_n(&real_personality, __ATOMIC_ACQUIRE);
	context_ptr_fn *ip;
	int saved = errno;

	if (f == NULL)
		f = (personality_fn *)dlsym(RTLD_NEXT, "__gxx_personality_v0");
	if (f == NULL &&
	    (ip = (context_ptr_fn *)unwinder_function(&get_ip, "_Unwind_GetIP", unwinder)) != NULL)
		f = (personality_fn *)rt_symbol_beside((const void *)ip(ctx),
						       "__gxx_personality_v0",
						       (void *)__gxx_personality_v0);
	if (f != NULL)
		__atomic_store_n(&real_personality, f, __ATOMIC_RELEASE);
	errno = saved;
	return f;
}

/* An entry of the landing frame's inlined copy, its arguments still
 * pushed: kept (Note [Cleanups on the way]). */
static int still_pushed(const struct rt_shadow *e, uintptr_t frame_sp)
{
	return e->cs == landing_cs && frame_sp - e->sp <= RT_PUSHED_MAX;
}

static int unwound(const struct rt_thread *t, const struct rt_shadow *e, uintptr_t frame_sp)
{
	(void)t;
	return !(e->sp & RT_REGION_SP) && e->sp < frame_sp && !still_pushed(e, frame_sp);
}

/* The landing frame's own entry: the outermost entry of its function at
 * or below what the unwinder gives as its CFA (Note [Cleanups on the
 * way]), or NULL. */
static const struct rt_shadow *frame_entry(const struct rt_thread *t, uintptr_t fn, uintptr_t cfa)
{
	const struct rt_shadow *e, *found = NULL;

	for (e = rt_entry_top(t); e != NULL && !(e->sp & RT_REGION_SP) && e->sp <= cfa;
	     e = rt_entry_below(e))
		if (e->fn == fn)
			found = e;
	return found;
}

/* The unwinder is about to run the landing pad of ctx's frame: the
 * entries of the frames below it go. */
static void leave_unwound(struct rt_thread *t, struct _Unwind_Context *ctx, const void *unwinder)
{
	context_word_fn *cfa =
		(context_word_fn *)unwinder_function(&get_cfa, "_Unwind_GetCFA", unwinder);
	context_ptr_fn *start = (context_ptr_fn *)unwinder_function(
		&get_region_start, "_Unwind_GetRegionStart", unwinder);
	const struct rt_shadow *own;

	if (cfa == NULL || start == NULL)
		return;
	own = frame_entry(t, (uintptr_t)start(ctx), (uintptr_t)cfa(ctx));
	if (own == NULL)
		return;
	landing_cs = own->cs;
	rt_pop_left(t, unwound, own->sp);
}

RT_API _Unwind_Reason_Code __gxx_personality_v0(int version, _Unwind_Action actions,
						 _Unwind_Exception_Class cls,
						 struct _Unwind_Exception *ue,
						 struct _Unwind_Context *ctx)
{
	const void *unwinder = __builtin_return_address(0);
	personality_fn *real = real_for(ctx, unwinder);
	struct rt_thread *t = rt_self;
	_Unwind_Reason_Code rc;

	if (real == NULL)
		abort(); /* an exception without the C++ runtime: nothing sane is left */
	rc = real(version, actions, cls, ue, ctx);
	if (rc == _URC_INSTALL_CONTEXT && (actions & _UA_CLEANUP_PHASE) && t != NULL)
		leave_unwound(t, ctx, unwinder);
	return rc;
}
