/*
 * ucontext.c - swapcontext and setcontext, which switch machine stacks,
 * with the shadow stack switched beside them (Note [One shadow stack a
 * stack] in stacks.c).  Shared runtime only: in a static executable
 * these would take the place of libc's, with none left to call; there
 * coroutines' calls follow the stack pointer, as before (README).
 *
 * The interposed swapcontext saves the caller's context inside itself:
 * whatever resumes it (a swapcontext, a setcontext, a coroutine's
 * function returning to its uc_link) comes back here first, before any
 * instrumented code runs, and puts back the shadow stack it left.
 */
#include <dlfcn.h>
#include <errno.h>
#include <ucontext.h>

#include "runtime.h"

typedef int swap_fn(ucontext_t *, const ucontext_t *);
typedef int set_fn(const ucontext_t *);

static void *real_swapcontext, *real_setcontext;

static void ucontext_lookup(void)
{
	__atomic_store_n(&real_swapcontext, dlsym(RTLD_NEXT, "swapcontext"), __ATOMIC_RELEASE);
	__atomic_store_n(&real_setcontext, dlsym(RTLD_NEXT, "setcontext"), __ATOMIC_RELEASE);
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
