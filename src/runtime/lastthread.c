/*
 * lastthread.c - whether the sampling helper is all that is left of the
 * process, and how the process then ends.
 *
 * Note [Last thread]: glibc ends the process with exit(0) when its last
 * thread ends, and the helper is a thread too.  After main calls
 * pthread_exit and the program's other threads end, the process would
 * live on with the helper alone, for ever, and no signal could end it
 * (the helper blocks them all).  So every ALONE_CHECK_NS (sampler.c) the
 * helper looks whether the thread group's leader (main, or the thread
 * that forked) is a zombie and no other task but the helper is left (in
 * /proc, unless the registry shows the leader still running).  Then it
 * returns, and glibc calls exit(0) in it, as it would have in the
 * program's last thread: the atexit handlers run and the profile is
 * written.  Where /proc is missing it never knows, and the process stays
 * as before.  That is a POSIX helper (helper=pthread, or where the other
 * cannot be made); one glibc does not count (Note [A helper glibc does
 * not count] in rawthread.c) leaves glibc's count as bare, so main's
 * pthread_exit ends the process at once, and the helper finds itself
 * alone only where the program's threads ended without glibc's count
 * (by the exit system call, or below), and ends the process as that last
 * thread would have (rt_end_as_last_thread, with status 0, after the
 * profile's write); a POSIX helper that finds such threads still listed
 * writes the profile before it returns, for glibc may count them still
 * and end only the helper.
 *
 * Note [A leader that died alone]: the leader can also end without
 * pthread_exit, and so without leaving the registry: killed alone by a
 * seccomp filter whose verdict is SECCOMP_RET_KILL_THREAD (libseccomp's
 * SCMP_ACT_KILL, file(1)'s sandbox) at a call its filter does not list,
 * or by a raw exit system call.  Bare, a process with no other thread
 * then ended (by SIGSYS, or with the exit's status); profiled, the
 * registry still listed the leader, the helper never looked in /proc,
 * and the process lived on for ever, deaf even to SIGTERM, for the
 * leader that would have taken it was gone.  Neither reading the
 * leader's CPU clock nor tgkill(…, 0) tells (it is a zombie, still
 * there), and looking in /proc while the leader runs is what Note [CPU
 * time where it ran] forbids.  But the kernel marks every thread's end:
 * it writes 0 where the thread asked it to at its start (its
 * clear_child_tid), glibc keeps the thread's tid there, and glibc then
 * answers ESRCH when asked for the thread's clock id: no system call, so
 * under any seccomp filter too.  So the thread that starts the helper in
 * a new image or a fork child, the leader, is remembered, and the helper
 * asks every ALONE_CHECK_NS: a listed leader that glibc says is gone has
 * ended, and /proc may be read.  glibc's count of threads never saw that
 * end, so no exit(0) is coming: the helper writes
 * the profile itself (the write of _exit, rawexit.c) and ends the process
 * as its last thread did.  Since Linux 6.0 that is the status of the
 * process's last thread to end, before it the leader's: the helper dies
 * by the leader's signal, or ends as a thread with the leader's exit
 * status, or with 0 if one of the program's threads ended by returning
 * after the leader (rt_last_thread_ends); on an older kernel, the leader's
 * status wins as it does bare.  A leader whose exit status /proc gives as
 * not 0 ended so too, listed or not: a main that ran no instrumented code.
 * Under clock=cycles there is no helper, and the process ends as bare,
 * without a profile.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime.h"

/* The leader, if the thread that started the helper was the leader. */
static pthread_t leader;
static int leader_known;
/* One of the program's threads ended by returning after the leader. */
static int ended_after_leader;

void rt_last_thread_watch(void)
{
	int known = (pid_t)syscall(SYS_gettid) == getpid();

	if (known)
		leader = pthread_self();
	__atomic_store_n(&ended_after_leader, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&leader_known, known, __ATOMIC_RELEASE);
}

static int leader_ended(void)
{
	clockid_t unused;

	return __atomic_load_n(&leader_known, __ATOMIC_ACQUIRE) &&
	       pthread_getcpuclockid(leader, &unused) == ESRCH;
}

/* From a thread of the registry as it ends (threads.c). */
void rt_last_thread_ends(void)
{
	if (leader_ended())
		__atomic_store_n(&ended_after_leader, 1, __ATOMIC_RELAXED);
}

/* A /proc stat file's state letter, or 0 if unknown, and its exit status
 * as wait gives it (field 52, Linux 3.5 on), or -1. */
static char stat_state(const char *path, int *exit_status)
{
	char buf[1024];
	const char *state, *status;

	*exit_status = -1;
	if ((state = rt_proc_stat_read(path, buf, sizeof buf)) == NULL)
		return 0;
	if ((status = rt_proc_stat_field(state, 52)) != NULL)
		*exit_status = atoi(status);
	return *state;
}

/* Whether the registry lists the leader as running: the usual case, known
 * without opening a file (each open of ours takes the lowest free
 * descriptor for a moment, which a program that closes 0 and opens
 * /dev/null expects to get). */
static int leader_listed(void)
{
	uint64_t leader_tid = (uint64_t)getpid(); /* once: the walk is under the lock */
	struct rt_thread *t;

	rt_registry_lock();
	for (t = rt_live_first(); t && t->tid != leader_tid; t = t->live_next)
		;
	rt_registry_unlock();
	return t != NULL;
}

/*
 * Whether some task other than the leader (a zombie by now) and the
 * helper, the caller, is alive.  Counted, not found by tid: /proc may be
 * another PID namespace's, the one it was mounted in, whose numbers are
 * not the ones getpid and gettid give (unshare --pid without a /proc of
 * its own): the helper looked for the leader's file by getpid's number,
 * never found it, and a main that ended by the exit system call left the
 * process running for ever (helper-196).
 */
static int others_alive(void)
{
	char buf[4096], path[64];
	long n, i;
	int fd, alive = 0, unused;

	if ((fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 1;
	while (alive < 2 && (n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
		for (i = 0; i < n && alive < 2;) {
			const struct dirent64 *d = (const struct dirent64 *)(buf + i);
			long tid = strtol(d->d_name, NULL, 10);

			if (tid > 0) {
				char st;

				snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
				st = stat_state(path, &unused);
				alive += st != 'Z' && st != 'X';
			}
			i += d->d_reclen;
		}
	}
	close(fd);
	return n != 0 || alive >= 2;
}

int rt_helper_alone(void)
{
	int listed = leader_listed(), status;

	if (listed && !leader_ended())
		return 0;
	/* The process's own stat is its leader's (see others_alive). */
	if (stat_state("/proc/self/stat", &status) != 'Z' || others_alive())
		return 0;
	if (!listed && status <= 0)
		return 1; /* Note [Last thread]: glibc calls exit(0) */
	/* Note [A leader that died alone] */
	if (__atomic_load_n(&ended_after_leader, __ATOMIC_RELAXED) || status < 0)
		status = 0;
	rt_end_as_last_thread(status);
}
