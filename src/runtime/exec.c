/*
 * exec.c - write the profile before the process image is replaced.
 *
 * The exec family is interposed (these definitions take precedence over
 * libc's when libccprof is preloaded or linked): the profile of the part
 * of the run before the exec is written, then the real call is made.  If
 * the exec fails the program goes on and the profile is written again at
 * exit.  A vfork child shares its parent's memory, so it must not write
 * anything: it is recognised by a pid that is not ours (vfork runs no
 * atfork handler, so rt_pid still holds the parent's).
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime.h"

#define API __attribute__((visibility("default"), no_instrument_function))
#define MAX_ARGS 4096

static void before_exec(void)
{
	if (rt_config.disabled || getpid() != rt_pid || !rt_anything_recorded())
		return;
	rt_sampler_stop();
	rt_dump(0);
	rt_sampler_start(); /* in case the exec fails */
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execvp_fn)(const char *, char *const[]);
typedef int (*execvpe_fn)(const char *, char *const[], char *const[]);

API int execve(const char *path, char *const argv[], char *const envp[])
{
	execve_fn real = (execve_fn)dlsym(RTLD_NEXT, "execve");

	before_exec();
	return real(path, argv, envp);
}

API int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	execvpe_fn real = (execvpe_fn)dlsym(RTLD_NEXT, "execvpe");

	before_exec();
	return real(file, argv, envp);
}

API int execvp(const char *file, char *const argv[])
{
	execvp_fn real = (execvp_fn)dlsym(RTLD_NEXT, "execvp");

	before_exec();
	return real(file, argv);
}

/* The list forms gather their arguments and call the vector forms. */
static int collect(const char *arg0, va_list *ap, char **argv)
{
	int n = 0;

	argv[n++] = (char *)arg0;
	while (arg0 && n < MAX_ARGS && (argv[n] = va_arg(*ap, char *)) != NULL)
		n++;
	argv[n < MAX_ARGS ? n : MAX_ARGS - 1] = NULL;
	return n;
}

API int execl(const char *path, const char *arg, ...)
{
	char *argv[MAX_ARGS + 1];
	va_list ap;

	va_start(ap, arg);
	collect(arg, &ap, argv);
	va_end(ap);
	return execve(path, argv, environ);
}

API int execlp(const char *file, const char *arg, ...)
{
	char *argv[MAX_ARGS + 1];
	va_list ap;

	va_start(ap, arg);
	collect(arg, &ap, argv);
	va_end(ap);
	return execvp(file, argv);
}

API int execle(const char *path, const char *arg, ...)
{
	char *argv[MAX_ARGS + 1];
	char *const *envp;
	va_list ap;

	va_start(ap, arg);
	collect(arg, &ap, argv);
	envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}
