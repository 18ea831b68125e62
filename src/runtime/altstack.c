/*
 * altstack.c - an alternate signal stack lent to each thread, so that a
 * stack overflow is reported (shared runtime only).
 *
 * Note [A stack to overflow onto]: a thread that overflows its stack gets
 * SIGSEGV, and a handler can run only on an alternate signal stack: with
 * none, the kernel kills the process at once.  A program that recurses
 * without end, the commonest crash of the programs a call-graph profiler
 * is for, died by SIGSEGV with no profile and no cost-centre stack,
 * while record blamed a handler of the program's own (helper-132:
 * GNU make including its own makefile).  So the runtime lends each
 * thread a stack of its own, if it has none, for SIGSEGV's handler to
 * start on (SA_ONSTACK, dispositions.c): the handler then moves to the
 * runtime's larger stack (Note [A small alternate stack] in signals.c),
 * reports and writes, and the process dies by SIGSEGV as before.  Lent,
 * not given: sigaltstack tells the program the thread has none while
 * ours is set and not in use, and a stack the program sets replaces it,
 * as it would replace none; one it takes away is replaced by ours.  A
 * handler of the program's own installed with SA_ONSTACK runs on it
 * too, where it would have run on the thread's stack: 256 KB, 32 times
 * SIGSTKSZ, above a guard page (a handler that needs more dies by
 * SIGSEGV there; on static memory it wrote over the runtime's,
 * helper-133), and from inside such a handler sigaltstack says it is in
 * use and refuses to replace it (EPERM).  No page of it is touched
 * unless used (but with overcommit off, vm.overcommit_memory=2, it counts
 * as committed memory, and a program that locks its memory makes it
 * resident).  Under no seccomp filter only (Note [Calls as a thread
 * ends] in threads.c).
 *
 * The main thread's is lent as the process starts (three calls), and
 * kept.  Another thread's is lent at its first call, as its state is
 * made, in one call that also says whether the thread had one of its
 * own (then put back), and taken back as the thread ends, in one more
 * (Note [Stacks for other threads]).
 *
 * Only in the shared runtime: linked into a static program, sigaltstack
 * would clash with libc's, and the stack would show.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CCPROF_BUILDING_RUNTIME
#include "ccprof.h"
#include "runtime.h"

#define LENT_BYTES (256 * 1024)

static void *lent; /* the main thread's: its lowest byte, above its guard page */
/* Another thread's, from its first call to its end: Note [Stacks for
 * other threads]. */
static __thread void *thread_lent __attribute__((tls_model("initial-exec")));
static __thread int thread_may_lend __attribute__((tls_model("initial-exec")));
static void *real_sigaltstack;

RT_UNSANITIZED static void altstack_lookup_now(void)
{
	__atomic_store_n(&real_sigaltstack, dlsym(RTLD_NEXT, "sigaltstack"), __ATOMIC_RELEASE);
}

/* libc's.  Looked up at the first call: ThreadSanitizer's start-up sets
 * its alternate stack through its interceptor, which calls ours, before
 * any constructor of ours runs and before a sanitized function may
 * (RT_UNSANITIZED). */
RT_UNSANITIZED static int call_real(const stack_t *ss, stack_t *old)
{
	typedef int (*sigaltstack_fn)(const stack_t *, stack_t *);

	if (!rt_real_ready(&real_sigaltstack, altstack_lookup_now))
		return -1;
	return ((sigaltstack_fn)__atomic_load_n(&real_sigaltstack, __ATOMIC_ACQUIRE))(ss, old);
}

RT_UNSANITIZED static int is_lent(const stack_t *ss)
{
	void *main_lent = __atomic_load_n(&lent, __ATOMIC_ACQUIRE);

	return ss->ss_sp != NULL && !(ss->ss_flags & SS_DISABLE) &&
	       (ss->ss_sp == main_lent || ss->ss_sp == thread_lent);
}

/* LENT_BYTES above a guard page, which a handler that needs more meets
 * rather than the memory below. */
