/*
 * signals.c - the profile survives signals, and the program's signal
 * semantics do not change.
 *
 * - SIGINT, SIGTERM whose action is the default: write the profile, then
 *   restore the default action and re-raise, so the process still dies by
 *   that signal.  A signal the program ignores stays ignored (we install
 *   nothing); a handler the program installs later replaces ours and its
 *   own semantics apply (if it exits, the profile is written at exit).  A
 *   handler already present when we start is chained: ours runs first.
 * - SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT: print the crashing thread's
 *   cost-centre stack (GHC's -xc; crash_stack=0 turns it off), write what
 *   was collected, and die by the same signal.
 * - dump_signal=SIG: write the profile on demand and carry on.
 *
 * Everything here runs in signal context: only async-signal-safe calls,
 * the profile written by rt_dump_async (dump.c) from preallocated memory.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/elfsym.h"
#include "runtime.h"

static struct sigaction previous[65];
static long writer;  /* thread id of the write from a handler, 0 before it */
static int written;  /* that write has ended */

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
static const int term_signals[] = { SIGINT, SIGTERM };

/* ---- Output without stdio ------------------------------------------------ */

static void put(const char *s)
{
	if (write(2, s, strlen(s)) < 0) {
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
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
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
	sigaction(sig, &dfl, NULL);
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
 * the write, and no profile is left.  (Within one thread a second
 * SIGTERM already waits: the handler of the first blocks it.)  The
 * writing thread itself, on another signal in the middle of its write (a
 * crash in it), does not wait for itself; nor does a child forked during
 * the write, which has no such thread (tgkill with signal 0 says so).
 */
static void write_once(void)
{
	long self = (long)syscall(SYS_gettid), first = 0;
	struct timespec ms = { 0, 1000000 };

	if (__atomic_compare_exchange_n(&writer, &first, self, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		rt_dump_async();
		__atomic_store_n(&written, 1, __ATOMIC_RELEASE);
		return;
	}
	while (first != self && !__atomic_load_n(&written, __ATOMIC_ACQUIRE) &&
	       syscall(SYS_tgkill, (long)getpid(), first, 0L) == 0)
		nanosleep(&ms, NULL);
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

static void install(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	if (sig <= 0 || sig >= (int)(sizeof previous / sizeof *previous))
		return;
	if (sigaction(sig, NULL, &previous[sig]) != 0 ||
	    (!(previous[sig].sa_flags & SA_SIGINFO) && previous[sig].sa_handler == SIG_IGN))
		return; /* ignored stays ignored */
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
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
