/*
 * A driver for real third-party code: libiberty's C++ demangler
 * (cp-demangle.c from Debian's binutils-source, built by tests/real.py).
 * Its recursive descent parser and printer are deeply mutually recursive,
 * which is what gprof lumps into one cycle and ccprof must not.
 *
 *   demangler FILE ROUNDS
 *
 * demangles every line of FILE that starts with "_Z", ROUNDS times, and
 * prints each result (or the name itself where it does not demangle).  On
 * stderr it prints what it counted itself:
 *   names N demangled M
 * where N is the number of calls it made to cplus_demangle_v3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

static unsigned long names, demangled;

static void demangle_line(const char *mangled)
{
	char *s = cplus_demangle_v3(mangled, DMGL_PARAMS | DMGL_ANSI | DMGL_TYPES);

	names++;
	if (s != NULL)
		demangled++;
	puts(s != NULL ? s : mangled);
	free(s);
}

static int demangle_file(const char *path)
{
	char line[8192];
	FILE *f = fopen(path, "r");

	if (f == NULL) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "_Z", 2) == 0)
			demangle_line(line);
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 1;

	if (argc < 2) {
		fprintf(stderr, "usage: demangler FILE [ROUNDS]\n");
		return 2;
	}
	for (int i = 0; i < rounds; i++)
		if (demangle_file(argv[1]) != 0)
			return 1;
	fprintf(stderr, "names %lu demangled %lu\n", names, demangled);
	return 0;
}
