/*
 * sys.c - memory and messages straight from the kernel.  The runtime's
 * slow paths may run inside malloc or a signal handler, so they take memory
 * from mmap and print with write(2).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime.h"

void *rt_map(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Interposed functions (exec.c, namespaces.c, dlclose.c) call libc's own,
 * which `lookup` finds with dlsym, at start-up or late if a constructor
 * that ran before ours calls one.  0 with errno ENOSYS if libc has none. */
int rt_real_ready(void *const *real, void (*lookup)(void))
{
	if (*real == NULL)
		lookup();
	if (*real == NULL)
		errno = ENOSYS;
	return *real != NULL;
}

void rt_unmap(void *p, size_t n)
{
	if (p)
		munmap(p, n);
}

/*
 * write(2) that puts no SIGPIPE into the program: stderr or a profile FIFO
 * whose reader has gone gives EPIPE, and the SIGPIPE that comes with it
 * would end the program by SIGPIPE (its default action, or our handler)
 * where without ccprof it ends otherwise: a crash by SIGSEGV (the crash
 * stack goes to stderr), an exit with its status.  SIGPIPE is blocked for
 * the write, and one that the write itself raised (it goes to this
 * thread, and none was pending before) taken back.  Async-signal-safe.
 */
ssize_t rt_write_quietly(int fd, const void *buf, size_t len)
{
	struct timespec now = { 0, 0 };
	sigset_t pipe_set, saved, pending;
	int was_pending, e;
	ssize_t n;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &saved);
	was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
	n = write(fd, buf, len);
	e = errno;
	if (n < 0 && e == EPIPE && !was_pending)
		sigtimedwait(&pipe_set, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	errno = e;
	return n;
}

void rt_warn(const char *fmt, ...)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf, "ccprof: ");
	va_list ap;

	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof buf - 2)
		n = (int)sizeof buf - 2;
	buf[n++] = '\n';
	if (rt_write_quietly(2, buf, (size_t)n) < 0) {
		/* nothing sensible to do: stderr is gone */
	}
}

/*
 * Note [Cancellation]: a thread may have a cancellation request pending
 * and reach no cancellation point of its own (it returns, calls execl or
 * exit), so that without ccprof the request never acts.  The runtime's
 * work on its behalf does reach some: thread_exit reads the thread's
 * name (open, read), the write of the profile opens and writes, the
 * sampler's stop joins the helper (pthread_join), rt_warn writes.  The
 * request acted there, and the thread died in the middle of that work,
 * holding the registry lock, the sampler's control lock or the dump
 * lock: the next thread to take it (the exit) waited for ever
 * (tests/progs/latecancel.c).  So that work runs with cancellation
 * disabled, the state restored after it; the pending request then acts
 * at the program's next cancellation point, as it would without ccprof.
 *
 * A signal handler's write (rt_dump_async: dump_signal, SIGTERM, a
 * crash) too: a thread with asynchronous cancellation cancelled while
 * the handler's write waited in open (a FIFO as the output) died there,
 * holding the dump lock, so no profile came and the exit's write waited
 * for ever (tests/progs/sigkids.c asynccancel).  pthread_setcancelstate
 * is not on POSIX's list of async-signal-safe functions, but glibc's is
 * a compare-and-swap loop on the thread's own cancelhandling word: no
 * lock, no system call, and a handler that interrupts it and restores
 * the state before returning leaves the word as it found it, so the
 * interrupted loop goes on correctly.  Re-enabled with a request
 * pending and the type asynchronous, glibc acts on it at once: the
 * thread dies at the end of the write rather than in its middle, which
 * an asynchronous cancellation is allowed to do at any instruction.  A
 * deadly signal's handler holds it off until the process has died
 * (on_fatal in signals.c): dying there, the thread never re-raised the
 * signal.
 *
 * A thread that enabled asynchronous cancellation can be cancelled at
 * any instruction: in the hooks' slow path it died with the cost-centre
 * lock held (the next new function in any thread, or the write at exit,
 * then hung) or between freeing a table and storing its successor
 * (thread_exit then freed it again).  POSIX allows only the
 * async-cancel-safe functions then, but the program called only its own
 * code.  So the slow path switches the thread to deferred cancellation
 * for its duration (it reaches no cancellation point): a cancellation
 * requested meanwhile acts as soon as it switches back.  That costs a
 * load and a compare when the thread's type is already deferred, the
 * usual case.  The fast path stays as it was: it takes no lock, and the
 * signal handler it allows for at every instruction (Note [Cache reads]
 * in hooks.c) is no worse than a cancellation that never returns.
 */
