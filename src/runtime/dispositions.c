/*
 * dispositions.c - the program's view of its signal actions, while the
 * runtime's handlers (signals.c) stand behind the default ones.
 *
 * sigaction, signal, bsd_signal, ssignal, sysv_signal, __sysv_signal and
 * siginterrupt are interposed (Note [The program's dispositions]): a
 * request for the default action of a signal the runtime handles, or for
 * a handler of dump_signal, installs the runtime's handler instead, with
 * the program's action behind it, and the program is told what it asked
 * for.
 */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"

#define SIGNALS 65 /* 1..64 */

/* While ours[sig] is installed, previous[sig] is the action the program
 * believes is there: what was there when we started, or the default
 * action (or dump_signal's handler: goes_behind) it asked for since. */
static struct sigaction previous[SIGNALS];
static rt_handler ours[SIGNALS];
/* Signals whose handler of the program's stands behind ours, not in its
 * place (dump_signal's: Note [Handlers present at start]). */
static unsigned char in_front[SIGNALS];

const struct sigaction *rt_program_action(int sig)
{
	return &previous[sig];
}

/* libc's signal, whose flags for a handler we keep (SA_RESTART but after
 * siginterrupt), and its siginterrupt, which keeps the set of signals
 * that signal leaves SA_RESTART out for; looked up at start-up as exec.c's
 * are, and siginterrupt also at its first call, which a constructor that
 * ran before ours may make (glibc's set must have it: tests/progs/
 * earlysig.c).  NULL in a static program, where the action is built as
 * glibc builds it, with `interrupting` for that set. */
static sighandler_t (*real_signal)(int, sighandler_t);
static int (*real_siginterrupt)(int, int);

/* Signals given siginterrupt(sig, 1) and not siginterrupt(sig, 0) since:
 * glibc's signal(sig, SIG_DFL) leaves out SA_RESTART for them. */
static sigset_t interrupting;

/* A child not managed's own `interrupting`, valid in the process whose
 * pid it is tagged with only (Note [Children that are not managed]). */
static sigset_t child_interrupting;
static pid_t child_interrupting_pid;

void rt_dispositions_init(void)
{
	*(void **)&real_signal = dlsym(RTLD_NEXT, "signal");
	*(void **)&real_siginterrupt = dlsym(RTLD_NEXT, "siginterrupt");
}

RT_UNSANITIZED static int is_handler(const struct sigaction *sa)
{
	if (sa->sa_flags & SA_SIGINFO)
		return sa->sa_sigaction != NULL;
	return sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN;
}

/* Ours, standing behind the default action: only SIGSEGV's handler runs
 * on an alternate signal stack the program may have set up (a stack
 * overflow can be reported only there; signals.c's on_fatal moves the
 * write off a small one); the thread's own stack serves the others.
 * Ours standing in front of a handler of the program's (dump_signal's,
 * Note [Handlers present at start]) is installed with that handler's
 * flags and mask, less SA_RESETHAND, which rt_program_action_to_run
 * does instead: the kernel then treats the signal as the program asked. */
