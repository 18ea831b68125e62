/*
 * signals.c - the profile survives signals, and the program's signal
 * semantics do not change.
 *
 * - Signals whose default action ends the process (term_signals: SIGHUP,
 *   SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2,
 *   SIGVTALRM, SIGXCPU, SIGXFSZ), while their action is the default:
 *   write the profile, then restore the default action and re-raise, so
 *   the process still dies by that signal.  A handler already present
 *   when we start is left alone (Note [Handlers present at start] in
 *   dispositions.c).
 * - SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS: print the crashing
 *   thread's cost-centre stack (GHC's -xc; crash_stack=0 turns it off),
 *   write what was collected, and die by the same signal.
 * - dump_signal=SIG: write the profile on demand and carry on.
 *
 * The program keeps its own view of these signals (dispositions.c): a
 * program that asks for the default action gets ours behind it, and sees
 * the default action when it asks what is installed.  A signal the
 * program ignores stays ignored, and a handler it installs replaces ours
 * (if it exits, the profile is written at exit).
 *
 * Everything here runs in signal context: only async-signal-safe calls,
 * the profile written by rt_dump_async (dump.c) from preallocated memory.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "common/elfsym.h"
#include "common/handled_signals.h"
#include "runtime.h"

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
		const char *id = m->build_id[0] ? m->build_id : NULL;

		/* From the file loaded, not one put in its place since (Note
		 * [Names from the loaded file] in dump.c). */
		if ((m->main && elfsym_find_unbuffered_as("/proc/self/exe", id, off, name,
							  sizeof name) == 0) ||
		    elfsym_find_unbuffered_as(m->path, id, off, name, sizeof name) == 0)
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

/*
 * A fault signal another process sent (kill -SEGV, sigqueue: si_code 0 or
 * below, and not our pid) is no fault of the thread's: the report names
 * the sender, so that it does not read as a crash where the stack shows
 * (helper-128, `kill -SEGV` to make).  0 for a fault, or a signal the
 * process raised itself (abort's SIGABRT).  Per thread: two threads may
 * report at once.
 */
static __thread pid_t signal_sender __attribute__((tls_model("initial-exec")));

