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
 * filtered.  It looks where no other thread can be opening files (the
 * constructor, a fork child), for the open takes the lowest free
 * descriptor for a moment (Note [CPU time where it ran] in sampler.c):
 * a restart after unshare, setns or an exec counts as filtered without
 * looking (with a thread looping unshare and another reopening fd 0, the
 * look cost 5,540 misses in 200,000; helper-126).  A filter installed
 * after the helper started does not reach it, unless installed for all
 * threads (SECCOMP_FILTER_FLAG_TSYNC); the helper's own calls after its
 * start are the ones it cannot do without.
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
 * the worse default.  At exit this is the first thing asked, before
 * any other call of ours: file(1)'s filter kills the thread, not the
 * process, at a call it does not list, and the exit's gettid killed the
 * main thread and left the sampler alone, for ever (helper-125); a call
 * the program's own code makes against its filter does the same, which
 * Note [A leader that died alone] in lastthread.c sees to.  A
 * fork child keeps its image's note, so a filter installed before the
 * fork counts as new in the child too.  A process
 * that had /proc at its start and has none at the write has chrooted,
 * which sandboxing daemons do before they install their filter (vsftpd,
 * sshd's privileged separation): it cannot tell, and does not write
 * either (a write in the chroot, to a path that means another file
 * there, was seldom wanted).  Before Linux 5.9 the status gives the
 * mode, not the count: a second filter on a filtered image goes unseen.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"

/* The value of a "NAME:\tNUMBER" line, or -1. */
static long line_value(const char *line, size_t len, const char *name)
{
	size_t n = strlen(name);
	long v = 0;

	if (len <= n || memcmp(line, name, n) != 0 || line[n] != ':')
		return -1;
	for (n++; n < len && (line[n] == ' ' || line[n] == '\t'); n++)
		;
	for (; n < len && line[n] >= '0' && line[n] <= '9' && v < 1000000; n++)
		v = v * 10 + (line[n] - '0');
	return v;
}

/* The filters the calling thread runs under: Seccomp_filters (Linux 5.9
 * on), else 1 for mode 2 (filter) and 0 for mode 0, or for a kernel
 * without seccomp (neither line).  Read line by line, as lines come: the
 * file has no bound, and "Groups:" comes first (a user in 2,000 groups
 * made it longer than any buffer we would keep on the stack; helper-126).
 * FILTERS_NO_PROC if there is no /proc to say (ENOENT: a chroot, or none
 * mounted), FILTERS_OTHER_PROC if the /proc there does not show us,
 * FILTERS_REFUSED if reading it was refused (EACCES, EPERM:
 * what a filter answers), FILTERS_UNKNOWN for anything else (no
 * descriptor left, say). */
#define FILTERS_NO_PROC (-1)
#define FILTERS_REFUSED (-2)
#define FILTERS_UNKNOWN (-3)
#define FILTERS_OTHER_PROC (-4) /* Note [Another namespace's /proc at the write] */

struct status_scan {
	char line[128]; /* the start of the current line: enough for ours */
	size_t len;
	int skipping; /* the rest of a longer line */
	long filters, mode;
};

static void scan_line(struct status_scan *s)
{
	long v;

	if ((v = line_value(s->line, s->len, "Seccomp_filters")) >= 0)
		s->filters = v;
	else if ((v = line_value(s->line, s->len, "Seccomp")) >= 0)
		s->mode = v;
}

static void scan(struct status_scan *s, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			if (!s->skipping)
				scan_line(s);
			s->len = 0;
			s->skipping = 0;
		} else if (s->len < sizeof s->line) {
			s->line[s->len++] = buf[i];
		} else {
			s->skipping = 1;
		}
	}
}

/* Whether a /proc is mounted, whether or not it shows us: its
 * sys/kernel is there in every PID namespace's.  By open, which the
 * caller just made: a filter may kill for statfs. */
