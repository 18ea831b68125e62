/*
 * init.c - start-up and shut-down of the runtime: options, clocks, the
 * sampler, the write at exit, and fork.
 *
 * Start-up happens in a constructor (with argc/argv, which glibc passes to
 * .init_array functions) or on the first hook, whichever comes first:
 * instrumented constructors of the program may run before ours.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/option_values.h"
#include "runtime.h"

struct rt_config rt_config = {
	.clock = CCP_CLOCK_CPU,
	.interval_ns = 1000000,
	.crash_stack = 1,
	.names = 1,
	.handle_signals = 1,
	.max_contexts = CCP_DEFAULT_MAX_CONTEXTS,
	.heap_interval_ns = 10000000,
};
int rt_cycles;
pid_t rt_pid;

static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Put here by altstack.c's constructor, which runs before ours; NULL in
 * libccprof.a (Note [A stack to overflow onto]). */
void (*rt_lend_altstack)(void);

/* A process that recorded nothing writes nothing (threads.c).  A child
 * made without fork()'s handlers (_Fork, a raw clone, a vfork child that
 * calls exit) has our memory but not our sampler, which it would wait for
 * for ever, nor its own output path: it writes nothing (dump.c). */
static long exit_writer;  /* the thread whose exit writes (0: none yet) */
#define NO_WRITER (-1L)   /* exit_writer: at exit, under a filter, none will */
static int exit_written; /* its write is over (Note [Concurrent exit] in exitgate.c) */

