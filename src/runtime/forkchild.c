/*
 * forkchild.c - fork, forkpty and daemon: a forked child's sampling
 * thread starts after every fork handler (forkpty and daemon in the
 * shared runtime only).
 *
 * Note [The child's sampler]: a forked child has no sampling thread
 * (fork copies only the thread that called it), so the runtime starts
 * one, and starting a thread allocates (glibc's pthread_create takes
 * the new thread's TLS from malloc).  From the runtime's own child
 * handler that allocation can wait for ever: glibc runs the child
 * handlers in the order they were registered, the runtime's first, and
 * a program whose own allocator holds its lock across fork (jemalloc's
 * and tcmalloc's do), with handlers registered after the runtime
 * started, gives that lock back only in its own child handler, later.
 * So the runtime takes fork, forkpty and daemon over: inside them its
 * child handler only notes that the child needs a sampler, and the
 * interposer starts it once libc's call has returned in the child,
 * after every handler.  A fork libc makes inside itself, out of the
 * interposers' reach, starts it from the handler as before.
 *
 * Note [fork in a static program]: libccprof.a takes fork over too, as
 * a weak definition (the Makefile), and calls libc's through dlsym where
 * libc is shared.  Linked with -static there is no "next": libc's is
 * __fork, a public name in libc.so and, in libc.a, a weak alias in the
 * object that defines fork, which the strong reference below pulls in.
 * That object's fork is weak as well and comes after ours, so ours is the
 * program's.  forkpty and daemon are made local in the archive: libc.a
 * has no other name for them, so a definition of ours there (ahead of
 * libc.a's weak forkpty, keeping its strong daemon out of the link)
 * would leave none to call.  A program linked with libccprof.a and a
 * shared libc loses daemon's parent's profile, as before; with -static,
 * libc.a's daemon ends the parent by the runtime's _exit (rawexit.c),
 * which writes it.
 *
 * Note [daemon's parent]: glibc's daemon(3) forks and ends the parent by
 * its own _exit, inside libc, where rawexit.c's interposer never sees it.
 * The parent wrote nothing, and as the child starts with fresh counts,
 * the work before the call was in no profile at all.  So the runtime
 * takes daemon over and writes the parent's profile first, as
 * ccprof_dump does, then calls libc's: if the fork succeeds, the parent
 * does nothing more before its _exit, so that is its whole profile; if
 * it fails, daemon returns -1 and the parent lives on, its signal mask
 * untouched and its write at exit still to come, which replaces this
 * one.  The child goes on with fresh counts and writes PATH.<pid> when
 * it ends.  Not from the fork's parent handler: glibc runs ours before
 * those registered after it, whose locks (a program's own allocator's)
 * are still held there, and the write allocates.
 */
#include <dlfcn.h>
#include <pty.h>
#include <unistd.h>

#define CCPROF_BUILDING_RUNTIME
#include "ccprof.h"
#include "runtime.h"

static void *real_fork;
static void *real_forkpty;
static void *real_daemon;

/* libc's fork under its other name: Note [fork in a static program]. */
extern pid_t __fork(void);

static void forkchild_lookup_now(void)
{
	__atomic_store_n(&real_fork, rt_next_or("fork", (void *)__fork), __ATOMIC_RELEASE);
}

/* fork may come from a signal handler (it is async-signal-safe), where
 * dlsym is no safe call: looked up before main. */
__attribute__((constructor)) static void forkchild_lookup(void)
{
	forkchild_lookup_now();
}

/* forkpty and daemon are not async-signal-safe: looked up at their first
 * call, so that libccprof.a, where they are local and never called,
 * makes no lookup at start-up that fails under -static. */
static void forkpty_lookup(void)
{
	__atomic_store_n(&real_forkpty, dlsym(RTLD_NEXT, "forkpty"), __ATOMIC_RELEASE);
}

static void daemon_lookup(void)
{
	__atomic_store_n(&real_daemon, dlsym(RTLD_NEXT, "daemon"), __ATOMIC_RELEASE);
}

RT_API pid_t fork(void)
{
	int outer;
	pid_t pid;

	if (!rt_real_ready(&real_fork, forkchild_lookup_now))
		return -1;
	outer = rt_fork_interposed_begin();
	pid = ((pid_t(*)(void))real_fork)();
	rt_fork_interposed_end(outer);
	return pid;
}

RT_API pid_t forkpty(int *amaster, char *name, const struct termios *termp,
		     const struct winsize *winp)
{
	typedef pid_t (*forkpty_fn)(int *, char *, const struct termios *, const struct winsize *);
	int outer;
	pid_t pid;

	if (!rt_real_ready(&real_forkpty, forkpty_lookup))
		return -1;
	outer = rt_fork_interposed_begin();
	pid = ((forkpty_fn)real_forkpty)(amaster, name, termp, winp);
	rt_fork_interposed_end(outer);
	return pid;
}

RT_API int daemon(int nochdir, int noclose)
{
	int outer, r;

	if (!rt_real_ready(&real_daemon, daemon_lookup))
		return -1;
	ccprof__dump(); /* Note [daemon's parent]; nothing where the runtime is disabled */
	outer = rt_fork_interposed_begin();
	r = ((int (*)(int, int))real_daemon)(nochdir, noclose);
	rt_fork_interposed_end(outer);
	return r;
}
