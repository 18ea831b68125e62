/*
 * group_canary.c - a process in record's group that tells record whether
 * a signal went to the whole group.
 *
 * Note [The group's canary]: record passes on to the program the signals
 * sent to it (Note [Signals while the program runs] in cmd_record.c), but
 * a signal sent to the whole process group (kill -INT -PGID from a
 * supervisor or a CI runner, timeout(1)'s kill of its group, a shell's
 * SIGHUP to its jobs) reached the program already.  Passed on, it came
 * twice, and a program that cleans up in its handler lost the cleanup:
 * GNU make, interrupted, had set SIGINT back to its default before it
 * deleted its intermediate files, and the second SIGINT ended it first
 * (helper-107).  The signal's siginfo does not say whether it was sent to
 * the group or to record alone: both are SI_USER from the same pid.
 *
 * So record starts a canary, a child of its own, in its process group,
 * that blocks every signal (at default dispositions: an ignored signal
 * is discarded, a blocked one stays pending) and waits on a pipe.  A
 * signal sent to the group is pending in the canary by the time record's
 * handler runs: the kernel signals a group's members newest first (each
 * process is added at the head of its group's list), and the canary is
 * younger than record.  It is started before the program: started
 * after, it missed a group's signal sent once the program was up but
 * before record, descheduled after the program's fork, had made it,
 * and record passed that signal on (once in a clang make check).  So record's handler reads the canary's pending
 * signals from /proc/PID/status: if the signal is there, the program had
 * it too, and record asks the canary to take it (so that the next one sent
 * to record alone is told apart) and passes nothing on.
 * Where /proc numbers processes otherwise than fork does (Note [A /proc
 * of another PID namespace] in src/common/procfs.h) the canary is asked
 * instead, over its pipe, and answers from sigpending: a round trip
 * through the scheduler, so not where /proc can be read at once.
 * Without a canary (fork failed), record passes every signal on, as
 * before.  The canary holds no file of record's, never runs the
 * program's code and dies with record (PR_SET_PDEATHSIG) or when record
 * is done with it.
 */
#include "cli/group_canary.h"
#include "common/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* All of record's files closed but the two pipe ends the canary keeps
 * (a pipe record writes to must see its end when record ends). */
static void close_all_but(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	if ((lo == 0 || close_range(0, (unsigned)lo - 1, 0) == 0) &&
	    (hi == lo + 1 || close_range((unsigned)lo + 1, (unsigned)hi - 1, 0) == 0) &&
	    close_range((unsigned)hi + 1, ~0u, 0) == 0)
		return;
	for (int fd = 0; fd < 4096; fd++) /* a kernel before 5.9 */
		if (fd != a && fd != b)
			close(fd);
}

/* A question byte: ASKED | sig, "have you sig pending?"; answered by sig
 * (taken) or 0.  A plain sig byte: "take sig", answered by sig. */
#define ASKED 0x80

/* The canary: every signal blocked at its default, pending until record
 * asks for it to be taken: that one alone (its number the byte asked),
 * so that another sent to the group meanwhile, which record has yet to
 * handle, stays to be seen. */
static void canary_main(int ask, int answer, pid_t record)
{
	const struct timespec now = {0, 0};
	sigset_t all, one, pending;
	unsigned char b;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL); /* SIGKILL's, SIGSTOP's and glibc's own fail: no matter */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != record)
		_exit(0);
	prctl(PR_SET_NAME, "ccprof-canary");
	close_all_but(ask, answer);
	while (read(ask, &b, 1) == 1) {
		int sig = b & ~ASKED;

		if ((b & ASKED) && (sigpending(&pending) != 0 || sigismember(&pending, sig) != 1))
			sig = 0;
		if (sig > 0) {
			sigemptyset(&one);
			sigaddset(&one, sig);
			while (sigtimedwait(&one, NULL, &now) > 0)
				;
		}
		b = (unsigned char)sig;
		if (write(answer, &b, 1) != 1)
			break;
	}
	_exit(0);
}

