/*
 * execsys.c - the exec family from its system calls, for a static program.
 *
 * exec.c interposes the exec family and calls libc's own functions, found
 * with dlsym(RTLD_NEXT).  A statically linked program has no libc after
 * us to look in (dlsym gives NULL there), and every exec of such a
 * program failed with ENOSYS.  So there the calls are made as glibc makes
 * them: execve and execveat are their system calls, fexecve is execveat
 * of the descriptor itself, and execvpe searches PATH as glibc's does,
 * running a file the kernel will not (ENOEXEC) with /bin/sh.  Nothing
 * here allocates: a vfork child calls it in its parent's memory.
 */
#include <alloca.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"

#define SHELL "/bin/sh"
#define DEFAULT_PATH "/bin:/usr/bin" /* glibc's, when PATH is unset */

int rt_sys_execve(const char *path, char *const argv[], char *const envp[])
{
	return (int)syscall(SYS_execve, path, argv, envp);
}

int rt_sys_execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		    int flags)
{
	return (int)syscall(SYS_execveat, dirfd, path, argv, envp, flags);
}

int rt_sys_fexecve(int fd, char *const argv[], char *const envp[])
{
	return rt_sys_execveat(fd, "", argv, envp, AT_EMPTY_PATH);
}

/* sh PATH ARG1 ...: POSIX's execvp runs a file with no interpreter line
 * as a shell script.  Returns only if that fails, with the shell's errno,
 * as glibc's does: if /bin/sh cannot be run (EACCES, ENOENT), the search
 * goes on.  argv = { NULL } gives sh PATH. */
static void run_as_script(const char *path, char *const argv[], char *const envp[])
{
	size_t n = 0, i;
	char **sh;

	while (argv[n] != NULL)
		n++;
	sh = alloca((n > 1 ? n + 2 : 3) * sizeof *sh);
	sh[0] = (char *)SHELL;
	sh[1] = (char *)path;
	for (i = 1; i < n; i++)
		sh[i + 1] = argv[i];
	sh[n > 1 ? n + 1 : 2] = NULL;
	rt_sys_execve(SHELL, sh, envp);
}

/* One try at path; 1 if the search goes on after it (glibc's list). */
static int try_exec(const char *path, char *const argv[], char *const envp[], int *eacces)
{
	rt_sys_execve(path, argv, envp);
	if (errno == ENOEXEC)
		run_as_script(path, argv, envp);
	switch (errno) {
	case EACCES:
		*eacces = 1;
		return 1;
	case ENOENT:
	case ESTALE:
	case ENOTDIR:
	case ENODEV:
	case ETIMEDOUT:
		return 1;
	default:
		return 0;
	}
}

int rt_sys_execvpe(const char *file, char *const argv[], char *const envp[])
{
	const char *path = rt_getenv("PATH"), *dir, *end;
	size_t flen = strlen(file) + 1, dlen;
	int eacces = 0;
	char *buf;

	if (file[0] == '\0') {
		errno = ENOENT;
		return -1;
	}
	if (strchr(file, '/') != NULL) {
		try_exec(file, argv, envp, &eacces);
		return -1;
	}
	if (flen > NAME_MAX + 1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	path = path ? path : DEFAULT_PATH;
	/* Room for an entry shorter than PATH_MAX, as glibc's, whatever
	 * PATH's length: the call may come from a thread with a small stack. */
	buf = alloca(strnlen(path, PATH_MAX - 1) + 1 + flen);
	for (dir = path;; dir = end + 1) {
		end = strchrnul(dir, ':');
		dlen = (size_t)(end - dir);
		if (dlen >= PATH_MAX) {
			/* glibc skips such an entry, and then takes the ':' after
			 * it for an empty one, the current directory */
			if (*end == '\0')
				break;
			dlen = 0;
		}
		memcpy(buf, dir, dlen);
		if (dlen > 0) /* an empty entry is the current directory */
			buf[dlen++] = '/';
		memcpy(buf + dlen, file, flen);
		if (!try_exec(buf, argv, envp, &eacces))
			return -1;
		if (*end == '\0')
			break;
	}
	if (eacces)
		errno = EACCES;
	return -1;
}
