/*
 * respell.c - add to a profile K more modules that are its first module's
 * file under other spellings ("//x", "/./x": one file, K paths), each
 * with a copy of that module's first function, without its source, so
 * that the tool looks its line up again (tests/sources.py
 * respelled_modules; src/model/sources.c same_files).
 *
 * Usage: respell IN OUT K [same].  With "same" every added module has
 * the first module's own spelling: the same profile, but one path.
 * Exits 1 with a message if IN cannot be read or OUT written.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"

/* Spelling i of path (absolute): 20 steps of "/." or "//" before it. */
static char *respelled(const char *path, uint32_t i)
{
	char *s = malloc(strlen(path) + 41), *o = s;
	if (s == NULL)
		exit(1);
	for (int b = 0; b < 20; b++)
		o += sprintf(o, (i >> b) & 1 ? "/." : "//");
	strcpy(o, path);
	return s;
}

int main(int argc, char **argv)
{
	struct ccp_profile p;
	char err[256];
	if (argc < 4 || ccp_format_read_file(argv[1], &p, err, sizeof err) != 0) {
		fprintf(stderr, "respell: %s\n", argc < 4 ? "usage: respell IN OUT K [same]" : err);
		return 1;
	}
	uint32_t k = (uint32_t)strtoul(argv[3], NULL, 10), f = 0;
	int same = argc > 4 && strcmp(argv[4], "same") == 0;
	while (f < p.nccs && !(p.ccs[f].kind == CCP_CC_FUNCTION && p.ccs[f].module == 0))
		f++;
	if (p.nmodules == 0 || f == p.nccs || p.modules[0].path[0] != '/') {
		fprintf(stderr, "respell: %s: no function in an absolute first module\n", argv[1]);
		return 1;
	}
	struct ccp_module *mv = calloc(p.nmodules + k, sizeof *mv);
	struct ccp_cc *cv = calloc(p.nccs + k, sizeof *cv);
	if (mv == NULL || cv == NULL)
		return 1;
	memcpy(mv, p.modules, p.nmodules * sizeof *mv);
	memcpy(cv, p.ccs, p.nccs * sizeof *cv);
	for (uint32_t i = 0; i < k; i++) {
		mv[p.nmodules + i] = p.modules[0];
		if (!same)
			mv[p.nmodules + i].path = respelled(p.modules[0].path, i);
		cv[p.nccs + i] = p.ccs[f];
		cv[p.nccs + i].module = (int32_t)(p.nmodules + i);
		cv[p.nccs + i].file = "";
		cv[p.nccs + i].line = 0;
	}
	p.modules = mv;
	p.nmodules += k;
	p.ccs = cv;
	p.nccs += k;
	int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ccp_format_write_fd(&p, fd) != 0) {
		fprintf(stderr, "respell: cannot write %s\n", argv[2]);
		return 1;
	}
	return close(fd) != 0;
}