void group_canary_start(struct group_canary *c)
{
	int ask[2], answer[2];
	pid_t record = getpid();

	c->pid = 0;
	if (pipe2(ask, O_CLOEXEC) != 0)
		return;
	if (pipe2(answer, O_CLOEXEC | O_NONBLOCK) != 0) {
		close(ask[0]);
		close(ask[1]);
		return;
	}
	pid_t pid = fork();
	if (pid == 0)
		canary_main(ask[0], answer[1], record);
	close(ask[0]);
	close(answer[1]);
	if (pid < 0) {
		close(ask[1]);
		close(answer[0]);
		return;
	}
	c->pid = pid;
	c->ask = ask[1];
	c->answer = answer[0];
	snprintf(c->status_path, sizeof c->status_path, "/proc/%d/status", (int)pid);
	c->asks_canary = !ccp_proc_numbers_ours();
}

/* The 64-bit hexadecimal mask after "\nNAME:\t" in status, or 0. */
static uint64_t status_mask(const char *status, const char *name)
{
	size_t n = strlen(name);
	uint64_t mask = 0;

	for (const char *p = status; (p = strchr(p, '\n')) != NULL;) {
		p++;
		if (strncmp(p, name, n) != 0)
			continue;
		for (p += n; *p == ':' || *p == '\t' || *p == ' '; p++)
			;
		for (;; p++) {
			int d = *p >= '0' && *p <= '9' ? *p - '0'
				: *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
			if (d < 0)
				return mask;
			mask = mask << 4 | (uint64_t)d;
		}
	}
	return 0;
}

/* The canary's pending signals, thread-directed and process-wide. */
static uint64_t canary_pending(const struct group_canary *c)
{
	char status[4096];
	ssize_t n, got = 0;
	int fd = open(c->status_path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	status[0] = '\n'; /* so that the first line is found as the others */
	while (got < (ssize_t)sizeof status - 2 &&
	       (n = read(fd, status + 1 + got, sizeof status - 2 - (size_t)got)) > 0)
		got += n;
	close(fd);
	status[1 + got] = '\0';
	return status_mask(status, "SigPnd") | status_mask(status, "ShdPnd");
}

static int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Byte b to the canary, and its answer, waited for up to 200 ms (a
 * stopped canary answers when it is continued: a late answer is read and
 * dropped before the next question); -1 for none.  The wait goes on
 * through a signal's interruption: record as a namespace's init wakes at
 * each child's end (Note [record as a namespace's init] in
 * cmd_record.c), and an orphan's end took the answer for none, and the
 * group's signal was passed on a second time (helper-199). */
static int canary_round_trip(const struct group_canary *c, unsigned char b)
{
	struct pollfd p = {.fd = c->answer, .events = POLLIN};
	char late[16];
	int64_t end = now_ms() + 200;
	int ready = -1;

	while (read(c->answer, late, sizeof late) > 0)
		;
	if (write(c->ask, &b, 1) != 1)
		return -1;
	for (int64_t left = 200; left >= 0; left = end - now_ms())
		if ((ready = poll(&p, 1, (int)left)) >= 0 || errno != EINTR)
			break;
	if (ready > 0 && read(c->answer, &b, 1) == 1)
		return b;
	return -1;
}

int group_canary_had(const struct group_canary *c, int sig)
{
	if (c->pid <= 0 || sig < 1 || sig > 64)
		return 0;
	if (c->asks_canary)
		return canary_round_trip(c, (unsigned char)(ASKED | sig)) == sig;
	if (!(canary_pending(c) >> (sig - 1) & 1))
		return 0;
	(void)canary_round_trip(c, (unsigned char)sig); /* the canary takes it */
	return 1;
}

void group_canary_stop(struct group_canary *c)
{
	if (c->pid <= 0)
		return;
	kill(c->pid, SIGKILL); /* at once, stopped or not */
	while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
		;
	close(c->ask);
	close(c->answer);
	c->pid = 0;
}
