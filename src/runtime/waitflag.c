/*
 * waitflag.c - wait for a flag that another thread of the process sets,
 * for as long as that thread lives: the waits for another thread's write
 * (init.c, signals.c).
 */
#include <errno.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime.h"

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
