/*
 * exitgate.c - exit() called by two threads at once.
 *
 * Note [Concurrent exit]: glibc (2.36) runs exit's handlers in whichever
 * thread takes each one next.  A second thread that calls exit while the
 * first runs them finds none left, or takes some of them, and ends the
 * process with _exit: if the profile was being written then (by our
 * destructor, the last thing exit runs, in either thread), it was lost;
 * 39 runs in 40 of main returning while a thread called exit wrote none.
 * So exit() is a gate: the first call goes through; a later one from
 * another thread waits for the write at exit, then goes on to end the
 * process as it would have.  It waits at most EXIT_START_WAIT_MS for the
 * write to begin: the first exit's handlers run before it, and one of
 * them may need this thread (a lock it holds, a join), which would stall
 * the program, not only the profile; and at most EXIT_WAIT_S for the
 * write to end.  A fork starts the child with the gate open (it is kept
 * per pid), and an exit in a signal handler, or in an exit handler, of
 * the thread already in exit() goes through, as before.
 * main's return calls exit inside libc, out of the gate's reach, so
 * __libc_start_main is interposed to give it a main that calls exit
 * through the gate.
 *
 * Note [The gate in libccprof.a]: the archive has both names too, weak
 * (the Makefile).  Linked dynamically, the program's own calls of exit
 * come here, and so does its start: crt1.o's _start calls the program's
 * __libc_start_main, ours; the real ones are dlsym's.  Without the gate,
 * 20 runs in 20 of tests/progs/exitrace.c so linked wrote no profile.
 * With -static, libc.a's exit and __libc_start_main, strong, take the
 * place of ours: every static link pulls in their objects for other
 * names (exit.o's __exit_funcs_done for cxa_atexit.o, libc-start.o's
 * cache sizes for the string functions), and tests/runtime.py checks
 * that it does (gate_owner).  That is glibc's layout on x86-64 since
 * 2.34 at least (Debian 12 has 2.36; the runtime needs 2.32 for
 * strerrordesc_np in any case).  helper-165 found the cache sizes in an
 * object of their own in older sources: a libc.a laid out so would
 * leave ours the program's start, with no libc one to call, and a
 * -static program would die before main, which gate_owner would show.
 * There the second thread's exit ends in our _exit (Note [Ending by
 * _exit] in rawexit.c), which waits for the write as the gate would.
 * -static-pie is the same, libc's exit a local symbol there
 * (tests/robust.py static_pie).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime.h"

typedef void (*exit_fn)(int);
typedef int (*main_fn)(int, char **, char **);
typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void),
			void *);

static void *real_exit, *real_start;
static main_fn program_main;
/* The process whose first exit() has gone through: a forked child's
 * gate is open.  in_exit: this thread is in exit() already (a handler's
 * or a signal handler's exit, for glibc to deal with as before). */
static pid_t gate_pid;
static __thread int in_exit __attribute__((tls_model("initial-exec")));

static void exit_lookup(void)
{
	real_exit = dlsym(RTLD_NEXT, "exit");
}

static void start_lookup(void)
{
	real_start = dlsym(RTLD_NEXT, "__libc_start_main");
}

/* Whether this process's exit() has gone through the gate: its
 * destructors run inside exit (Note [After the libraries' destructors]
 * in init.c). */
static int exiting(void)
{
	return __atomic_load_n(&gate_pid, __ATOMIC_ACQUIRE) == getpid();
}

/* Looked up before main, where nothing can interrupt it: the first exit
 * may come from a signal handler, where dlsym is no safe call.  (A
 * preloaded library's constructors run before the program's start.) */
__attribute__((constructor)) static void exitgate_lookup(void)
{
	exit_lookup();
	start_lookup();
	rt_exiting = exiting;
}

/* Whether this call comes after another thread's first exit() in this
 * process.  No wait in here: a signal handler that calls exit between
 * the steps is this thread's again. */
static int behind_another(pid_t me)
{
	pid_t seen;

	if (in_exit)
		return 0;
	in_exit = 1;
	seen = __atomic_load_n(&gate_pid, __ATOMIC_ACQUIRE);
	return seen == me || !__atomic_compare_exchange_n(&gate_pid, &seen, me, 0, __ATOMIC_ACQ_REL,
							   __ATOMIC_ACQUIRE);
}

/*
 * Note [exit in a vfork child]: a vfork child that ends by exit (not
 * _exit: wrong, but done) runs the process's atexit handlers in its
 * parent's memory, where glibc marks them run: among them the dynamic
 * linker's, which runs every .fini_array and with it the runtime's
 * destructor, whose write a child skips (dump.c).  The parent's own exit
 * then found no handler left and wrote no profile, and said nothing
 * (helper-187).  So a child whose pid is not ours marks that it ran
 * them, in the memory it shares with its parent (a child with memory of
 * its own marks its own copy), and the parent's first exit then writes
 * at once, before libc's; what handlers are left (registered since) run
 * after the write.  glibc's __cxa_finalize for the runtime also drops,
 * in that memory, the fork and quick_exit handlers the runtime
 * registered: the parent's fork children then wrote no profile, nor did
 * its quick_exit (helper-190), so the parent, back from our vfork,
 * registers the fork handlers again (vfork.c).  glibc takes no new exit
 * handler once an exit has run them, so the quick_exit one stays
 * dropped: a parent that then ends by quick_exit writes no profile.  Not
 * under -static,
 * where libc's exit is the one.
 */
static int handlers_run_by_child, handlers_dropped;

int rt_exit_child_dropped_handlers(void)
{
	return __atomic_exchange_n(&handlers_dropped, 0, __ATOMIC_ACQ_REL);
}

/* From the runtime's destructor in a child whose pid is not ours: its
 * __cxa_finalize comes with it.  Not from exit itself: a later child's
 * exit finds no handler left to run, drops nothing, and the handlers
 * registered again twice made fork take the runtime's locks twice. */
void rt_exit_child_finalized(void)
{
	__atomic_store_n(&handlers_dropped, 1, __ATOMIC_RELEASE);
}

RT_API void exit(int status)
{
	if (!rt_real_ready(&real_exit, exit_lookup))
		_exit(status); /* no libc exit to call: end as it would, less the handlers */
	if (rt_pid_not_ours())
		__atomic_store_n(&handlers_run_by_child, 1, __ATOMIC_RELEASE);
	else if (rt_pid != 0 && behind_another(rt_pid))
		rt_exit_wait();
	else if (rt_pid != 0 && __atomic_load_n(&handlers_run_by_child, __ATOMIC_ACQUIRE))
		rt_exit_write();
	((exit_fn)real_exit)(status);
	__builtin_unreachable();
}

RT_API int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
			     void (*fini)(void), void (*rtld_fini)(void), void *stack_end);

static int main_then_exit(int argc, char **argv, char **envp)
{
	exit(program_main(argc, argv, envp));
}

RT_API int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
			     void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	if (!rt_real_ready(&real_start, start_lookup))
		_exit(127);
	program_main = main;
	return ((start_fn)real_start)(main_then_exit, argc, argv, init, fini, rtld_fini,
				      stack_end);
}