static void at_exit(void)
{
	long none = 0, self;
	sigset_t all, saved;
	int asked;

	if (getpid() != rt_pid)
		return;
	/* First, before any call the program may not make (Note [Sandboxed]
	 * in sandbox.c).  The sampler ends with the process.  Not asked
	 * where nothing was recorded (a shell: no /proc read for it); if
	 * another thread records something before the write, the write asks. */
	asked = rt_anything_recorded();
	if (asked && rt_sandbox_forbids_write()) {
		/* Decided, and said: no write at this _exit either (exit's last
		 * step reaches the runtime's _exit in a -static program).  No
		 * gettid: a filter may kill the thread for it (file(1)'s). */
		if (__atomic_compare_exchange_n(&exit_writer, &none, NO_WRITER, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			__atomic_store_n(&exit_written, 1, __ATOMIC_RELEASE);
		return;
	}
	self = (long)syscall(SYS_gettid);
	if (!__atomic_compare_exchange_n(&exit_writer, &none, self, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		rt_exit_wait(); /* another thread's: our _exit would cut it short */
		return;
	}
	rt_sampler_finish();
	if (rt_cycles && rt_self) /* Note [The tail after the last hook] in clock.c */
		rt_charge_ticks(rt_self, rt_tick());
	/* Signals held from before the write until it is marked over, not
	 * only while the write's lock is held: one held back by the lock
	 * and let in at its release would find the write not yet over and
	 * write again (Note [A signal after the write at exit]). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	if (asked)
		rt_dump_sandbox_asked();
	else if (rt_anything_recorded())
		rt_dump();
	__atomic_store_n(&exit_written, 1, __ATOMIC_RELEASE);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

/* Until the write at exit has begun, for at most EXIT_START_WAIT_MS,
 * and until it is over, for at most EXIT_WAIT_S (Note [Concurrent exit]
 * in exitgate.c); cancellation held off, as exit is no cancellation
 * point. */
void rt_exit_wait(void)
{
	struct timespec ms = {0, 1000000};
	int cancel = rt_nocancel_begin(); /* Note [Cancellation] in cancel.c */
	long writer;

	for (unsigned i = 0; i < EXIT_START_WAIT_MS &&
			     !__atomic_load_n(&exit_writer, __ATOMIC_ACQUIRE); i++)
		nanosleep(&ms, NULL);
	writer = __atomic_load_n(&exit_writer, __ATOMIC_ACQUIRE);
	if (writer != 0 && writer != NO_WRITER)
		rt_wait_for(&exit_written, writer, EXIT_WAIT_S * 1000u);
	rt_nocancel_end(cancel);
}

/*
 * Note [A signal after the write at exit]: the runtime's locks hold
 * signals back (Note [Locks and signals] in quietlock.c), so a SIGTERM that
 * comes during the write at exit runs its handler once the write is
 * over, and the handler's write then wrote the profile a second time: a
 * reader of a FIFO got two profiles back to back, or, gone after the
 * first, left the process blocked in open for ever.  A process-directed
 * signal taken by another thread during the write began a second write
 * beside it.  So a fatal signal's handler asks this first: if another
 * thread's exit writes, or this thread's exit has written, the profile is
 * that write's; the handler waits for it to be over (at most EXIT_WAIT_S,
 * while the writing thread lives) and then only dies.  A handler that
 * interrupts its own thread's exit before the write (the signal was not
 * held back yet) writes, as before.  Async-signal-safe: atomics, tgkill
 * and nanosleep.
 */
int rt_exit_wrote(void)
{
	long writer = __atomic_load_n(&exit_writer, __ATOMIC_ACQUIRE);

	if (writer == 0)
		return 0;
	if (writer == NO_WRITER)
		return 1;
	if (writer == (long)syscall(SYS_gettid))
		return __atomic_load_n(&exit_written, __ATOMIC_ACQUIRE);
	return rt_wait_for(&exit_written, writer, EXIT_WAIT_S * 1000u);
}

/* The locks are taken with signals blocked (Note [Locks and signals] in
 * quietlock.c), the registry's first: its unlock in the parent puts back the
 * mask from before, and the child, whose locks are made anew, puts it
 * back at the end of its handlers. */
static void before_fork(void)
{
	rt_dump_before_fork(); /* takes the registry lock itself */
	rt_registry_lock();
	rt_heap_before_fork();
	rt_cc_lock();
	rt_dispositions_before_fork();
	rt_dump_fork_time();
}

static void after_fork_parent(void)
{
	rt_dispositions_after_fork();
	rt_cc_unlock();
	rt_heap_after_fork_parent();
	rt_registry_unlock();
}

/* Whether this thread is inside an interposed fork, forkpty or daemon,
 * and whether the child's sampler waits for its return (Note [The
 * child's sampler] in forkchild.c). */
static __thread int fork_interposed __attribute__((tls_model("initial-exec")));
static int sampler_deferred;

int rt_fork_interposed_begin(void)
{
	int outer = fork_interposed;

	fork_interposed = 1;
	return outer;
}

/* In the parent and in the child, after libc's call and so after every
 * fork handler: the child's sampler starts here, also in a call nested
 * in another (a fork from a signal handler that interrupted one): only
 * the innermost fork's child handler deferred it, and that fork's
 * handlers are done.  errno is the call's. */
void rt_fork_interposed_end(int outer)
{
	int saved = errno;

	fork_interposed = outer;
	if (sampler_deferred) {
		sampler_deferred = 0;
		rt_alloc_own_begin(); /* Note [The runtime's own allocations] */
		rt_sampler_start();
		rt_alloc_own_end();
	}
	errno = saved;
}

/*
 * The child starts with fresh counts and writes its own profile.
 *
 * Note [A forked child's start]: setting those counts to zero writes to
 * every page of the contexts the child inherited, which the kernel then
 * copies, and the rest of the handler remakes the runtime's state: a
 * fraction of a millisecond per child in a process with a few hundred
 * contexts, more with more.  Under clock=cycles it was charged to the
 * function that forked, from its last hook to the child's first: bash's
 * make_child took 79 % of its children's merged time (helper-107).  So
 * the handler's time is the runtime's own, as a making's is (Note [The
 * profiler's own time] in machine.c); the fork itself, up to the
 * handler, stays the program's.  Under the sampling clocks the child's
 * clock starts after the zeroing (first_sample, in
 * rt_registry_after_fork).
 */
static void after_fork_child(void)
{
	uint64_t begun = rt_cycles ? rt_tick() : 0;
	sigset_t mask;

	rt_registry_mask_at_fork(&mask);
	rt_alloc_own_begin(); /* Note [The runtime's own allocations] */
	rt_pid = getpid();
	exit_writer = 0; /* forked while another thread was writing at exit */
	exit_written = 0;
	rt_cc_after_fork();
	rt_registry_after_fork(rt_self);
	rt_shadow_after_fork(); /* Note [Shadow memory measured] in shadow.c */
	rt_heap_after_fork_child(rt_self);
	rt_sampler_after_fork();
	rt_dump_after_fork();
	rt_shell_after_fork();
	rt_manual_after_fork();
	rt_alloc_after_fork();
	if (fork_interposed)
		sampler_deferred = 1;
	else
		rt_sampler_start();
	rt_alloc_own_end();
	rt_dispositions_after_fork();
	if (rt_config.handle_signals) /* after the fork's hold of the dispositions' lock */
		rt_signals_after_fork_child();
	if (rt_cycles && rt_self)
		rt_own_time_since(rt_self, begun); /* Note [A forked child's start] */
	pthread_sigmask(SIG_SETMASK, &mask, NULL); /* the signals held since before the fork come now */
}

/*
 * Note [Linked in and preloaded]: `ccprof record` preloads the runtime
 * into every process of a run, also into a program that has libccprof.a
 * linked in.  The program's own definitions come first in the lookup
 * order, so its hooks, exec and signal functions are the linked
 * runtime's, and that runtime records the run; but the preloaded one
 * started too, ahead of it, and installed its signal handlers, which the
 * linked runtime then took for the program's own and stood behind.  A
 * SIGTERM or a crash ran the preloaded handler, which had recorded
 * nothing: no profile was written, nor the crash's stack, and record
 * said the program's own handler had replaced the runtime's
 * (helper-173).  So the shared runtime does nothing (rt_config.disabled)
 * where the program itself defines both the hooks and execve, as a
 * runtime linked into it does; not where glibc does (it defines both:
 * the runtime loaded by dlopen, as a library's dependency, comes after
 * it), nor where only the hooks are the program's own.  Missed: a
 * program linked so that it exports neither (-Wl,--exclude-libs,ALL).
 */
static int linked_runtime_ahead(void)
{
	void *enter, *exec;
	Dl_info program, a, b;

	if (rt_linked_in())
		return 0;
	enter = dlsym(RTLD_DEFAULT, "__cyg_profile_func_enter");
	exec = dlsym(RTLD_DEFAULT, "execve");
	if (enter == NULL || exec == NULL || !dladdr((void *)getauxval(AT_PHDR), &program) ||
	    !dladdr(enter, &a) || !dladdr(exec, &b))
		return 0;
	return a.dli_fbase == program.dli_fbase && b.dli_fbase == program.dli_fbase;
}

static void init_all(void)
{
	rt_exec_init(); /* exec must work even where we do nothing else */
	rt_dispositions_init(); /* and signal */
	rt_namespaces_init();
	rt_dlclose_init();
	if (getauxval(AT_SECURE)) /* setuid/setgid: do nothing at all */
		rt_config.disabled = 1;
	else if (linked_runtime_ahead())
		rt_config.disabled = 1;
	else
		rt_options_parse(rt_getenv("CCPROF_OPTIONS"), &rt_config);
	/* Before the sampler, which takes its samples; disabled too, which
	 * forgets the blocks from before the start (heap.c). */
	rt_heap_configure();
	if (rt_config.disabled)
		return;
	rt_cycles = rt_config.clock == CCP_CLOCK_CYCLES;
	rt_pid = getpid();
	if (rt_config.heap && !rt_alloc_measured())
		rt_warn("CCPROF_OPTIONS: heap=1 needs the allocation runtime, libccprof-alloc.so "
			"(ccprof record --heap); no heap profile");
	rt_dump_init();
	rt_sandbox_start(); /* Note [Sandboxed] in sandbox.c */
	rt_shadow_start();
	rt_clock_start(); /* calibrated at the first hook: Note [Calibration at the first hook] */
	rt_raw_thread_prepare(); /* Note [A helper glibc does not count] in rawthread.c */
	rt_sampler_start_or_defer();
	at_quick_exit(at_exit); /* exit() and main's return: ccprof_destructor */
	if (rt_config.handle_signals)
		rt_signals_install();
	if (rt_lend_altstack)
		rt_lend_altstack();
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/* Note [exit in a vfork child] in exitgate.c: the child's exit ran
 * __cxa_finalize for the runtime, which dropped the fork handlers,
 * registered with it, in the memory the parent shares: without them the
 * parent's fork children wrote no profile (helper-190).  Not the
 * quick_exit one, which glibc refuses once an exit has run its
 * handlers, as it has here. */
void rt_process_handlers_again(void)
{
	rt_alloc_own_begin(); /* Note [The runtime's own allocations] */
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
	rt_alloc_own_end();
}

/* A warning's write is a cancellation point: Note [Cancellation] in
 * cancel.c. */
static void init_once(void)
{
	int cancel = rt_nocancel_begin();

	init_all();
	rt_nocancel_end(cancel);
}

/*
 * Note [A hook while the runtime starts]: what init_all calls may be the
 * program's own, instrumented: a getenv, a strtod, a signal function it
 * defines (bash defines getenv).  Their hooks come back here on the same
 * thread, inside pthread_once, which would wait for itself for ever: so
 * while this thread starts the runtime, its hooks count nothing
 * (rt_thread_start returns NULL) and rt_init returns at once.  The
 * runtime reads its own environment without getenv (rt_getenv), so the
 * usual case drops no call.
 */
static __thread int initialising __attribute__((tls_model("initial-exec")));

int rt_initialising(void)
{
	return initialising;
}

/* errno kept: the first call of an instrumented function may come before
 * our constructor (a library's constructor, a C++ static initialiser),
 * and the start-up runs inside its hook, where the option parsers'
 * strtoull would leave the program an errno of 0 (helper-119). */
void rt_init(void)
{
	int saved = errno;

	if (initialising)
		return;
	initialising = 1;
	rt_alloc_own_begin(); /* Note [The runtime's own allocations] */
	pthread_once(&once, init_once);
	rt_alloc_own_end();
	initialising = 0;
	errno = saved;
}

__attribute__((constructor)) static void ccprof_constructor(int argc, char **argv, char **envp)
{
	(void)envp;
	rt_alloc_own_begin();
	rt_dump_set_args(argc, argv);
	rt_alloc_own_end();
	rt_init();
}

/* Put here by exitgate.c's constructor: whether this process is in
 * exit() (never under -static, where libc's exit keeps its place: Note
 * [The gate in libccprof.a]). */
int (*rt_exiting)(void);

int __cxa_atexit(void (*f)(void *), void *arg, void *dso_handle);

void rt_exit_write(void)
{
	at_exit();
}

static void at_exit_after_libraries(void *unused)
{
	(void)unused;
	at_exit();
}

/*
 * The write at exit, as late as it can be: the program's own destructor
 * functions (.fini_array) call instrumented code after its atexit
 * handlers, and their calls count too (docs/options.md, "How the run
 * ends").  An atexit handler of ours would run before them when
 * libccprof.a is linked into the program (registered by its start-up,
 * after the dynamic linker's handler that runs every .fini_array); a
 * destructor runs after the program's, preloaded (our .fini_array comes
 * after the executable's) or linked in (the lowest priority runs last).
 *
 * Note [After the libraries' destructors]: preloaded, our destructor runs
 * before those of the libraries whose constructors ran before ours
 * (libstdc++, a plugin's), and their frees came after the write: a
 * library's global std::map of 2,000 nodes, freed by its destructor,
 * showed as 197,000 bytes live at the end, leaks that were none.  So in
 * exit() (exitgate.c says so) the destructor only registers the write
 * with __cxa_atexit and no DSO: exit runs it once the dynamic linker's
 * handler, which runs every .fini_array, is done (a handler registered
 * with our DSO would run with our own .fini_array, at once).  Not for a
 * destructor run outside exit (a dlclose), where the handler would
 * outlive its code, nor if the registration fails: then at once.
 */
__attribute__((destructor(101))) static void ccprof_destructor(void)
{
	if (rt_pid_not_ours())
		rt_exit_child_finalized(); /* Note [exit in a vfork child] in exitgate.c */
	if (rt_exiting && rt_exiting() &&
	    __cxa_atexit(at_exit_after_libraries, NULL, NULL) == 0)
		return;
	at_exit();
}
