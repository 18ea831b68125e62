/*
 * threadname.c - pthread_setname_np: the names the program gives its
 * threads, kept as they are given, for a thread that may not ask its own
 * as it ends (Note [Calls as a thread ends] in threads.c; prctl's
 * PR_SET_NAME is seen in seccomp.c).  Shared runtime only: linked into a
 * static program, this would clash with libc's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

#define CCPROF_BUILDING_RUNTIME
#include "ccprof.h"
#include "runtime.h"

static void *real_setname;

static void setname_lookup_now(void)
{
	__atomic_store_n(&real_setname, dlsym(RTLD_NEXT, "pthread_setname_np"), __ATOMIC_RELEASE);
}

/* glibc (2.34 on) names the calling thread by prctl, which it calls
 * directly, not through seccomp.c's, and another by a write to its /proc
 * comm.  Keeps errno, as libc's does. */
RT_API int pthread_setname_np(pthread_t thread, const char *name)
{
	typedef int (*setname_fn)(pthread_t, const char *);
	int r, saved = errno;

	if (!rt_real_ready(&real_setname, setname_lookup_now)) {
		errno = saved;
		return ENOSYS;
	}
	r = ((setname_fn)__atomic_load_n(&real_setname, __ATOMIC_ACQUIRE))(thread, name);
	if (r == 0)
		rt_thread_named(thread, name);
	return r;
}
