/*
 * preexec.c - before a write, the profile already at its path: this
 * process's earlier image's, moved aside to PATH.pre-exec.N, another
 * process's of the run, moved aside to PATH.N, or anything else, left to
 * be replaced.
 *
 * Note [Pre-exec profile]: exec keeps the pid, so an image that writes
 * where the image before it wrote before its exec (exec.c) would replace
 * that profile.  Move the earlier one aside first, to PATH.pre-exec.N:
 * the last image's profile is at PATH, the earlier ones beside it.  Also
 * from a signal handler: an image that dies by SIGTERM (a shell's `exec
 * prog`, then prog killed) replaced the profile of the image before it.
 * So the earlier file's pid and start time are peeked at without
 * allocating (format/peek.c), and the rest is lstat, /proc and rename.
 *
 * Note [A reused pid]: the pid does not say the profile is this
 * process's.  Pids wrap round (pid_max), and in pid namespaces every
 * container's first child is pid 2: with the pid alone, a profile that
 * an earlier process wrote at OUT.<pid> was taken for this process's
 * image before an exec and named .pre-exec.N (coreutils' test suite made
 * 22,219 such names, some of them unrelated processes': helper-130).
 * This process's earlier image wrote its profile after the process
 * started; another process with the pid wrote its own before, since it
 * ended before the pid was ours.  So the file's mtime is compared with
 * the process's start: /proc/self/stat's starttime, in clock ticks
 * since boot, which exec keeps, made CLOCK_REALTIME by the difference of
 * the two clocks now.  The tick and the coarse clock mtimes come from
 * make it uncertain by START_SLACK_NS: a profile written less than that
 * before the process started is still taken for its own, as every one
 * with its pid is where /proc cannot be read.  Another process's profile
 * of this run moves aside to PATH.N, the first N free, so that both are
 * kept under names record knows (Note [The run's other profiles] in
 * src/cli/cmd_record.c); one of an earlier run, or without run_start=,
 * is replaced, as any earlier run's profile is (Note [One OUT per run]
 * in dump.c).  The run's OUT itself is not moved: claim_out gives the
 * later process OUT.<pid> instead.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/format.h"
#include "runtime.h"

/* A starttime tick (10 ms), the coarse clock of mtimes (a jiffy, up to
 * 10 ms) and the clocks read apart, with room to spare. */
#define START_SLACK_NS 30000000u

/* When this process started, in CLOCK_REALTIME ns, or 0 if /proc does
 * not say (Note [A reused pid]).  Digits by hand: from a signal handler. */
static uint64_t process_start_ns(void)
{
	char buf[1024];
	const char *third = rt_proc_stat_read("/proc/self/stat", buf, sizeof buf), *f;
	unsigned long hz = getauxval(AT_CLKTCK);
	uint64_t ticks = 0, since_boot, boot_now, real_now;

	if (!third || !(f = rt_proc_stat_field(third, 22)) || *f < '0' || *f > '9' || hz == 0)
		return 0;
	for (; *f >= '0' && *f <= '9'; f++)
		ticks = ticks * 10 + (uint64_t)(*f - '0');
	since_boot = ticks * (1000000000u / hz);
	boot_now = rt_now_ns(CLOCK_BOOTTIME);
	real_now = rt_now_ns(CLOCK_REALTIME);
	if (since_boot > boot_now || boot_now - since_boot > real_now)
		return 0;
	return real_now - (boot_now - since_boot);
}

/* Whether the profile at fd, which has this process's pid and started
 * before this image, is this process's: written after it started. */
static int written_by_this_process(int fd)
{
	struct stat st;
	uint64_t mtime, started = process_start_ns();

	if (started == 0 || fstat(fd, &st) != 0)
		return 1;
	mtime = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
	return mtime + START_SLACK_NS >= started;
}

/* path renamed to path + suffix + the first number free from 1. */
static void move_aside(const char *path, const char *suffix)
{
	char aside[4096 + 128];
	struct stat st;
	int i;

	for (i = 1; i < 1000; i++) {
		if (snprintf(aside, sizeof aside, "%s%s%d", path, suffix, i) >= (int)sizeof aside)
			return;
		if (lstat(aside, &st) != 0) {
			rename(path, aside);
			return;
		}
	}
}

/* Whether a profile of process pid that started at `started` is another
 * process's of this run (Note [One OUT per run] in dump.c): not this
 * image's own (in pid namespaces every process of a run may be pid 1),
 * started since record's run began. */
int rt_other_of_this_run(uint64_t pid, uint64_t started, uint64_t image_start_ns)
{
	return rt_config.run_start_ns != 0 && started >= rt_config.run_start_ns &&
	       !(pid == (uint64_t)getpid() && started == image_start_ns);
}

/* Before this image (started at image_start_ns) writes path; others:
 * whether another process's profile of this run may be moved aside (not
 * at the run's OUT). */
void rt_keep_earlier_profile(const char *path, uint64_t image_start_ns, int others)
{
	uint64_t pid, started;
	struct stat st;
	int fd, peeked, ours = 0, this_run;

	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return;
	peeked = ccp_format_peek_pid(fd, &pid, &started) == 0;
	/* Started before this image: a profile the image wrote itself, with
	 * ccprof_dump, has its start time, and is replaced. */
	if (peeked && pid == (uint64_t)getpid() && started < image_start_ns)
		ours = written_by_this_process(fd);
	close(fd);
	this_run = peeked && rt_other_of_this_run(pid, started, image_start_ns);
	if (ours)
		move_aside(path, ".pre-exec.");
	else if (others && this_run)
		move_aside(path, ".");
}
