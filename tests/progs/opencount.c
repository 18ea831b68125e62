/* A library preloaded into `ccprof record` itself: at exit, if the process
 * is ccprof, it says on stderr how many times it opened the file named by
 * $OPENCOUNT ("opened N").  How tests/sources.py sees that record reads a
 * binary's debug information once for all the profiles of a run (Note
 * [Sources across profiles] in src/model/sources.c).  The program record
 * runs has it preloaded too, and says nothing. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned opened;

static void count(const char *path)
{
	const char *want = getenv("OPENCOUNT");

	if (want && path && strcmp(path, want) == 0)
		opened++;
}

int open(const char *path, int flags, ...)
{
	int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	count(path);
	return real(path, flags, mode);
}

__attribute__((destructor)) static void say(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

	if (n <= 0)
		return;
	exe[n] = '\0';
	if (strcmp(strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe, "ccprof") == 0)
		fprintf(stderr, "opened %u\n", opened);
}
