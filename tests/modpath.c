/*
 * modpath.c - give a profile's module of path FROM the path TO, as a
 * runtime from before absolute module paths recorded a library the
 * dynamic linker found by a relative path ("./libshlib.so"; Note
 * [Relative module paths] in src/cli/cli.c, tests/runtime.py
 * relative_modules).
 *
 * Usage: modpath IN OUT FROM TO.  Exits 1 with a message if IN cannot
 * be read, has no module FROM, or OUT cannot be written.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"

int main(int argc, char **argv)
{
	struct ccp_profile p;
	char err[256];
	uint32_t n = 0;
	if (argc != 5 || ccp_format_read_file(argv[1], &p, err, sizeof err) != 0) {
		fprintf(stderr, "modpath: %s\n", argc != 5 ? "usage: modpath IN OUT FROM TO" : err);
		return 1;
	}
	for (uint32_t i = 0; i < p.nmodules; i++)
		if (strcmp(p.modules[i].path, argv[3]) == 0) {
			p.modules[i].path = argv[4];
			n++;
		}
	if (n == 0) {
		fprintf(stderr, "modpath: %s: no module %s\n", argv[1], argv[3]);
		return 1;
	}
	int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ccp_format_write_fd(&p, fd) != 0) {
		fprintf(stderr, "modpath: cannot write %s\n", argv[2]);
		return 1;
	}
	return close(fd) != 0;
}
