/*
 * procstat.c - fields of a /proc stat file (proc(5)), read without
 * allocating: from the sampler, and from a write in a signal handler.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"

/* The stat file at path, read into buf: its third field (the state
 * letter) on, or NULL.  The second, the command in parentheses, may
 * hold anything, spaces and parentheses too, so the fields after it are
 * found from its last ')'. */
const char *rt_proc_stat_read(const char *path, char *buf, size_t size)
{
	const char *after_name;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	after_name = strrchr(buf, ')');
	if (!after_name || after_name[1] != ' ')
		return NULL;
	return after_name + 2;
}

/* Field `field` (3 or later, numbered as in proc(5)) of the fields from
 * the third on, as rt_proc_stat_read gave them, or NULL. */
const char *rt_proc_stat_field(const char *third, int field)
{
	const char *p = third;
	int at;

	for (at = 3; at < field && p != NULL; at++)
		if ((p = strchr(p, ' ')) != NULL)
			p++;
	return p;
}
