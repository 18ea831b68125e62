/*
 * forkchild.c - fork, forkpty and daemon: a forked child's sampling
 * thread starts after every fork handler.
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
 * program's.  forkpty and daemon are weak in the archive too: Note
 * [daemon in a static program].
 *
 * Note [daemon in a static program]: libc.a's daemon is alone in its
 * object, under no other name, and its forkpty a weak alias of
 * __forkpty, a name libc.so does not export; so with libccprof.a's
 * defined they are never pulled in, and under -static there is no libc
 * one to call.  Made local, the archive's were never called: a program
 * linked with it and a shared libc lost daemon's parent's profile
 * (libc's daemon ends it by libc's own _exit), and forkpty's child
 * started its sampler from the fork handler.  So the archive's are the
 * program's, and under -static, where dlsym finds none, they do what
 * glibc's do themselves.  daemon (misc/daemon.c): fork, the parent ends
 * by _exit's system call (its profile written already, below), the
 * child makes a session, goes to / unless nochdir, and unless noclose
 * puts /dev/null, once fstat says it is the character device 1:3, on
 * its standard streams, else fails with ENODEV.  forkpty
 * (login/forkpty.c): openpty, fork, the parent keeps the master, the
 * child makes the terminal its controlling one and its standard streams
 * (login_tty) or ends with status 1.
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
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <utmp.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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

/* libc's fork itself, or -1 if there is none. */
static pid_t libc_fork(void)
{
	if (!rt_real_ready(&real_fork, forkchild_lookup_now))
		return -1;
	return ((pid_t(*)(void))real_fork)();
}

/* glibc's forkpty, for -static links of libccprof.a (Note [daemon in a
 * static program]); run between the interposer's begin and end, as
 * libc's is. */
static pid_t forkpty_here(int *amaster, char *name, const struct termios *termp,
			  const struct winsize *winp)
{
	int master, terminal;
	pid_t pid;

	if (openpty(&master, &terminal, name, termp, winp) != 0)
		return -1;
	pid = libc_fork();
	if (pid < 0) {
		close(master);
		close(terminal);
		return -1;
	}
	if (pid == 0) {
		close(master);
		if (login_tty(terminal) != 0)
			rt_sys_exit_group(1); /* libc's own _exit: no profile */
		return 0;
	}
	*amaster = master;
	close(terminal);
	return pid;
}

/* forkpty and daemon are not async-signal-safe: looked up at their first
 * call, so that libccprof.a makes no lookup at start-up that fails
 * under -static. */
static void forkpty_lookup(void)
{
	__atomic_store_n(&real_forkpty, rt_next_or("forkpty", (void *)forkpty_here),
			 __ATOMIC_RELEASE);
}

/* Where daemon's child keeps its standard streams: /dev/null, if it is
 * the device it should be (glibc's test). */
static int streams_to_null(void)
{
	struct stat st;
	int fd = open("/dev/null", O_RDWR), ok;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return -1;
	}
	ok = S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
	if (ok) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
	}
	if (!ok || fd > STDERR_FILENO)
		close(fd);
	if (!ok)
		errno = ENODEV; /* no call failed: say why */
	return ok ? 0 : -1;
}

/* glibc's daemon, for -static links of libccprof.a (Note [daemon in a
 * static program]); run between the interposer's begin and end, as
 * libc's is. */
static int daemon_here(int nochdir, int noclose)
{
	pid_t pid;

	pid = libc_fork();
	if (pid < 0)
		return -1;
	if (pid > 0)
		rt_sys_exit_group(0); /* its profile written already */
	if (setsid() < 0)
		return -1;
	if (!nochdir && chdir("/") != 0) {
		/* as glibc: the daemon runs on where it was */
	}
	return noclose ? 0 : streams_to_null();
}

static void daemon_lookup(void)
{
	__atomic_store_n(&real_daemon, rt_next_or("daemon", (void *)daemon_here),
			 __ATOMIC_RELEASE);
}

RT_API pid_t fork(void)
{
	int outer;
	pid_t pid;

	if (!rt_real_ready(&real_fork, forkchild_lookup_now))
		return -1;
	outer = rt_fork_interposed_begin();
	pid = libc_fork();
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