RT_UNSANITIZED static int install_ours(int sig)
{
	const struct sigaction *p = &previous[sig];
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = ours[sig];
	if (is_handler(p)) {
		sa.sa_flags = (p->sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
		sa.sa_mask = p->sa_mask;
	} else {
		sa.sa_flags = SA_SIGINFO | SA_RESTART | (sig == SIGSEGV ? SA_ONSTACK : 0);
		sigemptyset(&sa.sa_mask);
	}
	return __sigaction(sig, &sa, NULL);
}

RT_UNSANITIZED static int is_default(const struct sigaction *sa)
{
	return sa->sa_handler == SIG_DFL; /* SIG_DFL is 0 in either member */
}

/*
 * Note [Handlers present at start]: a signal may have a handler already
 * when the runtime starts (a library's constructor, which runs before
 * ours, installed it: tests/progs/presig.c).  The runtime needs its own handler
 * for a signal only where the default action would end the process
 * unwritten (or, for dump_signal, to write on demand); behind a handler
 * of the program's it has nothing to do: the handler decides, and if it
 * asks for the default action later, ours goes in then (Note [The
 * program's dispositions]).  So such a handler is left with the kernel,
 * exactly as the program installed it: its flags (no SA_RESTART means
 * EINTR), mask, SA_NODEFER, SA_RESETHAND and SA_ONSTACK all hold, and a
 * fault it handles (a garbage collector's write barrier) is no crash to
 * report or write a profile for.  Only dump_signal's handler is put
 * behind ours, which writes and then calls it; ours then takes the
 * handler's flags and mask (install_ours), and its SA_RESETHAND is done
 * by hand (rt_program_action_to_run).  That reset puts the kernel's
 * default action back, not ours behind it: ours stands behind the
 * default action of dump_signal to dump and carry on, and the signal
 * would then never kill, where without ccprof the second one does
 * (tests/progs/presig.c's resethand).  So the dumps on that signal end
 * with the reset, and the second signal ends the process with the
 * profile of the first one's dump; a program that asks for the default
 * action again by sigaction or signal gets ours again, as it would
 * have without the handler.  A handler the program installs for
 * dump_signal later goes behind ours the same way (goes_behind): it took
 * ours' place before, and the signal dumped no more
 * (tests/progs/latesig.c).
 */
void rt_take_signal(int sig, rt_handler fn, int always)
{
	if (sig <= 0 || sig >= SIGNALS || __sigaction(sig, NULL, &previous[sig]) != 0)
		return;
	ours[sig] = fn;
	in_front[sig] = (unsigned char)always;
	if (!(previous[sig].sa_flags & SA_SIGINFO) && previous[sig].sa_handler == SIG_IGN)
		return; /* ignored stays ignored */
	if (is_handler(&previous[sig]) && !always)
		return; /* the program's handler stays */
	install_ours(sig);
}

/*
 * Note [The program's dispositions]: a program that cleans up on SIGINT
 * or SIGTERM often does it outside its handler and then dies by the
 * signal the usual way: it restores the default action and raises the
 * signal again (xz).  Had the default action gone to the kernel, that
 * death would write no profile.  So while ours[sig] is set, a request for
 * the default action installs ours instead, and previous[sig] records
 * the request; a handler or SIG_IGN goes to the kernel as asked, but
 * for dump_signal's handler, which goes behind ours too.  And
 * whatever is installed, the program is told of its own action: a
 * program that saves the old action to restore it later (old =
 * signal(SIGINT, SIG_IGN); ... signal(SIGINT, old)) must get SIG_DFL,
 * not our handler, which it would reinstall without SA_SIGINFO.
 * What it is told is what the kernel would give back: glibc adds its
 * restorer to every action (as it did to ours), the kernel drops SIGKILL
 * and SIGSTOP from the mask (as_kept), and signal(sig, SIG_DFL) asks for
 * what glibc's signal builds (the signal blocked in its handler,
 * SA_RESTART unless after siginterrupt).  glibc's siginterrupt reads and
 * rewrites the kernel's action in place, by calls we do not see: with
 * ours installed it would rewrite ours and leave the program's view
 * as it was, so ours does it to the view.
 * Not for a vfork child (its pid is not ours): it shares our memory but
 * not our signal actions, so it gets libc's calls unchanged, and only
 * the old action it is told is the program's view (Note [Children that
 * are not managed]).  Signals
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

/* A child made without fork's handlers (Note [Children that are not
 * managed]); not a process before the runtime started (rt_pid 0). */
RT_UNSANITIZED static int unmanaged_child(void)
{
	return rt_pid != 0 && getpid() != rt_pid;
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

/* The kernel's reset of an action with SA_RESETHAND, done by hand: the
 * default action, the flags and mask kept (the kernel changes only the
 * handler).  The kernel's SIG_DFL, not ours behind it: Note [Handlers
 * present at start]. */
RT_UNSANITIZED static void reset_by_hand(int sig, const struct sigaction *was)
{
	struct sigaction dfl = *was;

	dfl.sa_handler = SIG_DFL; /* and sa_sigaction, the same member */
	__sigaction(sig, &dfl, NULL);
}

/* From ours, in a handler: the program's action for sig, to call if it
 * is a handler.  An SA_RESETHAND the kernel did not do (install_ours
 * leaves it out) is done here.  The lock is never held by the thread
 * this runs in (it blocks signals while held); a child not managed
 * takes no lock and writes nothing of ours (Note [Children that are not
 * managed]): it resets its own kernel action only. */
RT_UNSANITIZED void rt_program_action_to_run(int sig, struct sigaction *run)
{
	sigset_t saved;
	int child = unmanaged_child();

	if (!child)
		lock_dispositions(&saved);
	*run = previous[sig];
	if (is_handler(run) && (run->sa_flags & SA_RESETHAND)) {
		reset_by_hand(sig, run);
		if (!child)
			previous[sig].sa_handler = SIG_DFL; /* the view, as the kernel's */
	}
	if (!child)
		unlock_dispositions(&saved);
}

static sigset_t fork_saved; /* fork's handlers run one fork at a time */

void rt_dispositions_before_fork(void)
{
	lock_dispositions(&fork_saved);
}

void rt_dispositions_after_fork(void)
{
	unlock_dispositions(&fork_saved);
}

/* sa, an action the program asked for that went behind ours, as
 * sigaction gives it back once the kernel has it; kept: our action as the
 * kernel has it. */
RT_UNSANITIZED static void as_kept(struct sigaction *sa, const struct sigaction *kept)
{
	sa->sa_flags |= kept->sa_flags & ~(SA_SIGINFO | SA_RESTART | SA_ONSTACK);
	sa->sa_restorer = kept->sa_restorer;
	sigdelset(&sa->sa_mask, SIGKILL);
	sigdelset(&sa->sa_mask, SIGSTOP);
}

/* Whether sa, an action from the kernel, is ours. */
RT_UNSANITIZED static int is_ours(int sig, const struct sigaction *sa)
{
	return sig > 0 && sig < SIGNALS && ours[sig] && (sa->sa_flags & SA_SIGINFO) &&
	       sa->sa_sigaction == ours[sig];
}

/* Note [Handlers under a filter] in seccomp.c: every signal the runtime
 * handles gets the program's own action back, and the runtime's calls
 * for it go to libc unchanged from then on.  Only in the process the
 * runtime manages: a vfork child shares ours[] with its parent. */
static int stepped_aside; /* a fork child inherits it with the filter */

/* sig's action back to the program's, ours no longer (under the lock). */
static void give_back(int sig)
{
	struct sigaction now;

	if (!ours[sig])
		return;
	if (__sigaction(sig, NULL, &now) == 0 && is_ours(sig, &now))
		__sigaction(sig, &previous[sig], NULL);
	ours[sig] = NULL;
}

void rt_dispositions_step_aside(void)
{
	sigset_t saved;
	int sig;

	if (rt_pid == 0 || getpid() != rt_pid)
		return;
	lock_dispositions(&saved);
	stepped_aside = 1;
	for (sig = 1; sig < SIGNALS; sig++)
		give_back(sig);
	unlock_dispositions(&saved);
}

int rt_dispositions_stepped_aside(void)
{
	return stepped_aside;
}

/* Note [A namespace's init] in signals.c: sig to the program again, in
 * a fork child that became PID 1. */
void rt_give_back_signal(int sig)
{
	sigset_t saved;

	if (sig <= 0 || sig >= SIGNALS)
		return;
	lock_dispositions(&saved);
	give_back(sig);
	unlock_dispositions(&saved);
}

/* The program's view of sig's action; *held: whether ours is installed. */
RT_UNSANITIZED static int current_view(int sig, struct sigaction *view, int *held)
{
	struct sigaction now;

	if (__sigaction(sig, NULL, &now) != 0)
		return -1;
	*held = is_ours(sig, &now);
	*view = *held ? previous[sig] : now;
	return 0;
}

/*
 * Note [Children that are not managed]: a child made without fork's
 * handlers (_Fork, clone, vfork) has a pid that is not rt_pid, so its
 * calls go to libc unchanged; but it inherited our handlers, and what
 * the old action says must still be the program's view, not ours.  It
 * reads previous[] (its own copy, or a vfork parent's, whose thread is
 * suspended meanwhile) and writes nothing of ours: a vfork child shares
 * our memory and a parent may die later by its own signal.  No lock is
 * taken (taking it writes to it, and a _Fork child may have inherited it
 * taken by a thread of the parent's that no longer exists there: its
 * first siginterrupt waited for ever, all signals blocked); another
 * thread of a vfork parent changing the same signal's action at that
 * moment could show the child a torn view, as racing sigaction calls
 * would show either action.  The same holds for siginterrupt, which
 * goes to libc's and leaves our `interrupting` alone (a vfork child's
 * is the parent's), and for ours in a handler (rt_program_action_to_run),
 * whose SA_RESETHAND by hand changes the child's own action only.
 *
 * In a static program our signal builds the action from that set
 * (bsd_action), so a _Fork child's signal after its siginterrupt(sig, 1)
 * would keep SA_RESTART.  Such a child keeps its own copy of the set
 * instead, child_interrupting, tagged with the pid that wrote it: a
 * _Fork child has its own memory and writes its own copy; a vfork
 * child's writes land in the parent's memory, which is harmless since
 * the parent (managed) reads `interrupting` only, and any other process
 * ignores a copy tagged with a pid not its own and starts again from
 * `interrupting` (a _Fork child of such a child from its parent's copy,
 * tagged with getppid()).  Left over: a vfork child of a child not
 * managed takes over that child's copy, which then starts again from
 * `interrupting`; and unlike glibc's own set, which a vfork child
 * shares, its siginterrupt does not reach the parent's signal.
 */

/* Whether child_interrupting is this child's: written by it, or by its
 * parent (a child not managed too) before the _Fork. */
RT_UNSANITIZED static int child_copy_here(void)
{
	pid_t tag = __atomic_load_n(&child_interrupting_pid, __ATOMIC_ACQUIRE);

	return tag != 0 && (tag == getpid() || tag == getppid());
}

/* The set bsd_action reads in this process. */
RT_UNSANITIZED static const sigset_t *interrupting_here(void)
{
	return unmanaged_child() && child_copy_here() ? &child_interrupting : &interrupting;
}

/* siginterrupt's change to this child's own copy of the set.  The copy
 * is filled before the tag claims it, so a handler's signal in between
 * reads a whole set, the inherited one or this child's. */
RT_UNSANITIZED static void child_siginterrupt(int sig, int flag)
{
	pid_t me = getpid();

	if (child_interrupting_pid != me) {
		if (!child_copy_here())
			child_interrupting = interrupting;
		__atomic_store_n(&child_interrupting_pid, me, __ATOMIC_RELEASE);
	}
	if (flag)
		sigaddset(&child_interrupting, sig);
	else
		sigdelset(&child_interrupting, sig);
}

RT_UNSANITIZED static int unmanaged_sigaction(int sig, const struct sigaction *act,
					      struct sigaction *old)
{
	struct sigaction now;

	if (old == NULL)
		return __sigaction(sig, act, NULL);
	if (__sigaction(sig, act, &now) != 0)
		return -1;
	*old = is_ours(sig, &now) ? previous[sig] : now;
	return 0;
}

/* Whether act goes behind ours rather than to the kernel: the default
 * action of a signal we handle, or a handler for dump_signal, which the
 * program may install at any time (xz's SIGUSR1, for its progress line:
 * --dump-signal=SIGUSR1 wrote nothing when it came). */
RT_UNSANITIZED static int goes_behind(int sig, const struct sigaction *act)
{
	return is_default(act) || (in_front[sig] && is_handler(act));
}

/* sigaction for a managed signal, under the lock.  Ours is installed
 * again whenever the action behind it changes: it takes a handler's
 * flags and mask (install_ours). */
RT_UNSANITIZED static int change_disposition(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction view, kept;
	int held;

	if (current_view(sig, &view, &held) != 0)
		return -1;
	if (act && goes_behind(sig, act)) {
		previous[sig] = *act;
		if (install_ours(sig) != 0)
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
		return unmanaged_sigaction(sig, act, old); /* Note [Children that are not managed] */
	lock_dispositions(&saved);
	r = change_disposition(sig, act, old);
	e = errno;
	unlock_dispositions(&saved);
	errno = e;
	return r;
}

/* The action glibc's signal(sig, handler) asks for: the signal blocked
 * in its handler, SA_RESTART unless after siginterrupt(sig, 1). */
RT_UNSANITIZED static void bsd_action(struct sigaction *sa, int sig, sighandler_t handler)
{
	memset(sa, 0, sizeof *sa);
	sa->sa_handler = handler;
	sigemptyset(&sa->sa_mask);
	sigaddset(&sa->sa_mask, sig);
	sa->sa_flags = sigismember(interrupting_here(), sig) == 1 ? 0 : SA_RESTART;
}

/* siginterrupt's change to an action's flags. */
RT_UNSANITIZED static void interrupt_flags(struct sigaction *sa, int flag)
{
	if (flag)
		sa->sa_flags &= ~SA_RESTART;
	else
		sa->sa_flags |= SA_RESTART;
}

/* glibc's siginterrupt itself: the kernel's action, and libc's own set
 * that its signal reads.  `look`: look libc's up if not yet found (a
 * constructor that ran before ours); dlsym takes locks, so not in a
 * child not managed, which may have inherited them taken. */
RT_UNSANITIZED static int libc_siginterrupt(int sig, int flag, int look)
{
	struct sigaction sa;

	if (sig <= 0 || sig >= SIGNALS) {
		errno = EINVAL;
		return -1;
	}
	if (real_siginterrupt == NULL && look)
		rt_dispositions_init();
	if (real_siginterrupt)
		return real_siginterrupt(sig, flag);
	if (__sigaction(sig, NULL, &sa) != 0)
		return -1;
	interrupt_flags(&sa, flag);
	return __sigaction(sig, &sa, NULL);
}

/* glibc's siginterrupt, under the lock, and our set beside libc's. */
RT_UNSANITIZED static int kernel_siginterrupt(int sig, int flag)
{
	if (libc_siginterrupt(sig, flag, 1) != 0)
		return -1;
	if (flag)
		sigaddset(&interrupting, sig);
	else
		sigdelset(&interrupting, sig);
	return 0;
}

/* siginterrupt for a managed signal, under the lock: with ours
 * installed, the program's view is the action it changes. */
RT_UNSANITIZED static int change_interrupting(int sig, int flag)
{
	struct sigaction view, kept;
	int held;

	if (current_view(sig, &view, &held) != 0 || kernel_siginterrupt(sig, flag) != 0)
		return -1;
	if (!held)
		return 0;
	interrupt_flags(&previous[sig], flag); /* first: install_ours may follow its flags */
	if (install_ours(sig) != 0)
		return -1;
	if (__sigaction(sig, NULL, &kept) == 0)
		as_kept(&previous[sig], &kept);
	return 0;
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
	bsd_action(&sa, sig, handler);
	if (__sigaction(sig, &sa, &sa) != 0)
		return SIG_ERR;
	return sa.sa_handler;
}

/* The old handler signal gave back, as the program sees it: Note
 * [Children that are not managed]. */
RT_UNSANITIZED static sighandler_t as_seen(int sig, sighandler_t r)
{
	if (r == SIG_ERR || sig <= 0 || sig >= SIGNALS || ours[sig] == NULL)
		return r;
	return (void *)r == (void *)ours[sig] ? previous[sig].sa_handler : r;
}

RT_UNSANITIZED static sighandler_t program_signal(int sig, sighandler_t handler)
{
	struct sigaction sa, view;
	sigset_t saved;
	sighandler_t r;
	int held, e;

	if (!managed(sig))
		return as_seen(sig, set_handler(sig, handler));
	bsd_action(&sa, sig, handler);
	if (handler != SIG_ERR && goes_behind(sig, &sa)) /* as sigaction decides */
		return program_sigaction(sig, &sa, &view) == 0 ? view.sa_handler : SIG_ERR;
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

RT_UNSANITIZED RT_API int siginterrupt(int sig, int flag)
{
	sigset_t saved;
	int r, e;

	if (unmanaged_child()) { /* Note [Children that are not managed] */
		r = libc_siginterrupt(sig, flag, 0);
		if (r == 0)
			child_siginterrupt(sig, flag);
		return r;
	}
	lock_dispositions(&saved);
	r = managed(sig) ? change_interrupting(sig, flag) : kernel_siginterrupt(sig, flag);
	e = errno;
	unlock_dispositions(&saved);
	errno = e;
	return r;
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
