/*
 * tempname.h - the name of the temporary file a profile is written to
 * before its rename into place: the runtime's (dump.c), and the one
 * `ccprof record` makes and removes beforehand to see that the runtime
 * can (cmd_record.c), which must be the same name.
 */
#ifndef CCPROF_TEMPNAME_H
#define CCPROF_TEMPNAME_H

#include <stdio.h>
#include <string.h>

/* "DIR/.BASE.tmpPID.I" for path DIR/BASE, into tmp (size bytes): hidden,
 * so that a glob of the profiles (PATH.*, *.ccprof) never takes one that
 * a write killed half-way left behind (bash's tests SIGKILL a child as it
 * writes: `ccprof merge PATH.*` then failed on the empty file,
 * helper-107); BASE cut to 200 bytes, so that the name fits NAME_MAX.
 * 0, or -1 if it does not fit in tmp. */
static inline int ccp_temp_name(char *tmp, size_t size, const char *path, int pid, int i)
{
	const char *slash = strrchr(path, '/');
	int dir = slash ? (int)(slash - path) + 1 : 0;

	return snprintf(tmp, size, "%.*s.%.200s.tmp%d.%d", dir, path, path + dir, pid, i) >=
			       (int)size ? -1 : 0;
}

#endif
