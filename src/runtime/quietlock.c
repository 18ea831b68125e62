/*
 * quietlock.c - the runtime's locks, held with every signal blocked
 * (Note [Locks and signals]).
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime.h"

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
 * lock then puts back the all-blocked mask the outer one made.  The
 * masks are not in thread-local storage: glibc carves a preloaded
 * library's from each thread's stack, and a thread with the smallest
 * stack (tests/progs/smallstack.c) has no room for a sigset_t a lock
 * (an int, always_quiet below, it has).  The cost, two
 * sigprocmask calls per acquisition, falls on slow paths only (a
 * thread's start and end, a new cost centre, a sample, a write); the
 * hooks' fast path takes no lock.  A signal sent during a write waits
 * for its end, as one sent during a thread's start does.
 */
/*
 * Note [Locks of our own]: the sampling helper is a thread glibc does not
 * count (Note [A helper glibc does not count] in rawthread.c), and glibc
 * takes a mutex with a plain store, no atomic, while it thinks the process
 * has one thread.  So the locks the helper shares with the program's
 * threads are these, a futex each: 0 free, 1 held, 2 held with waiters
 * (Drepper, "Futexes Are Tricky", mutex2).  errno is kept: a lock is
 * taken in signal handlers too.
 */
static void futex_lock(int *word)
{
	int c = 0, saved;

	if (__atomic_compare_exchange_n(word, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	saved = errno;
	if (c != 2)
		c = __atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE);
	while (c != 0) {
		syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
		c = __atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE);
	}
	errno = saved;
}

static int futex_trylock(int *word)
{
	int c = 0;

	return __atomic_compare_exchange_n(word, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static void futex_unlock(int *word)
{
	if (__atomic_exchange_n(word, 0, __ATOMIC_RELEASE) == 2) {
		int saved = errno;

		syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		errno = saved;
	}
}

/* A thread of the runtime's own (the sampler) runs with every signal
 * blocked from its start: its locks need no mask, and took two system
 * calls a sample (1,128 in a run of 100 short threads, strace).  Set
 * only while it samples: glibc may run exit's handlers, the program's
 * code, on it after (Note [Last thread] in lastthread.c; helper-137). */
static __thread int always_quiet __attribute__((tls_model("initial-exec")));

void rt_quiet_thread(int on)
{
	always_quiet = on;
}

void rt_quiet_lock(struct rt_quiet_mutex *q)
{
	sigset_t all, saved;

	if (always_quiet) {
		futex_lock(&q->word);
		return;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	futex_lock(&q->word);
	q->kept = saved;
}

int rt_quiet_trylock(struct rt_quiet_mutex *q)
{
	sigset_t all, saved;

	if (always_quiet)
		return futex_trylock(&q->word);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	if (!futex_trylock(&q->word)) {
		pthread_sigmask(SIG_SETMASK, &saved, NULL);
		return 0;
	}
	q->kept = saved;
	return 1;
}

/* For a write from a signal handler or _exit, whose lock's holder is
 * another thread (Note [Locks and signals]) that may never give it back
 * (one a child made without fork's handlers does not have): tries every
 * 250 us until deadline.  By the clock, not by a count of tries: a
 * loaded machine's sleeps are longer, and a signal cuts them short. */
int rt_quiet_trylock_until(struct rt_quiet_mutex *q, uint64_t deadline)
{
	struct timespec wait = {0, 250000};

	if (rt_quiet_trylock(q))
		return 1;
	while (deadline && rt_now_ns(CLOCK_MONOTONIC) < deadline) {
		nanosleep(&wait, NULL); /* async-signal-safe; EINTR: try again */
		if (rt_quiet_trylock(q))
			return 1;
	}
	return 0;
}

/* The mask is copied out first: once the lock is free, the next holder
 * writes `kept`. */
void rt_quiet_unlock(struct rt_quiet_mutex *q)
{
	sigset_t saved;

	if (always_quiet) {
		futex_unlock(&q->word);
		return;
	}
	saved = q->kept;
	futex_unlock(&q->word);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

void rt_quiet_after_fork(struct rt_quiet_mutex *q)
{
	__atomic_store_n(&q->word, 0, __ATOMIC_RELAXED);
}
