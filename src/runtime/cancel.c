/*
 * cancel.c - the runtime's work on a thread's behalf, held safe from that
 * thread's cancellation (Note [Cancellation]).
 */
#include <pthread.h>

#include "runtime.h"

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
