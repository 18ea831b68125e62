/*
 * namespaces.c - unshare and setns, with the sampler thread out of the way.
 *
 * The kernel lets only a single-threaded process enter a new user
 * namespace (unshare(CLONE_NEWUSER), or setns into one) or another mount
 * namespace, and refuses the others with EINVAL.  The sampler thread of
 * the cpu and wall clocks would make every program multi-threaded, so a
 * program that works bare would fail profiled.  These two calls are
 * interposed like the exec family (exec.c): the sampler is stopped, the
 * real call made, and the sampler started again; a thread of the
 * program's own still makes the call fail, as it would bare.  After
 * unshare(CLONE_NEWPID) the process can start no thread at all (its
 * children's pid namespace is no longer its own), so no sampler either:
 * the rest of its time is lost, and the runtime says so if it recorded
 * anything (sampler.c); its children, in the new namespace, sample as
 * usual.
 */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"

typedef int (*unshare_fn)(int);
typedef int (*setns_fn)(int, int);

/* libc's own functions, looked up at start-up (a vfork child must not
 * call dlsym: it shares our memory). */
static void *real_unshare, *real_setns;

/* A static program has no libc's unshare or setns behind ours (ours took
 * their names): the system calls themselves (helper-199: unshare failed
 * with ENOSYS there). */
static int sys_unshare(int flags)
{
	return (int)syscall(SYS_unshare, flags);
}

static int sys_setns(int fd, int nstype)
{
	return (int)syscall(SYS_setns, fd, nstype);
}

void rt_namespaces_init(void)
{
	real_unshare = rt_next_or("unshare", (void *)sys_unshare);
	real_setns = rt_next_or("setns", (void *)sys_setns);
}

/* The sampler stops for calls made by the process it samples (not a
 * vfork child's, whose pid is not ours). */
static int pause_sampler(void)
{
	if (getpid() != rt_pid)
		return 0;
	rt_sampler_stop();
	return 1;
}

static void resume_sampler(int paused)
{
	int saved = errno;

	if (paused)
		rt_sampler_restart(); /* other threads may be at work: Note [Sandboxed] */
	errno = saved;
}

RT_API int unshare(int flags)
{
	int paused, rc;

	if (!rt_real_ready(&real_unshare, rt_namespaces_init))
		return -1;
	paused = pause_sampler();
	rc = ((unshare_fn)real_unshare)(flags);
	resume_sampler(paused);
	return rc;
}

RT_API int setns(int fd, int nstype)
{
	int paused, rc;

	if (!rt_real_ready(&real_setns, rt_namespaces_init))
		return -1;
	paused = pause_sampler();
	rc = ((setns_fn)real_setns)(fd, nstype);
	resume_sampler(paused);
	return rc;
}
