/*
 * altstack.c - an alternate signal stack lent to the main thread, so that
 * a stack overflow is reported (shared runtime only).
 *
 * Note [A stack to overflow onto]: a thread that overflows its stack gets
 * SIGSEGV, and a handler can run only on an alternate signal stack: with
 * none, the kernel kills the process at once.  A program that recurses
 * without end, the commonest crash of the programs a call-graph profiler
 * is for, died by SIGSEGV with no profile and no cost-centre stack,
 * while record blamed a handler of the program's own (helper-132:
 * GNU make including its own makefile).  So the runtime lends the main
 * thread a stack of its own, if it has none, for SIGSEGV's handler to
 * start on (SA_ONSTACK, dispositions.c): the handler then moves to the
 * runtime's larger stack (Note [A small alternate stack] in signals.c),
 * reports and writes, and the process dies by SIGSEGV as before.  Lent,
 * not given: sigaltstack tells the program the thread has none while
 * ours is set and not in use, and a stack the program sets replaces it,
 * as it would replace none.  A handler of the program's own installed
 * with SA_ONSTACK runs on it too, where it would have run on the
 * thread's stack: 64 KB, eight times SIGSTKSZ.  The main thread only,
 * as the process starts, under no seccomp filter (one call more;
 * Note [Calls as a thread ends] in threads.c): other threads would pay
 * a mapping and two calls each.  Static memory, none of it touched
 * unless used.  Only in the shared runtime: linked into a static
 * program, sigaltstack would clash with libc's, and the stack would
 * show.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CCPROF_BUILDING_RUNTIME
#include "ccprof.h"
#include "runtime.h"

static char lent[64 * 1024] __attribute__((aligned(64)));
static void *real_sigaltstack;

/* libc's.  Looked up here if called before our constructor:
 * ThreadSanitizer's start-up sets its alternate stack through its
 * interceptor, which calls ours, before any constructor of ours runs and
 * before a sanitized function may (RT_UNSANITIZED). */
RT_UNSANITIZED static int call_real(const stack_t *ss, stack_t *old)
{
	typedef int (*sigaltstack_fn)(const stack_t *, stack_t *);
	void *real = __atomic_load_n(&real_sigaltstack, __ATOMIC_ACQUIRE);

	if (real == NULL) {
		real = dlsym(RTLD_NEXT, "sigaltstack");
		__atomic_store_n(&real_sigaltstack, real, __ATOMIC_RELEASE);
	}
	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return ((sigaltstack_fn)real)(ss, old);
}

RT_UNSANITIZED static int is_lent(const stack_t *ss)
{
	return ss->ss_sp == (void *)lent && !(ss->ss_flags & SS_DISABLE);
}

/* In the main thread, as the runtime starts. */
static void lend(void)
{
	stack_t old, ss;

	if (rt_config.disabled || !rt_config.handle_signals || !rt_sandbox_none() ||
	    (pid_t)syscall(SYS_gettid) != getpid())
		return;
	if (call_real(NULL, &old) != 0 || !(old.ss_flags & SS_DISABLE))
		return;
	ss.ss_sp = lent;
	ss.ss_size = sizeof lent;
	ss.ss_flags = 0;
	call_real(&ss, NULL);
}

/* Before ccprof_constructor (init.c), which lends through this. */
__attribute__((constructor(200))) static void altstack_start(void)
{
	rt_lend_altstack = lend;
}

/* The program's view: no alternate stack where ours is set and idle.  In
 * use (SS_ONSTACK), it says so: the handler running on it is ours, or
 * one of the program's with SA_ONSTACK, which is on it. */
RT_API RT_UNSANITIZED int sigaltstack(const stack_t *ss, stack_t *old)
{
	int r = call_real(ss, old);

	if (r == 0 && old != NULL && is_lent(old) && !(old->ss_flags & SS_ONSTACK)) {
		old->ss_sp = NULL;
		old->ss_size = 0;
		old->ss_flags = SS_DISABLE;
	}
	return r;
}
