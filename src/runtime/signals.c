/*
 * signals.c - the profile survives signals, and the program's signal
 * semantics do not change.
 *
 * - Signals whose default action ends the process (term_signals: SIGHUP,
 *   SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2,
 *   SIGVTALRM, SIGXCPU, SIGXFSZ), while their action is the default:
 *   write the profile, then restore the default action and re-raise, so
 *   the process still dies by that signal.  A handler already present
 *   when we start is chained: ours runs first.
 * - SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS: print the crashing
 *   thread's cost-centre stack (GHC's -xc; crash_stack=0 turns it off),
 *   write what was collected, and die by the same signal.
 * - dump_signal=SIG: write the profile on demand and carry on.
 *
 * The program keeps its own view of these signals (Note [The program's
 * dispositions]): sigaction and the signal functions are interposed, so a
 * program that asks for the default action gets ours behind it, and sees
 * the default action when it asks what is installed.  A signal the
 * program ignores stays ignored, and a handler it installs replaces ours
 * (if it exits, the profile is written at exit).
 *
 * Everything here runs in signal context: only async-signal-safe calls,
 * the profile written by rt_dump_async (dump.c) from preallocated memory.
 */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/elfsym.h"
#include "common/handled_signals.h"
#include "runtime.h"

#define SIGNALS 65 /* 1..64 */

typedef void (*rt_handler)(int, siginfo_t *, void *);

/* The interposed functions may run before a sanitizer's runtime is ready
 * (ThreadSanitizer installs its own handlers through sigaction from its
 * start-up): a build of the runtime with -fsanitize=thread must put no
 * call of the sanitizer's on their way to libc. */
#if defined(__has_attribute) && __has_attribute(disable_sanitizer_instrumentation)
#define RT_UNSANITIZED __attribute__((disable_sanitizer_instrumentation)) /* clang */
#else
#define RT_UNSANITIZED __attribute__((no_sanitize("thread"))) /* gcc: all of it */
#endif

/* glibc's sigaction under the name it exports for this (GLIBC_2.2.5),
 * in libc.so and libc.a alike: the program's calls reach ours, the
 * runtime's must not. */
extern int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);

/* While ours[sig] is installed, previous[sig] is the action the program
 * believes is there: what was there when we started, or the default
 * action the program asked for since. */
static struct sigaction previous[SIGNALS];
static rt_handler ours[SIGNALS];
static long writer;  /* thread id of the write from a handler, 0 before it */
static int written;  /* that write has ended */

static const int fatal_signals[] = { CCP_CRASH_SIGNALS };
static const int term_signals[] = { CCP_TERM_SIGNALS };

/* ---- Output without stdio ------------------------------------------------ */

static void put(const char *s)
{
	if (rt_write_quietly(2, s, strlen(s)) < 0) {
		/* stderr is gone: nothing to do */
	}
}

static void put_number(uint64_t v, int base)
{
	char buf[24];
	int i = (int)sizeof buf - 1;

	buf[i] = '\0';
	do {
		buf[--i] = "0123456789abcdef"[v % (unsigned)base];
		v /= (unsigned)base;
	} while (v && i > 0);
	put(buf + i);
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGABRT: return "SIGABRT";
	case SIGSYS: return "SIGSYS";
	default: return "signal";
	}
}

/* One line per active cost centre, innermost first, as GHC's -xc does:
 * the marked entries of the current context's history. */
static void print_cc(uint32_t cc)
{
	const struct rt_cc_info *info = rt_cc_get(cc);
	char name[256];

	put("ccprof:   ");
	if (info->kind == CCP_CC_MANUAL) {
		put(info->name);
	} else if (info->module >= 0) {
		const struct rt_module *m = rt_module_get((uint32_t)info->module);
		uint64_t off = info->key - m->base;

		if (elfsym_find_unbuffered(m->path, off, name, sizeof name) == 0)
			put(name);
		else
			put("?");
		put("  (");
		put(m->path);
		put("+0x");
		put_number(off, 16);
		put(")");
	}
	put("\n");
}

static void print_stack(int sig)
{
	struct rt_thread *t = rt_self;
	const struct rt_ctx *c;
	uint32_t i;

	/* No thread ever ran an instrumented function: a process ccprof
	 * record passed through (a shell), whose crash is none of ours. */
	if (t == NULL && rt_registry_empty())
		return;
	put("ccprof: ");
	put(signal_name(sig));
	if (t == NULL) {
		put(" outside any profiled function\n");
		return;
	}
	put(" in thread ");
	put_number(t->tid, 10);
	put("; cost-centre stack, innermost first:\n");
	c = t->cur;
	for (i = c->len; i-- > 0;)
		if (CCP_ENTRY_MARKED(c->hist[i]) && CCP_ENTRY_CC(c->hist[i]) < rt_cc_count())
			print_cc(CCP_ENTRY_CC(c->hist[i]));
	if (c->len == 0)
		put("ccprof:   (no cost centre active)\n");
}