static void *map_stack(void)
{
	char *p = rt_map(LENT_BYTES + RT_POOL_PAGE);

	if (p == NULL)
		return NULL;
	if (mprotect(p, RT_POOL_PAGE, PROT_NONE) != 0) {
		rt_unmap(p, LENT_BYTES + RT_POOL_PAGE);
		return NULL;
	}
	return p + RT_POOL_PAGE;
}

static int may_lend(void)
{
	return rt_pid != 0 && !rt_config.disabled && rt_config.handle_signals && rt_sandbox_none();
}

/* In the main thread of the process the runtime started in (its tid is
 * that pid: not a vfork child's), if it has no alternate stack: as the
 * runtime starts, and after the program took its own away (helper-134:
 * a program that set one up and disabled it died of its overflow with
 * no profile).  Mapped once. */
static void lend(void)
{
	stack_t old, ss;
	void *ours = __atomic_load_n(&lent, __ATOMIC_ACQUIRE);

	if (!may_lend() || (pid_t)syscall(SYS_gettid) != rt_pid)
		return;
	if (call_real(NULL, &old) != 0 || !(old.ss_flags & SS_DISABLE))
		return;
	if (ours == NULL)
		ours = map_stack();
	ss.ss_sp = ours;
	ss.ss_size = LENT_BYTES;
	ss.ss_flags = 0;
	if (ss.ss_sp != NULL && call_real(&ss, NULL) == 0)
		__atomic_store_n(&lent, ss.ss_sp, __ATOMIC_RELEASE);
}

/*
 * Note [Stacks for other threads]: a thread other than main that
 * overflowed its stack died with no profile, as main did before it had a
 * stack lent.  Each thread is lent one as its state is made (its first
 * call), and takes it back as it ends (thread_exit in threads.c): a
 * stack may then serve the next thread, so the mappings go with the
 * threads running at once, not with all the threads there were, and up
 * to POOL_STACKS wait for the next thread (rt_slot_take, pagepool.c):
 * 266 MB of address space at most, after a program ran that many
 * threads at once, untouched unless a handler ran there (33 MB, 128,
 * under a limit that counts it: `ulimit -v`, `ulimit -d`).  There were 32
 * at first; 128 once 50 threads started at once mapped and unmapped one
 * each (Note [Pages for the next thread] in pagepool.c); 1,024, as many
 * as the warm ended threads (Note [States reborn] in threads.c), once
 * 1,000 at once did so, each with a mapping, a guard page's mprotect
 * and an unmapping, all three under the kernel's lock on the address
 * space, which cost more than the rest of their start and end.
 * Lending is one call that sets ours and says what was set before; a
 * thread that had a stack of its own before its first call (a
 * sanitizer's, a runtime's of another language) has it put back at
 * once.  Taking back is one call that disables the thread's stack, and
 * puts back one of the program's that replaced ours; from a handler
 * running on ours it fails (EPERM), and the stack stays the thread's, a
 * loss of 260 KB of address space when the thread is gone.
 * Instrumented code that runs on the thread after its end (another
 * key's destructor) has no stack lent.
 */
#define POOL_STACKS 1024
#define POOL_STACKS_LIMITED 128

static void *pool[POOL_STACKS];

static void *pool_take(void)
{
	void *p = rt_slot_take(pool, POOL_STACKS);

	return p != NULL ? p : map_stack();
}

/* Beyond the first POOL_STACKS_LIMITED, none under a limit that counts
 * the address space kept (rt_reserve_none, shadow.c). */
static void pool_give(void *p)
{
	if (!rt_slot_give(pool, POOL_STACKS_LIMITED, p) &&
	    (rt_reserve_none() ||
	     !rt_slot_give(pool + POOL_STACKS_LIMITED, POOL_STACKS - POOL_STACKS_LIMITED, p)))
		rt_unmap((char *)p - RT_POOL_PAGE, LENT_BYTES + RT_POOL_PAGE);
}

/* The program set ss as this thread's stack (Note [An alternate stack on
 * the thread's stack] in signals.c).  Unsanitized: ThreadSanitizer's
 * start-up sets its stack through us before it can run instrumented
 * code (helper-149: it crashed there). */