int rt_nocancel_begin(void)
{
	int old = PTHREAD_CANCEL_ENABLE;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	return old;
}

void rt_nocancel_end(int old)
{
	pthread_setcancelstate(old, NULL);
}

int rt_deferred_begin(void)
{
	int old = PTHREAD_CANCEL_DEFERRED;

	pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old);
	return old;
}

void rt_deferred_end(int old)
{
	pthread_setcanceltype(old, NULL);
}

/*
 * Note [Locks and signals]: a program's signal handler may call fork,
 * exit or execve, and each of those takes the runtime's locks (fork's
 * handlers in init.c take them all; exit's write and exec's take the
 * registry's and the cost centres').  A handler that interrupted its own
 * thread while that thread held one would wait for ever for it: forksig
 * (tests/progs/sigkids.c) hung every time.  So every thread holds those
 * locks (the registry's, the cost centres', the heap samples', and the
 * write's own in dump.c, which exit's write takes too: a handler that
 * called exit in the middle of its thread's ccprof_dump() hung) with all
 * signals blocked: a signal meant for it waits until the lock is given
 * back, and a handler never finds its own thread holding one.  The mask
 * from before is kept beside the lock (written and read by its holder
 * only) and put back as the lock is given back; so the locks must be
 * given back in the reverse order of their taking, as every use of them
 * does (each is taken and given back in one function), and an inner
 * lock then puts back the all-blocked mask the outer one made.  Not in
 * thread-local storage: glibc carves a preloaded library's from each
 * thread's stack, and a thread with the smallest stack
 * (tests/progs/smallstack.c) has none to spare.  The cost, two
 * sigprocmask calls per acquisition, falls on slow paths only (a
 * thread's start and end, a new cost centre, a sample, a write); the
 * hooks' fast path takes no lock.  A signal sent during a write waits
 * for its end, as one sent during a thread's start does.
 */
void rt_quiet_lock(struct rt_quiet_mutex *q)
{
	sigset_t all, saved;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	pthread_mutex_lock(&q->mutex);
	q->kept = saved;
}

int rt_quiet_trylock(struct rt_quiet_mutex *q)
{
	sigset_t all, saved;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	if (pthread_mutex_trylock(&q->mutex) != 0) {
		pthread_sigmask(SIG_SETMASK, &saved, NULL);
		return 0;
	}
	q->kept = saved;
	return 1;
}

/* The mask is copied out first: once the mutex is free, the next holder
 * writes `kept`. */
void rt_quiet_unlock(struct rt_quiet_mutex *q)
{
	sigset_t saved = q->kept;

	pthread_mutex_unlock(&q->mutex);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

void rt_quiet_after_fork(struct rt_quiet_mutex *q)
{
	pthread_mutex_init(&q->mutex, NULL);
}

/* Liveness by tgkill with signal 0: a thread that died in the middle of
 * a write (cancelled, or a crash in a handler without the process's
 * death) never sets the flag.  RT_WAIT_UNBOUNDED waits as long as the
 * owner lives. */
int rt_wait_for(const int *flag, long owner, uint32_t max_ms)
{
	struct timespec ms = {0, 1000000};
	int saved = errno;

	for (uint32_t i = 0; !__atomic_load_n(flag, __ATOMIC_ACQUIRE); i++) {
		if (max_ms != RT_WAIT_UNBOUNDED && i >= max_ms)
			break;
		if (owner != 0 && syscall(SYS_tgkill, (long)rt_pid, owner, 0L) != 0)
			break;
		nanosleep(&ms, NULL);
	}
	errno = saved;
	return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}
