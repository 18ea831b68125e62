/*
 * seccomp.c - prctl and syscall: a seccomp filter the program puts
 * itself under, seen before it is (shared runtime only).
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
#include <errno.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define CCPROF_BUILDING_RUNTIME
#include "ccprof.h"
#include "runtime.h"

static void *real_prctl;
static void *real_syscall;

/* libc's function, looked up once.  Atomic: the sampling thread, started
 * by init.c's constructor before this file's runs, makes both calls too
 * (its timer slack, gettid). */
static void *real(void **slot, const char *name)
{
	void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (f == NULL) {
		f = dlsym(RTLD_NEXT, name);
		__atomic_store_n(slot, f, __ATOMIC_RELEASE);
	}
	if (f == NULL)
		errno = ENOSYS;
	return f;
}

/* At start-up, not in a signal handler's first call: dlsym takes locks. */
__attribute__((constructor)) static void seccomp_lookup(void)
{
	real(&real_prctl, "prctl");
	real(&real_syscall, "syscall");
}

static int installs_filter_by_prctl(long option, unsigned long mode)
{
	return option == PR_SET_SECCOMP &&
	       (mode == SECCOMP_MODE_FILTER || mode == SECCOMP_MODE_STRICT);
}

RT_API int prctl(int option, ...)
{
	typedef int (*prctl_fn)(int, unsigned long, unsigned long, unsigned long, unsigned long);
	unsigned long a[4];
	va_list ap;

	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (installs_filter_by_prctl(option, a[0]))
		rt_dispositions_step_aside(); /* Note [Handlers under a filter] */
	prctl_fn f = (prctl_fn)real(&real_prctl, "prctl");
	return f ? f(option, a[0], a[1], a[2], a[3]) : -1;
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
		rt_dispositions_step_aside(); /* Note [Handlers under a filter] */
	syscall_fn f = (syscall_fn)real(&real_syscall, "syscall");
	return f ? f(number, a[0], a[1], a[2], a[3], a[4], a[5]) : -1;
}