RT_UNSANITIZED static void program_altstack(const stack_t *ss)
{
	rt_alt_size = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (ss == NULL || (ss->ss_flags & SS_DISABLE))
		return;
	rt_alt_lo = (uintptr_t)ss->ss_sp;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rt_alt_size = ss->ss_size;
}

/* ours, if the calling thread has no alternate stack; 1 if set. */
static int set_if_none(void *ours)
{
	stack_t ss = { .ss_sp = ours, .ss_size = LENT_BYTES, .ss_flags = 0 }, old;

	if (call_real(&ss, &old) != 0)
		return 0; /* on one now (EPERM) */
	if (!(old.ss_flags & SS_DISABLE) && old.ss_sp != ours) {
		call_real(&old, NULL); /* its own: put back */
		program_altstack(&old);
		return 0;
	}
	return 1;
}

/* A thread other than main makes its state (threads.c): ours, unless it
 * has its own; either way lent one again when it takes its own away.
 * Both callers keep errno (thread_start, lend_again). */
static void lend_to_thread(void)
{
	void *ours;

	if (thread_lent == NULL && may_lend() && (ours = pool_take()) != NULL) {
		if (set_if_none(ours))
			thread_lent = ours;
		else
			pool_give(ours);
		thread_may_lend = 1;
	}
}

/* The thread ends (threads.c): its stack back to the pool.  Forgotten
 * before it is disabled, so that a handler that takes its own stack
 * away meanwhile is not lent it again (lend_again), which would leave it
 * set here and in the pool.  Not under a filter that came since (Note
 * [Calls as a thread ends] in threads.c), nor from a handler on it
 * (EPERM): then it is lost, 260 KB of address space. */
static void take_back_from_thread(void)
{
	stack_t off = { .ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE }, old;
	void *ours = thread_lent;
	int saved = errno;

	thread_may_lend = 0;
	if (ours == NULL || !rt_sandbox_none())
		return;
	thread_lent = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (call_real(&off, &old) != 0) {
		thread_lent = ours;
		errno = saved;
		return;
	}
	if (!(old.ss_flags & SS_DISABLE) && old.ss_sp != ours)
		call_real(&old, NULL); /* the program's own, which replaced ours */
	pool_give(ours);
	errno = saved;
}

/* The program took its own stack away: ours again, in main or in a
 * thread that was lent one or had its own. */
RT_UNSANITIZED static void lend_again(void)
{
	int saved = errno;

	if (thread_lent != NULL)
		set_if_none(thread_lent);
	else if (thread_may_lend)
		lend_to_thread();
	else if (rt_lend_altstack != NULL)
		lend();
	errno = saved;
}

/* Before ccprof_constructor (init.c), which lends through this; or after
 * an instrumented constructor of a library started the runtime, which
 * found no pointer here yet: then now (helper-133). */
__attribute__((constructor(200))) static void altstack_start(void)
{
	rt_lend_thread_altstack = lend_to_thread;
	rt_take_back_thread_altstack = take_back_from_thread;
	rt_lend_altstack = lend;
	if (rt_pid != 0)
		lend();
}

/* The program's view: no alternate stack where ours is set and idle.  In
 * use (SS_ONSTACK), it says so: the handler running on it is ours, or
 * one of the program's with SA_ONSTACK, which is on it.  One the program
 * takes away is replaced by ours, which it is then told is none. */
RT_API RT_UNSANITIZED int sigaltstack(const stack_t *ss, stack_t *old)
{
	int r = call_real(ss, old);

	if (r == 0 && old != NULL && is_lent(old) && !(old->ss_flags & SS_ONSTACK)) {
		old->ss_sp = NULL;
		old->ss_size = 0;
		old->ss_flags = SS_DISABLE;
	}
	if (r == 0 && ss != NULL) {
		program_altstack(ss); /* Note [An alternate stack on the thread's stack] */
		if (ss->ss_flags & SS_DISABLE)
			lend_again();
	}
	return r;
}
