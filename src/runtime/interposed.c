/*
 * interposed.c - the real function behind one the runtime interposes:
 * libc's, which dlsym finds.
 */
#include <dlfcn.h>
#include <errno.h>

#include "runtime.h"

/* Interposed functions (exec.c, namespaces.c, dlclose.c, longjmp.c,
 * catch.c, ucontext.c and the shared runtime's exitgate.c, shellspawn.c,
 * seccomp.c, threadname.c, altstack.c) call libc's own, which `lookup`
 * finds with dlsym, at start-up or late if a constructor that ran before ours calls
 * one.  0 with errno ENOSYS if libc has none.  Unsanitized: altstack.c's
 * is called from ThreadSanitizer's start-up. */
RT_UNSANITIZED int rt_real_ready(void *const *real, void (*lookup)(void))
{
	/* Atomic: a lookup may run in two threads at once (seccomp.c's, in
	 * the sampling thread before that file's constructor). */
	if (__atomic_load_n(real, __ATOMIC_ACQUIRE) == NULL)
		lookup();
	if (__atomic_load_n(real, __ATOMIC_ACQUIRE) == NULL)
		errno = ENOSYS;
	return __atomic_load_n(real, __ATOMIC_ACQUIRE) != NULL;
}

/* dlsym's answer, or where it has none (a static program) the fallback. */
void *rt_next_or(const char *name, void *fallback)
{
	void *f = dlsym(RTLD_NEXT, name);

	return f != NULL ? f : fallback;
}
