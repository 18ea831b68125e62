/* A library preloaded before the runtime: the first rename(2) of a file
 * to a name ending in ".ccprof" (the runtime putting a profile in place)
 * first sends this process SIGTERM, which the runtime holds while it
 * writes.  How tests/robust.py makes a second signal come during the
 * write of the first's profile, every time (tests/progs/sigtwice.c). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int rename(const char *from, const char *to)
{
	static int sent;
	size_t n = strlen(to);

	if (!sent && n > 7 && strcmp(to + n - 7, ".ccprof") == 0) {
		sent = 1;
		kill(getpid(), SIGTERM);
	}
	return ((int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename"))(from, to);
}
