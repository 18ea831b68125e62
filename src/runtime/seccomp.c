/*
 * seccomp.c - prctl and syscall: a seccomp filter the program puts
 * itself under, seen before it is, and a name it gives its thread
 * (shared runtime only).
 *
 * Note [Handlers under a filter]: the runtime's handlers for fatal
 * signals (signals.c) make system calls of their own before the signal
 * can end the process as it would have (sigaltstack, gettid, the write,
 * the reset of the action, tgkill).  Under a filter that lists what it
 * allows and kills the thread at anything else (file(1)'s, libseccomp's
 * SCMP_ACT_KILL), the first of them killed the thread by SIGSYS, and the
 * process died by SIGSYS where without ccprof it died by the signal it
 * was sent (helper-130: SIGTERM).  No call of ours is safe once such a
 * filter holds, and whether it allows a call the kernel does not say.
 * So when the program installs a filter, the runtime first puts the
 * program's own actions back for every signal it handles
 * (rt_dispositions_step_aside): the kernel then acts on a signal exactly
 * as without ccprof, and a process killed by one writes no profile,
 * which is the price.  Exits still write as Note [Sandboxed] says, and a
 * leader killed by its own filter as Note [A leader that died alone].
 * Both ways in are watched: prctl(PR_SET_SECCOMP) and the seccomp system
 * call through syscall(2) (glibc has no wrapper for it; libseccomp calls
 * it so), in either mode, before libc's call, whether or not it then
 * succeeds.  A filter installed by a raw system call instruction, or
 * with the actions changed since by one (glibc's sigset), is out of
 * reach.  Only in the shared runtime: linked into a static program,
 * these would clash with libc's.
 */
#include <dlfcn.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define CCPROF_BUILDING_RUNTIME
#include "ccprof.h"
#include "runtime.h"

static void *real_prctl;
static void *real_syscall;

/* Stored atomically: the sampling thread, started by init.c's
 * constructor before this file's runs, makes both calls too (its timer
 * slack, gettid), and may look them up at the same time. */
static void seccomp_lookup_now(void)
{
	__atomic_store_n(&real_prctl, dlsym(RTLD_NEXT, "prctl"), __ATOMIC_RELEASE);
	__atomic_store_n(&real_syscall, dlsym(RTLD_NEXT, "syscall"), __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void seccomp_lookup(void)
{
	seccomp_lookup_now();
}

static int installs_filter_by_prctl(long option, unsigned long mode)
{
	return option == PR_SET_SECCOMP &&
	       (mode == SECCOMP_MODE_FILTER || mode == SECCOMP_MODE_STRICT);
}

/* Before libc's call, whether or not it then succeeds. */
static void installing(void)
{
	rt_dispositions_step_aside(); /* Note [Handlers under a filter] */
	rt_thread_keep_own_name();    /* Note [Calls as a thread ends] in threads.c */
	rt_sandbox_installing();
}

RT_API int prctl(int option, ...)
{
	typedef int (*prctl_fn)(int, unsigned long, unsigned long, unsigned long, unsigned long);
	unsigned long a[4];
	va_list ap;
	int r;

	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (installs_filter_by_prctl(option, a[0]))
		installing();
	if (!rt_real_ready(&real_prctl, seccomp_lookup_now))
		return -1;
	r = ((prctl_fn)__atomic_load_n(&real_prctl, __ATOMIC_ACQUIRE))(option, a[0], a[1], a[2],
									a[3]);
	if (r == 0 && option == PR_SET_NAME && a[0] != 0 && rt_self != NULL)
		rt_thread_named(pthread_self(), (const char *)a[0]); /* threads.c */
	return r;
}

RT_API long syscall(long number, ...)
{
	typedef long (*syscall_fn)(long, long, long, long, long, long, long);
	long a[6];
	va_list ap;

	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if ((number == SYS_seccomp &&
	     (a[0] == SECCOMP_SET_MODE_FILTER || a[0] == SECCOMP_SET_MODE_STRICT)) ||
	    (number == SYS_prctl && installs_filter_by_prctl(a[0], (unsigned long)a[1])))
		installing();
	if (!rt_real_ready(&real_syscall, seccomp_lookup_now))
		return -1;
	return ((syscall_fn)__atomic_load_n(&real_syscall, __ATOMIC_ACQUIRE))(number, a[0], a[1],
									      a[2], a[3], a[4],
									      a[5]);
}