static void note_sender(const siginfo_t *info)
{
	signal_sender = info != NULL && info->si_code <= 0 && info->si_pid != rt_pid
				? info->si_pid
				: 0;
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
	if (signal_sender > 0) {
		put(" sent by process ");
		put_number((uint64_t)signal_sender, 10);
		put(t != NULL ? "," : "");
	}
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

/* The program's handler behind ours (dump_signal's), if it has one. */
static void call_previous(int sig, siginfo_t *info, void *uctx)
{
	struct sigaction p;

	rt_program_action_to_run(sig, &p);
	if (!is_handler(&p))
		return;
	if (p.sa_flags & SA_SIGINFO)
		p.sa_sigaction(sig, info, uctx);
	else
		p.sa_handler(sig);
}

/* Default action, exactly: reset it, unblock the signal, raise it. */
/*
 * Note [One signal to die by]: the signals that end a program are held
 * while the profile is written, and a second one that came meanwhile was
 * let in when the write ended, before the first was raised again: the
 * program's handler for it ran (git's cleanup, twice) and the process died
 * by the second, where a bare run dies by the first and never sees the
 * second (helper-120: git's SIGINT then SIGTERM, 0.5 ms apart).  So they
 * stay held through the re-raise, which unblocks only its own signal;
 * given back only if the process lives on after it.
 */
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

/*
 * Write the profile once.  A thread that gets a signal while another
 * thread writes waits for that write before it goes on to die:
 * otherwise two terminating signals close together, the second taken
 * by another thread (`ccprof record` passes on a SIGTERM that the
 * program's process group got too), end the process in the middle of
 * the write, and no profile is left.  Within the writing thread the
 * terminating signals are blocked for the write (a SIGINT in the middle
 * of the SIGTERM handler's write would end it as well), and unblocked
 * after it, not left to the handler's return, which the process may
 * not live to see.  The writing thread itself, on
 * a crash in the middle of its write, does not wait for itself; nor does
 * a child forked during the write, which has no such thread (tgkill with
 * signal 0 says so).
 */
static void write_once(void)
{
	long self = (long)syscall(SYS_gettid), first = 0;
	sigset_t saved;

	/* A vfork child (a pid not ours) writes nothing (dump.c), and must
	 * not mark the write done in the memory it shares with its parent,
	 * whose own death would then write nothing. */
	if (getpid() != rt_pid)
		return;
	if (rt_exit_wrote()) /* Note [A signal after the write at exit] in init.c */
		return;
	/* Held before the claim: a signal between the two would find the
	 * write claimed by this very thread, not wait, and end the process
	 * before the write began. */
	hold_signals(&saved);
	if (__atomic_compare_exchange_n(&writer, &first, self, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		rt_sampler_last_async();
		rt_dump_async();
		__atomic_store_n(&written, 1, __ATOMIC_RELEASE);
	} else if (first != self) {
		rt_wait_for(&written, first, RT_WAIT_UNBOUNDED);
	}
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

/*
 * Note [A small alternate stack]: SIGSEGV's handler runs on the
 * program's alternate signal stack if it has one (install_ours in
 * dispositions.c), and such a stack is often small: 8 KB (SIGSTKSZ,
 * gnulib's c-stack, Rust's threads), where the crash stack's names and
 * the write (about 20 KB) overflowed it, and the process died by a
 * second SIGSEGV with no profile.  So when the handler finds itself on
 * an alternate stack with less than STACK_NEED left below it, the
 * report and the write run on a stack of the runtime's own instead:
 * static memory (no page of it is touched unless used), entered by
 * makecontext/swapcontext, which glibc implements with no lock and no
 * allocation.  One thread at a time uses it; another crashing thread
 * waits for it (the first one's write is done with it by then, so the
 * second finds the write done).  An alternate stack set up with
 * SS_AUTODISARM (Linux 4.7 on) is disarmed by the kernel as the handler
 * starts, and sigaltstack then reports it disabled, not SS_ONSTACK (the
 * 8 KB stack overflowed again: tests/progs/signals.c's altdisarm): so
 * the move also happens when the handler runs outside the thread's own
 * stack (rt_thread's stack_lo..stack_hi), and when that stack is not
 * known (a thread that never ran an instrumented function), where moving
 * costs little and staying may overflow.  All signals stay blocked while
 * on it: the kernel no longer sees this thread on its alternate stack, and
 * would put a handler with SA_ONSTACK at the top of it, over the frames
 * we return to.  A crash inside the write, the signal blocked, ends the
 * process at once, as before.  The handler's way to the move is short
 * (about 1 KB with gcc, under 2 KB with clang), but only because the
 * runtime is linked with -z now (Makefile): a first call into libc from
 * it went through the lazy binder, which saves every register on the
 * stack and looks the symbol up there, and a program's 4 KB stack
 * (room for the kernel's frame, 3.6 KB here, and little more)
 * overflowed before the move (signals.c's alt4k).  clang's build needs
 * about 1.5 KB more before the move: 4 KB still overflows there, 5 KB
 * does not.
 */
#define STACK_NEED (64 * 1024)

static char own_stack[256 * 1024] __attribute__((aligned(64)));
static int own_stack_taken;
static ucontext_t on_own, left;
static void (*own_fn)(void *);
static void *own_arg;

/* sig 0: a write with no crash to report (_exit's). */
static void report(int sig)
{
	if (sig && rt_config.crash_stack)
		print_stack(sig);
	write_once();
}

static void own_stack_entry(void)
{
	own_fn(own_arg);
}

/*
 * Note [An alternate stack on the thread's stack]: a handler runs on an
 * alternate signal stack, and the runtime tells its calls from the
 * frames it interrupted by where its stack pointer is: off the thread's
 * own stack, the frames below are not gone (rt_discard_gone in
 * machine.c, exit_past_end in hooks.c), and a longjmp out of the
 * handler leaves its frames (rt_left_by_jump in machine.c).  A program may
 * give a thread an alternate stack inside its own stack, a buffer in
 * main's frame or in a thread's start function, above the frames a
 * handler interrupts: the handler's first call took them for gone and
 * dropped them, and the calls the interrupted function made after the
 * handler returned had no caller (tests/progs/altinside.c: after()
 * <spontaneous>, 20 times of 20); a handler there that jumped out kept
 * its own frames (altinside.c's `jump`: after() was the handler's call,
 * helper-150).  So the program's own alternate stack is kept in
 * thread-local storage as it sets it (the interposed sigaltstack, or
 * one a thread had before its first call: altstack.c, shared runtime
 * only), and a stack pointer on it is off the thread's stack
 * (rt_sp_on_stack).  The two words are written size last, with a
 * signal fence between, so that a handler on this thread never sees a
 * range that was not set (program_altstack in altstack.c).  Not seen: a
 * static program's stack, set through libc's sigaltstack (its frames
 * are dropped as before); one set by a raw system call; and one the
 * kernel puts back as a handler returns: an SS_AUTODISARM stack that
 * its handler took away or replaced is the thread's again after it,
 * while this keeps what the handler set (helper-150).  A C++ exception
 * thrown from such a handler is caught by the stack pointers alone
 * (unwound in catch.c).
 */

/* Whether this thread runs on an alternate signal stack with less than
 * STACK_NEED below the current frame, or off its own stack, or with less
 * than that left on it (a thread made with a small stack: Note [A write
 * on a small stack] in dump.c), or on a stack it cannot tell (Note [A
 * small alternate stack]). */
int rt_short_of_stack(void)
{
	const struct rt_thread *t = rt_self;
	stack_t ss;
	char here;
	uintptr_t sp = (uintptr_t)&here, lo;

	if (sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK)) {
		lo = (uintptr_t)ss.ss_sp;
		return sp < lo || sp - lo < STACK_NEED;
	}
	/* An SS_AUTODISARM stack reads as disabled while in use. */
	if (t == NULL || (t->stack_lo == 0 && t->stack_hi == UINTPTR_MAX))
		return 1;
	return !rt_sp_on_stack(t, sp) || sp - t->stack_lo < STACK_NEED;
}

/* fn(arg) on the runtime's own stack, every signal blocked meanwhile, or
 * here if there is no way there (Note [A small alternate stack]). */
void rt_on_own_stack(void (*fn)(void *), void *arg)
{
	struct timespec ms = { 0, 1000000 };
	sigset_t all, saved;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	while (__atomic_exchange_n(&own_stack_taken, 1, __ATOMIC_ACQUIRE))
		nanosleep(&ms, NULL);
	own_fn = fn;
	own_arg = arg;
	if (getcontext(&on_own) == 0) {
		on_own.uc_stack.ss_sp = own_stack;
		on_own.uc_stack.ss_size = sizeof own_stack;
		on_own.uc_link = &left;
		makecontext(&on_own, own_stack_entry, 0);
		/* libc's: the interposed one would switch the shadow stack
		 * (ucontext.c), which the report reads */
		if (rt_plain_swapcontext(&left, &on_own) != 0)
			fn(arg); /* no way off: try here */
	} else {
		fn(arg);
	}
	__atomic_store_n(&own_stack_taken, 0, __ATOMIC_RELEASE);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

static void report_there(void *sig)
{
	report(*(int *)sig);
}

/* report(sig), on a stack with room for it (Note [A small alternate
 * stack]). */
static void report_with_room(int sig)
{
	if (rt_short_of_stack())
		rt_on_own_stack(report_there, &sig);
	else
		report(sig);
}

/*
 * For _exit and _Exit (rawexit.c), which may be called from a handler on
 * a small alternate stack too: 16 KB overflowed.  The signals that end a
 * program stay held after the write: the process is ending by _exit, and
 * a SIGTERM that came during the write, let in after it, ended it by the
 * signal instead, a status the program never chose.
 */
void rt_write_before_exit(void)
{
	sigset_t saved;

	hold_signals(&saved);
	report_with_room(0);
}

/* The helper, the process's last thread: die by the signal the leader
 * died of, or end as a thread with its exit status, which is the
 * process's (Note [A leader that died alone] in lastthread.c). */
_Noreturn void rt_end_as_last_thread(int status)
{
	rt_write_before_exit();
	if (WIFSIGNALED(status))
		die_by(WTERMSIG(status));
	for (;;)
		syscall(SYS_exit, WIFEXITED(status) ? WEXITSTATUS(status) : 0);
}

/*
 * A deadly signal's handler holds cancellation off from before its
 * write until the process dies: the write holds it off itself (Note
 * [Cancellation] in cancel.c), but a request that came meanwhile acted as
 * the write ended, in a thread with asynchronous cancellation, and the
 * thread died before it re-raised the signal: the process lived on
 * without it (tests/progs/sigkids.c asynccancelterm).  Given back only
 * if the process survives the re-raise (a fault re-executes to die).
 */
/* Write the profile (reporting the crash `crash`, or 0), on a stack with
 * room (a handler on a small alternate stack may be below), and die by
 * sig, the terminating signals held throughout (Note [One signal to die
 * by]); back if the process lives on. */
static void write_and_die(int sig, int crash)
{
	sigset_t mask;

	hold_signals(&mask);
	report_with_room(crash);
	die_by(sig);
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
}

static void on_fatal(int sig, siginfo_t *info, void *uctx)
{
	int saved = errno, cancel;

	/* Ours runs only where the program's action is the default one (Note
	 * [Handlers present at start] in dispositions.c): a handler of the
	 * program's may handle faults as a matter of course (a garbage
	 * collector's write barrier), and then this is no crash.  Kept for
	 * safety: nothing is printed or written unless the signal kills. */
	if (is_handler(rt_program_action(sig))) {
		call_previous(sig, info, uctx);
		errno = saved;
		return;
	}
	if (info && info->si_code <= 0 && getpid() == 1) { /* Note [A namespace's init] */
		errno = saved;
		return;
	}
	cancel = rt_nocancel_begin();
	note_sender(info);
	write_and_die(sig, sig);
	rt_nocancel_end(cancel);
	errno = saved; /* a fault re-executes and now dies by default */
}

static void on_term(int sig, siginfo_t *info, void *uctx)
{
	int saved = errno, cancel;

	if (is_handler(rt_program_action(sig))) {
		call_previous(sig, info, uctx);
		errno = saved;
		return;
	}
	/* A child that became PID 1 without fork's handlers (clone, _Fork,
	 * vfork) has ours still: the signal does nothing to init but cut
	 * the call short (Note [A namespace's init]; helper-200). */
	if (getpid() == 1) {
		errno = saved;
		return;
	}
	cancel = rt_nocancel_begin(); /* as on_fatal's */
	write_and_die(sig, 0); /* no crash to report */
	rt_nocancel_end(cancel);
	errno = saved;
}

static void on_dump(int sig, siginfo_t *info, void *uctx)
{
	int saved = errno;

	rt_dump_async();
	if (is_handler(rt_program_action(sig)))
		call_previous(sig, info, uctx);
	errno = saved;
}

/*
 * Note [A namespace's init]: a process that is PID 1 of its namespace
 * (a container's first process) never gets a signal whose action is the
 * default, but for SIGKILL and SIGSTOP from outside: bare, a SIGTERM to
 * it does nothing.  With on_term installed it was caught, the profile
 * written, the default raised again and ignored, and the program went
 * on with its call cut short (pause() returned; helper-196, 6 of 6 with
 * TERM, INT and HUP).  So such a process takes none of those: it writes
 * its profile as it ends, as any does.  A fork child, no longer PID 1,
 * takes them then (rt_signals_after_fork_child), unless the runtime
 * stepped aside for a filter (Note [Handlers under a filter] in
 * seccomp.c; helper-199: it died by SIGSYS); and a fork child that
 * became PID 1 (its parent's unshare(CLONE_NEWPID)) gives them back
 * (helper-199).  A crash signal another process sent (kill -SEGV) does
 * nothing to init either, and on_fatal lets it be (it printed a crash
 * report and cut a call short; helper-199); a real fault is forced on
 * init.  The dump signal is asked for.
 */
static int term_left_to_init;

/* on_term installed for the term signals (take), or the program's
 * actions given back.  dump_signal=SIGINT replaces that signal's default
 * action: on_term is not installed under on_dump, which would chain to
 * it, and on_term to itself, for ever.  (Crash signals are refused by
 * options.c.) */
static void term_signals_ours(int take)
{
	for (size_t i = 0; i < sizeof term_signals / sizeof *term_signals; i++) {
		if (term_signals[i] == rt_config.dump_signal)
			continue;
		if (take)
			rt_take_signal(term_signals[i], on_term, 0);
		else
			rt_give_back_signal(term_signals[i]);
	}
}

void rt_signals_install(void)
{
	size_t i;

	for (i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
		rt_take_signal(fatal_signals[i], on_fatal, 0);
	term_left_to_init = getpid() == 1; /* Note [A namespace's init] */
	if (!term_left_to_init)
		term_signals_ours(1);
	if (rt_config.dump_signal) /* in front of a handler too: Note [Handlers present at start] */
		rt_take_signal(rt_config.dump_signal, on_dump, 1);
}

void rt_signals_after_fork_child(void)
{
	if (getpid() == 1) {
		if (!term_left_to_init)
			term_signals_ours(0);
		term_left_to_init = 1;
	} else if (term_left_to_init) {
		term_left_to_init = 0;
		if (!rt_dispositions_stepped_aside())
			term_signals_ours(1);
	}
}