static int proc_mounted(void)
{
	int fd = open("/proc/sys/kernel", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static long thread_filters(void)
{
	struct status_scan s = {.filters = -1, .mode = -1};
	char buf[512];
	int saved = errno, fd, e;
	long filters = FILTERS_UNKNOWN;
	ssize_t n;

	fd = open("/proc/thread-self/status", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		e = errno;
		filters = e == ENOENT ? (proc_mounted() ? FILTERS_OTHER_PROC : FILTERS_NO_PROC) :
			  e == EACCES || e == EPERM ? FILTERS_REFUSED : FILTERS_UNKNOWN;
	} else {
		while ((n = read(fd, buf, sizeof buf)) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				break;
			scan(&s, buf, (size_t)n);
		}
		close(fd);
		if (n == 0)
			filters = s.filters >= 0 ? s.filters : s.mode > 0 ? 1 : 0;
	}
	errno = saved;
	return filters;
}

/* What the image had when it started: rt_sandbox_start.  `fresh`: not
 * yet asked again, so the sampler's start in the same constructor takes
 * that answer rather than read the file twice. */
static long filters_at_start = FILTERS_NO_PROC;
static int fresh;

int rt_thread_sandboxed(void)
{
	int cancel, sandboxed;

	if (fresh) {
		fresh = 0;
		return filters_at_start != 0;
	}
	cancel = rt_nocancel_begin();
	sandboxed = thread_filters() != 0;
	rt_nocancel_end(cancel);
	return sandboxed;
}

void rt_sandbox_start(void)
{
	filters_at_start = thread_filters();
	fresh = 1;
}

/* Set in the process that makes the call, not in a vfork child, which
 * shares our memory but not its filters with us; a fork child keeps it,
 * with the filter.  A child that clone() made, with memory of its own,
 * sets it too (asked before its filter is in, so that kcmp is allowed):
 * else it went on to make the calls its own filter may kill for (the
 * kcmp of rt_own_memory, as an exec or a block table's lock asked it;
 * helper-194: 50 of 50 such children died by SIGSYS at their exec). */
static int installed;

void rt_sandbox_installing(void)
{
	if (rt_pid != 0 && (getpid() == rt_pid || rt_own_memory() == 1))
		__atomic_store_n(&installed, 1, __ATOMIC_RELAXED);
}

/* A filter the program installed since the image started. */
int rt_sandbox_added(void)
{
	return __atomic_load_n(&installed, __ATOMIC_RELAXED);
}

/* Under no filter as far as the runtime knows: none as the image
 * started (a process that could not tell counts as filtered), none the
 * program installed since. */
int rt_sandbox_none(void)
{
	return filters_at_start == 0 && !__atomic_load_n(&installed, __ATOMIC_RELAXED);
}

/*
 * Note [Another namespace's /proc at the write]: a program that makes a
 * PID and a mount namespace and has a child mount a /proc there
 * (`unshare --pid --mount-proc`, bwrap, a container runtime's first
 * process) finds at its write a /proc that does not show it: its own
 * status is not there, and it wrote nothing, taken for chrooted
 * (helper-196).  The /proc is there, only another namespace's: the
 * runtime trusts what it saw instead, the filters it started under and
 * those the program installed through prctl or syscall (seccomp.c), and
 * writes unless there are some.  Only a filter installed by a system
 * call of the program's own, not through libc, goes unseen there.
 */

/* One write(2) and nothing else: rt_warn's care for SIGPIPE takes calls
 * (sigpending, sigtimedwait) that file(1)'s filter kills the thread
 * for. */
static void say(const char *line)
{
	if (write(2, line, strlen(line)) < 0) {
		/* nothing to do: stderr is gone */
	}
}

/* open, read and write are cancellation points: a request pending as
 * the program exits must act where it would without us, not in here
 * (Note [Cancellation] in cancel.c; robust.py latecancel_exit). */
static int forbids_write(void);

int rt_sandbox_forbids_write(void)
{
	int cancel = rt_nocancel_begin(), forbids = forbids_write();

	rt_nocancel_end(cancel);
	return forbids;
}

static int forbids_write(void)
{
	long now;

	if (filters_at_start < 0)
		return 0; /* nothing to go by: write as ever */
	now = thread_filters();
	if (now == FILTERS_OTHER_PROC && !rt_sandbox_added())
		return 0; /* Note [Another namespace's /proc at the write] */
	if (now == FILTERS_NO_PROC) { /* /proc gone since: chrooted */
		say("ccprof: /proc is gone since the program started (a chroot): cannot tell whether "
		    "it put itself under a seccomp filter, which may kill it for the calls a write "
		    "makes; no profile written\n");
		return 1;
	}
	if (now == FILTERS_REFUSED || now == FILTERS_OTHER_PROC || now > filters_at_start) {
		say("ccprof: the program put itself under a seccomp filter, which may kill it for the "
		    "calls a write makes; no profile written\n");
		return 1;
	}
	return 0; /* FILTERS_UNKNOWN too: the write will say */
}
