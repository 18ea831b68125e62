/*
 * sandbox.c - whether the calling thread runs under a seccomp filter.
 *
 * Note [Sandboxed]: a filter decides about every system call of the
 * thread that installed it and of the threads and processes that thread
 * makes after, ours included, and the usual verdict for a call it does
 * not list is death by SIGSYS.  So a profiled program could die of a
 * call it never makes itself: a systemd unit with
 * SystemCallFilter=~@resources (the advice of `systemd-analyze
 * security`) is killed when the sampling helper asks for its slice
 * (sched_setattr, Note [The sampler's slice] in sampler.c), and a filter
 * that lists prctl by its options when the helper sets its timer slack
 * or its name.  The kernel says whether a thread has a filter, not what
 * the filter allows, so under any filter the helper makes only the
 * calls sampling cannot do without.  The thread that starts the helper
 * looks, because the helper inherits its filters: that thread's, not the
 * process leader's (/proc/thread-self, not /proc/self).  A thread that
 * cannot tell (no /proc, or a filter that refused the open) counts as
 * filtered.  A filter installed after the helper started does not reach
 * it, unless installed for all threads (SECCOMP_FILTER_FLAG_TSYNC); the
 * helper's own calls after its start are the ones it cannot do without.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"

/* The status file of a thread is about 1.5 KB; "Seccomp:" is past its
 * middle. */
#define STATUS_MAX 8192

static ssize_t read_all(int fd, char *buf, size_t size)
{
	size_t got = 0;
	ssize_t n;

	while (got < size && (n = read(fd, buf + got, size - got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* 1 if the status text says the thread has a filter, 0 if it says it
 * has none or is from a kernel without seccomp (no such line). */
static int status_says_filtered(const char *text)
{
	const char *line = strstr(text, "\nSeccomp:");
	const char *p;

	if (line == NULL)
		return 0;
	for (p = line + strlen("\nSeccomp:"); *p == ' ' || *p == '\t'; p++)
		;
	return *p != '0';
}

int rt_thread_sandboxed(void)
{
	char buf[STATUS_MAX + 1];
	int saved = errno, fd, filtered = 1;
	ssize_t n;

	fd = open("/proc/thread-self/status", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd >= 0) {
		n = read_all(fd, buf, STATUS_MAX);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			filtered = status_says_filtered(buf);
		}
	}
	errno = saved;
	return filtered;
}
