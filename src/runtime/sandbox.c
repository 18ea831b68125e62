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
 *
 * Writing the profile takes calls a sandboxed program seldom makes
 * (link, rename, unlink, readlink): a program that puts itself under a
 * filter (sshd's, vsftpd's, tor's: lists of what is allowed, death for
 * the rest) would die of SIGSYS as it exits.  So the image notes its
 * filters as it starts (rt_sandbox_start), and a write from a thread
 * that has more, or that can no longer read its status (a filter's
 * EACCES), is not made: one line on stderr says why.  Filters the image
 * started under (a systemd unit's, bwrap's) are the same for the whole
 * run and do not stop the write: a unit that lets a program run lets it
 * write files, as a rule, and a profile lost to each such unit would be
 * the worse default.  A fork child keeps its image's note, so a filter
 * installed before the fork counts as new in the child too.
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

/* The number after "\nNAME:" in the status text, or -1 without that line. */
static long status_field(const char *text, const char *name)
{
	size_t len = strlen(name);
	const char *p = text;
	long v = 0;

	for (; (p = strstr(p, name)) != NULL; p += len)
		if ((p == text || p[-1] == '\n') && p[len] == ':')
			break;
	if (p == NULL)
		return -1;
	for (p += len + 1; *p == ' ' || *p == '\t'; p++)
		;
	for (; *p >= '0' && *p <= '9' && v < 1000000; p++)
		v = v * 10 + (*p - '0');
	return v;
}

/* The filters the calling thread runs under: Seccomp_filters (Linux 5.9
 * on), else 1 for mode 2 (filter) and 0 for mode 0, or for a kernel
 * without seccomp (neither line).  FILTERS_NO_PROC if there is no /proc
 * to say (ENOENT: a chroot, or none mounted), FILTERS_REFUSED if it
 * could not be read otherwise (a filter's EACCES, say). */
#define FILTERS_NO_PROC (-1)
#define FILTERS_REFUSED (-2)

static long thread_filters(void)
{
	char buf[STATUS_MAX + 1];
	int saved = errno, fd;
	long filters = FILTERS_REFUSED, mode;
	ssize_t n;

	fd = open("/proc/thread-self/status", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 && errno == ENOENT)
		filters = FILTERS_NO_PROC;
	if (fd >= 0) {
		n = read_all(fd, buf, STATUS_MAX);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			filters = status_field(buf, "Seccomp_filters");
			mode = status_field(buf, "Seccomp");
			if (filters < 0)
				filters = mode > 0 ? 1 : 0;
		}
	}
	errno = saved;
	return filters;
}

/* What the image had when it started: rt_sandbox_start. */
static long filters_at_start = FILTERS_NO_PROC;

int rt_thread_sandboxed(void)
{
	return thread_filters() != 0;
}

void rt_sandbox_start(void)
{
	filters_at_start = thread_filters();
}

int rt_sandboxed_since_start(void)
{
	long now;

	if (filters_at_start < 0)
		return 0; /* nothing to go by: write as ever */
	now = thread_filters();
	return now == FILTERS_REFUSED || now > filters_at_start;
}
