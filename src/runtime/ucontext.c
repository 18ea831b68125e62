/*
 * ucontext.c - swapcontext and setcontext, which switch machine stacks,
 * with the shadow stack switched beside them (Note [One shadow stack a
 * stack] in stacks.c).
 *
 * The interposed swapcontext saves the caller's context inside itself:
 * whatever resumes it (a swapcontext, a setcontext, a coroutine's
 * function returning to its uc_link) comes back here first, before any
 * instrumented code runs, and puts back the shadow stack it left.
 *
 * Note [Switches in a static program]: libccprof.a has these names too.
 * A program linked with it whose libc is shared finds libc's with dlsym.
 * In one linked with -static the names cannot clash (libc.a defines
 * them weakly, as aliases of __swapcontext and __setcontext), but ours
 * (weak too, and met first: Note [Jumps in a static program]) take their
 * place, and libc.a's objects come in only if something asks
 * for their own names (weak references here do not).  __setcontext is
 * always there: the runtime's makecontext (signals.c) brings in its
 * trampoline, which calls it.  __swapcontext only if `pkg-config
 * --static` asked (-Wl,-u,__swapcontext); without it, swapcontext is
 * made of getcontext, which the runtime also brings in, and
 * __setcontext: the same registers, floating-point state and signal
 * mask, the mask saved and set in two calls where glibc's makes one.
 * tests/robust.py coroutines and generators, linked with -static with
 * and without the flag.
 */
#include <dlfcn.h>
#include <errno.h>
#include <ucontext.h>

#include "runtime.h"

typedef int swap_fn(ucontext_t *, const ucontext_t *);
typedef int set_fn(const ucontext_t *);

static void *real_swapcontext, *real_setcontext;

/* libc.a's: Note [Switches in a static program]. */
extern int __swapcontext(ucontext_t *, const ucontext_t *) __attribute__((weak));
extern int __setcontext(const ucontext_t *) __attribute__((weak));
/* It returns twice, which the compiler must know for swap_in_two. */
extern int getcontext(ucontext_t *) __attribute__((returns_twice));

/* swapcontext where libc.a's is not linked in: this frame is where the
 * saved context resumes, and returns 0 then, as glibc's does. */
static int swap_in_two(ucontext_t *from, const ucontext_t *to)
{
	volatile int resumed = 0;

	if (getcontext(from) != 0)
		return -1;
	if (resumed)
		return 0;
	resumed = 1;
	return ((set_fn *)__atomic_load_n(&real_setcontext, __ATOMIC_ACQUIRE))(to);
}

static void ucontext_lookup(void)
{
	void *set = rt_next_or("setcontext", (void *)__setcontext);
	void *swap = rt_next_or("swapcontext", (void *)__swapcontext);

	if (swap == NULL && set != NULL)
		swap = (void *)swap_in_two;
	__atomic_store_n(&real_setcontext, set, __ATOMIC_RELEASE);
	__atomic_store_n(&real_swapcontext, swap, __ATOMIC_RELEASE);
}

/* Before main: a switch may come from a signal handler, where dlsym is no
 * safe call. */
__attribute__((constructor)) static void ucontext_lookup_early(void)
{
	ucontext_lookup();
}

int rt_plain_swapcontext(struct ucontext_t *from, const struct ucontext_t *to)
{
	if (!rt_real_ready(&real_swapcontext, ucontext_lookup)) {
		errno = ENOSYS;
		return -1;
	}
	return ((swap_fn *)real_swapcontext)(from, to);
}

RT_API int swapcontext(ucontext_t *restrict from, const ucontext_t *restrict to)
{
	struct rt_stack_saved mine;
	int rc;

	if (!rt_real_ready(&real_swapcontext, ucontext_lookup)) {
		errno = ENOSYS;
		return -1;
	}
	rt_stack_leave(&mine, to, from);
	rc = ((swap_fn *)real_swapcontext)(from, to);
	rt_stack_back(&mine); /* this stack runs again */
	return rc;
}

RT_API int setcontext(const ucontext_t *to)
{
	struct rt_stack_saved mine;
	int rc;

	if (!rt_real_ready(&real_setcontext, ucontext_lookup)) {
		errno = ENOSYS;
		return -1;
	}
	rt_stack_leave(&mine, to, NULL);
	rc = ((set_fn *)real_setcontext)(to);
	rt_stack_back(&mine); /* it failed: still here */
	return rc;
}
