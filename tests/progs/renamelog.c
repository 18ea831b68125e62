/* A library preloaded before the runtime that says, on stderr, each
 * rename the process makes ("rename OLD NEW"), then makes it: how
 * tests/runtime.py sees the temporary name the runtime writes a profile
 * under (hidden: Note on temp_name in src/runtime/dump.c). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int rename(const char *from, const char *to)
{
	int (*real)(const char *, const char *) =
		(int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
	char line[8192];
	int n = snprintf(line, sizeof line, "rename %s %s\n", from, to);

	if (n > 0 && (size_t)n < sizeof line) {
		ssize_t unused = write(2, line, (size_t)n);
		(void)unused;
	}
	return real ? real(from, to) : -1;
}