/* ---- Handlers -------------------------------------------------------------- */

static int is_handler(const struct sigaction *sa)
{
	if (sa->sa_flags & SA_SIGINFO)
		return sa->sa_sigaction != NULL;
	return sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN;
}

static void call_previous(int sig, siginfo_t *info, void *uctx)
{
	const struct sigaction *p = &previous[sig];

	if (p->sa_flags & SA_SIGINFO)
		p->sa_sigaction(sig, info, uctx);
	else
		p->sa_handler(sig);
}

/* Default action, exactly: reset it, unblock the signal, raise it. */
static void die_by(int sig)
{
	struct sigaction dfl;
	sigset_t set;

	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	__sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

/*
 * Write the profile once.  A thread that gets a signal while another
 * thread writes waits for that write before it goes on to die:
 * otherwise two terminating signals close together, the second taken
 * by another thread (`ccprof record` passes on a SIGTERM that the
 * program's process group got too), end the process in the middle of
 * the write, and no profile is left.  Within the writing thread the
 * terminating signals are blocked for the write (a SIGINT in the middle
 * of the SIGTERM handler's write would end it as well), and unblocked
 * after it, not left to the handler's return: a program's SIGSEGV
 * handler we chain to may never return.  The writing thread itself, on
 * a crash in the middle of its write, does not wait for itself; nor does
 * a child forked during the write, which has no such thread (tgkill with
 * signal 0 says so).
 */
/* Block the terminating signals (and dump_signal) in this thread; what
 * was blocked goes to saved. */
static void hold_signals(sigset_t *saved)
{
	sigset_t held;
	size_t i;

	sigemptyset(&held);
	for (i = 0; i < sizeof term_signals / sizeof *term_signals; i++)
		sigaddset(&held, term_signals[i]);
	if (rt_config.dump_signal)
		sigaddset(&held, rt_config.dump_signal);
	pthread_sigmask(SIG_BLOCK, &held, saved);
}

static void write_once(void)
{
	long self = (long)syscall(SYS_gettid), first = 0;
	struct timespec ms = { 0, 1000000 };
	sigset_t saved;

	/* A vfork child (a pid not ours) writes nothing (dump.c), and must
	 * not mark the write done in the memory it shares with its parent,
	 * whose own death would then write nothing. */
	if (getpid() != rt_pid)
		return;
	/* Held before the claim: a signal between the two would find the
	 * write claimed by this very thread, not wait, and end the process
	 * before the write began. */
	hold_signals(&saved);
	if (__atomic_compare_exchange_n(&writer, &first, self, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		rt_dump_async();
		__atomic_store_n(&written, 1, __ATOMIC_RELEASE);
	} else {
		while (first != self && !__atomic_load_n(&written, __ATOMIC_ACQUIRE) &&
		       syscall(SYS_tgkill, (long)getpid(), first, 0L) == 0)
			nanosleep(&ms, NULL);
	}
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

static void on_fatal(int sig, siginfo_t *info, void *uctx)
{
	int saved = errno;

	/* A handler of the program's may handle faults as a matter of course
	 * (a garbage collector's write barrier): then this is no crash. */
	if (rt_config.crash_stack && !is_handler(&previous[sig]))
		print_stack(sig);
	write_once();
	if (is_handler(&previous[sig])) {
		call_previous(sig, info, uctx);
		errno = saved;
		return;
	}
	die_by(sig);
	errno = saved; /* a fault re-executes and now dies by default */
}

static void on_term(int sig, siginfo_t *info, void *uctx)
{
	int saved = errno;

	if (is_handler(&previous[sig])) {
		call_previous(sig, info, uctx);
		errno = saved;
		return;
	}
	write_once();
	die_by(sig);
	errno = saved;
}

static void on_dump(int sig, siginfo_t *info, void *uctx)
{
	int saved = errno;

	rt_dump_async();
	if (is_handler(&previous[sig]))
		call_previous(sig, info, uctx);
	errno = saved;
}

/* libc's signal, whose flags for a handler we keep (SA_RESTART but after
 * siginterrupt), looked up at start-up as exec.c's are; NULL in a static
 * program, where the action is built as glibc builds it. */
static sighandler_t (*real_signal)(int, sighandler_t);

void rt_signals_init(void)
{
	*(void **)&real_signal = dlsym(RTLD_NEXT, "signal");
}

/* Only SIGSEGV's handler runs on an alternate signal stack the program
 * may have set up: a stack overflow can be reported only there.  Such a
 * stack is often small (8 KB: gnulib's c-stack, Rust's threads), too
 * small for the write, which would overflow it and end a SIGTERM or an
 * abort() by SIGSEGV; the thread's own stack serves the others. */
RT_UNSANITIZED static int install_ours(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = ours[sig];
	sa.sa_flags = SA_SIGINFO | SA_RESTART | (sig == SIGSEGV ? SA_ONSTACK : 0);
	sigemptyset(&sa.sa_mask);
	return __sigaction(sig, &sa, NULL);
}

RT_UNSANITIZED static int is_default(const struct sigaction *sa)
{
	return sa->sa_handler == SIG_DFL; /* SIG_DFL is 0 in either member */
}

static void install(int sig, rt_handler fn)
{
	if (sig <= 0 || sig >= SIGNALS || __sigaction(sig, NULL, &previous[sig]) != 0)
		return;
	ours[sig] = fn; /* whenever the program asks for the default */
	if (!(previous[sig].sa_flags & SA_SIGINFO) && previous[sig].sa_handler == SIG_IGN)
		return; /* ignored stays ignored */
	install_ours(sig);
}

void rt_signals_install(void)
{
	size_t i;

	for (i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
		install(fatal_signals[i], on_fatal);
	/* dump_signal=SIGINT replaces that signal's default action: on_term is
	 * not installed under on_dump, which would chain to it, and on_term to
	 * itself, for ever.  (Crash signals are refused by options.c.) */
	for (i = 0; i < sizeof term_signals / sizeof *term_signals; i++)
		if (term_signals[i] != rt_config.dump_signal)
			install(term_signals[i], on_term);
	if (rt_config.dump_signal)
		install(rt_config.dump_signal, on_dump);
}

/*
 * Note [The program's dispositions]: a program that cleans up on SIGINT
 * or SIGTERM often does it outside its handler and then dies by the
 * signal the usual way: it restores the default action and raises the
 * signal again (xz).  Had the default action gone to the kernel, that
 * death would write no profile.  So while ours[sig] is set, a request for
 * the default action installs ours instead, and previous[sig] records
 * the request; a handler or SIG_IGN goes to the kernel as asked.  And
 * whatever is installed, the program is told of its own action: a
 * program that saves the old action to restore it later (old =
 * signal(SIGINT, SIG_IGN); ... signal(SIGINT, old)) must get SIG_DFL,
 * not our handler, which it would reinstall without SA_SIGINFO.
 * What it is told is what the kernel would give back: glibc adds its
 * restorer to every action (as it did to ours), the kernel drops SIGKILL
 * and SIGSTOP from the mask (as_kept), and signal(sig, SIG_DFL) asks for
 * what glibc's signal builds (the signal blocked in its handler,
 * SA_RESTART, also after siginterrupt, whose setting we cannot see).
 * Not for a vfork child (its pid is not ours): it shares our memory but
 * not our signal actions, so it gets libc's calls unchanged.  Signals
 * are blocked and a lock held while the kernel's action and previous[]
 * are read and changed together: sigaction may be called from a handler
 * and from several threads.  The lock is held across fork (init.c's
 * handlers), or a child forked while another thread held it would wait
 * for it for ever in its first sigaction, all signals blocked.  Out of
 * reach: glibc's sigset (which calls
 * the kernel's action directly), raw system calls, and a handler
 * installed with SA_RESETHAND (sysv_signal's way), which the kernel
 * itself resets to the default action when it runs.
 */
RT_UNSANITIZED static int managed(int sig)
{
	return sig > 0 && sig < SIGNALS && ours[sig] && getpid() == rt_pid;
}

static int disposition_lock;

RT_UNSANITIZED static void lock_dispositions(sigset_t *saved)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, saved);
	while (__atomic_exchange_n(&disposition_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

RT_UNSANITIZED static void unlock_dispositions(const sigset_t *saved)
{
	__atomic_store_n(&disposition_lock, 0, __ATOMIC_RELEASE);
	pthread_sigmask(SIG_SETMASK, saved, NULL);
}

static sigset_t fork_saved; /* fork's handlers run one fork at a time */

void rt_signals_before_fork(void)
{
	lock_dispositions(&fork_saved);
}

void rt_signals_after_fork(void)
{
	unlock_dispositions(&fork_saved);
}

/* sa, a default action the program asked for, as sigaction gives it back
 * once the kernel has it; kept: our action as the kernel has it. */
RT_UNSANITIZED static void as_kept(struct sigaction *sa, const struct sigaction *kept)
{
	sa->sa_flags |= kept->sa_flags & ~(SA_SIGINFO | SA_RESTART | SA_ONSTACK);
	sa->sa_restorer = kept->sa_restorer;
	sigdelset(&sa->sa_mask, SIGKILL);
	sigdelset(&sa->sa_mask, SIGSTOP);
}

/* The program's view of sig's action; *held: whether ours is installed. */
RT_UNSANITIZED static int current_view(int sig, struct sigaction *view, int *held)
{
	struct sigaction now;

	if (__sigaction(sig, NULL, &now) != 0)
		return -1;
	*held = (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == ours[sig];
	*view = *held ? previous[sig] : now;
	return 0;
}

/* sigaction for a managed signal, under the lock. */
RT_UNSANITIZED static int change_disposition(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction view, kept;
	int held;

	if (current_view(sig, &view, &held) != 0)
		return -1;
	if (act && is_default(act)) {
		previous[sig] = *act;
		if (!held && install_ours(sig) != 0)
			return -1;
		if (__sigaction(sig, NULL, &kept) == 0)
			as_kept(&previous[sig], &kept);
	} else if (act && __sigaction(sig, act, NULL) != 0) {
		return -1;
	}
	if (old)
		*old = view;
	return 0;
}

/* sigaction and the signal functions as the program calls them.  They
 * call one another directly, not by their exported names, which another
 * interposer (a sanitizer's) may take first: the program's sysv_signal,
 * say, is not to look like its call of sigaction. */
RT_UNSANITIZED static int program_sigaction(int sig, const struct sigaction *act,
					    struct sigaction *old)
{
	sigset_t saved;
	int r, e;

	if (!managed(sig))
		return __sigaction(sig, act, old);
	lock_dispositions(&saved);
	r = change_disposition(sig, act, old);
	e = errno;
	unlock_dispositions(&saved);
	errno = e;
	return r;
}

RT_UNSANITIZED static sighandler_t set_handler(int sig, sighandler_t handler)
{
	struct sigaction sa;

	if (handler == SIG_ERR) {
		errno = EINVAL;
		return SIG_ERR;
	}
	if (real_signal)
		return real_signal(sig, handler);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, sig);
	sa.sa_flags = SA_RESTART;
	if (__sigaction(sig, &sa, &sa) != 0)
		return SIG_ERR;
	return sa.sa_handler;
}

RT_UNSANITIZED static sighandler_t program_signal(int sig, sighandler_t handler)
{
	struct sigaction sa, view;
	sigset_t saved;
	sighandler_t r;
	int held, e;

	if (!managed(sig))
		return set_handler(sig, handler);
	if (handler == SIG_DFL) { /* glibc's signal: set_handler */
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = SIG_DFL;
		sigemptyset(&sa.sa_mask);
		sigaddset(&sa.sa_mask, sig);
		sa.sa_flags = SA_RESTART;
		return program_sigaction(sig, &sa, &view) == 0 ? view.sa_handler : SIG_ERR;
	}
	lock_dispositions(&saved);
	r = current_view(sig, &view, &held) != 0 ? SIG_ERR : set_handler(sig, handler);
	if (r != SIG_ERR && held)
		r = view.sa_handler;
	e = errno;
	unlock_dispositions(&saved);
	errno = e;
	return r;
}

RT_UNSANITIZED RT_API int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return program_sigaction(sig, act, old);
}

RT_UNSANITIZED RT_API sighandler_t signal(int sig, sighandler_t handler)
{
	return program_signal(sig, handler);
}

RT_API sighandler_t bsd_signal(int sig, sighandler_t handler);

RT_UNSANITIZED RT_API sighandler_t bsd_signal(int sig, sighandler_t handler)
{
	return program_signal(sig, handler);
}

/* glibc's third name for its signal (SVID). */
RT_UNSANITIZED RT_API sighandler_t ssignal(int sig, sighandler_t handler)
{
	return program_signal(sig, handler);
}

/* glibc's System V signal, what signal is in a strict ISO C program
 * (-std=c11 without _DEFAULT_SOURCE): the handler reset to the default
 * action when it runs, the signal not blocked in it, no SA_RESTART. */
RT_UNSANITIZED static sighandler_t sysv(int sig, sighandler_t handler)
{
	struct sigaction sa, old;

	if (handler == SIG_ERR) {
		errno = EINVAL;
		return SIG_ERR;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	return program_sigaction(sig, &sa, &old) == 0 ? old.sa_handler : SIG_ERR;
}

RT_UNSANITIZED RT_API sighandler_t __sysv_signal(int sig, sighandler_t handler)
{
	return sysv(sig, handler);
}

RT_UNSANITIZED RT_API sighandler_t sysv_signal(int sig, sighandler_t handler)
{
	return sysv(sig, handler);
}
