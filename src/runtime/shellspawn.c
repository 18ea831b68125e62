/*
 * shellspawn.c - system() and popen(): their shell's children write a
 * profile of their own, OUT.<pid>, as a posix_spawn child's image does
 * (Note [Shell children] in exec.c).
 *
 * libc's functions do the work, with the environment's CCPROF_OPTIONS
 * entry replaced in its slot, for the while, by one with output= added
 * (environ itself stays).  Only in the shared runtime (the Makefile
 * leaves this file out of libccprof.a): in a static program these
 * definitions would take the place of libc's, with none left to call.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime.h"

typedef int (*system_fn)(const char *);
typedef FILE *(*popen_fn)(const char *, const char *);

static void *real_system, *real_popen;

static void shell_lookup(void)
{
	real_system = dlsym(RTLD_NEXT, "system");
	real_popen = dlsym(RTLD_NEXT, "popen");
}

/* Whether this call's shell gets the new entry: not in a vfork child (the
 * parent's memory), nor before the runtime started or when it is off. */
static int ours(void)
{
	return !rt_config.disabled && rt_pid != 0 && getpid() == rt_pid;
}

static void leave(void *unused)
{
	(void)unused;
	rt_exec_shell_leave();
}

/* system is a cancellation point: a thread cancelled in it leaves too. */
RT_API int system(const char *command)
{
	int rc;

	if (!rt_real_ready(&real_system, shell_lookup))
		return -1;
	if (command == NULL || !ours()) /* NULL: is there a shell? */
		return ((system_fn)real_system)(command);
	rt_exec_shell_enter();
	pthread_cleanup_push(leave, NULL);
	rc = ((system_fn)real_system)(command);
	pthread_cleanup_pop(1);
	return rc;
}

RT_API FILE *popen(const char *command, const char *mode)
{
	FILE *f;

	if (!rt_real_ready(&real_popen, shell_lookup))
		return NULL;
	if (!ours())
		return ((popen_fn)real_popen)(command, mode);
	rt_exec_shell_enter();
	pthread_cleanup_push(leave, NULL); /* popen may be a cancellation point */
	f = ((popen_fn)real_popen)(command, mode);
	pthread_cleanup_pop(1);
	return f;
}
