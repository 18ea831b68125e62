/*
 * ownpgrp.c - a program that moves into a process group of its own, as a
 * job-control shell (bash -i) does, for tests/robust.py own_group (Note
 * [A program in a group of its own] in src/cli/cmd_record.c).
 *
 *   ownpgrp group   moves, starts a child in its new group, prints
 *                   "ready", then each waits up to 3 s in waits() and
 *                   prints "not terminated" or "child not terminated": a
 *                   signal sent to the group it was started in, or the
 *                   terminal's Ctrl-C, must still end both, as bare, where
 *                   the move changed nothing.
 *   ownpgrp stop    moves and takes the terminal (SIGTTOU blocked, as
 *                   bash does), stops itself by SIGSTOP (bash's
 *                   `suspend`), and once continued prints "foreground" if
 *                   its group holds the terminal again, else
 *                   "background".
 *   ownpgrp stopgroup   moves, starts a child in its new group, prints
 *                   "ready PGID", and stops the group by SIGTSTP; once
 *                   continued, the child prints "child continued" and
 *                   ends, and then the parent "continued": a SIGCONT to
 *                   the group it was started in (fg, bg) must continue
 *                   both, as bare.
 *   ownpgrp tstp [move]   (moves into a group of its own with "move"),
 *                   prints "ready", then naps 10 ms at a time for 3 s and
 *                   prints "stopped" if one nap lasted 1 s or more (it was
 *                   stopped meanwhile), else "never stopped": a SIGTSTP
 *                   sent to record alone, or the terminal's Ctrl-Z, must
 *                   stop it as bare.
 *   ownpgrp conts   counts its SIGCONTs, prints "ready", naps for 3 s and
 *                   prints "CONT N": a Ctrl-Z and fg must give it one.
 *   ownpgrp restop  prints "ready", naps until it was stopped (a nap of
 *                   1 s or more), then stops itself by SIGTSTP at once,
 *                   and prints "after second stop": the job must be seen
 *                   stopped twice.
 *   ownpgrp stale   moves, starts a child that stops itself after 0.2 s,
 *                   prints "ready", stops itself by SIGSTOP 1 s later,
 *                   and once continued prints "child state S" from
 *                   /proc: a SIGCONT to record alone must continue the
 *                   program alone, whatever group SIGCONT came before.
 *   ownpgrp count   stays in its group, counts its SIGINTs, prints
 *                   "ready", and once it has had two (or after 5 s)
 *                   prints "INT N": the terminal's Ctrl-C, then a kill
 *                   of record alone, must each reach it once.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static void waits(void)
{
	struct timespec t = {0, 100000000};

	for (int i = 0; i < 30; i++)
		nanosleep(&t, NULL);
}

__attribute__((noinline)) static int suspend_and_look(void)
{
	sigset_t ttou;

	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, NULL);
	if (tcsetpgrp(STDIN_FILENO, getpgrp()) != 0) {
		perror("ownpgrp: tcsetpgrp");
		return 2;
	}
	kill(getpid(), SIGSTOP);
	printf("%s\n", tcgetpgrp(STDIN_FILENO) == getpgrp() ? "foreground" : "background");
	return 0;
}

static volatile sig_atomic_t ints;

static void on_int(int sig)
{
	(void)sig;
	ints++;
}

__attribute__((noinline)) static int count_ints(void)
{
	struct timespec t = {0, 10000000};

	signal(SIGINT, on_int);
	printf("ready\n");
	fflush(stdout);
	for (int i = 0; i < 500 && ints < 2; i++)
		nanosleep(&t, NULL);
	printf("INT %d\n", (int)ints);
	return 0;
}

__attribute__((noinline)) static int group_of_two(void)
{
	pid_t child = fork();

	if (child < 0) {
		perror("ownpgrp: fork");
		return 2;
	}
	if (child == 0) {
		waits();
		printf("child not terminated\n");
		return 0;
	}
	printf("ready\n");
	fflush(stdout);
	waits();
	printf("not terminated\n");
	fflush(stdout);
	waitpid(child, NULL, 0);
	return 0;
}

__attribute__((noinline)) static int stop_group_of_two(void)
{
	pid_t child = fork();

	if (child < 0) {
		perror("ownpgrp: fork");
		return 2;
	}
	if (child == 0) {
		raise(SIGSTOP); /* stopped before the group is, so never left running */
		printf("child continued\n");
		return 0;
	}
	waitpid(child, NULL, WUNTRACED);
	printf("ready %d\n", (int)getpgrp());
	fflush(stdout);
	killpg(getpgrp(), SIGTSTP);
	waitpid(child, NULL, 0);
	printf("continued\n");
	return 0;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

__attribute__((noinline)) static int naps_until_stopped(void)
{
	struct timespec nap = {0, 10000000};
	double start = now_s(), last = start, longest = 0;

	printf("ready\n");
	fflush(stdout);
	while (last - start < 3) {
		nanosleep(&nap, NULL);
		double t = now_s();
		if (t - last > longest)
			longest = t - last;
		last = t;
	}
	printf("%s\n", longest >= 1 ? "stopped" : "never stopped");
	return 0;
}

static volatile sig_atomic_t conts;

static void on_cont(int sig)
{
	(void)sig;
	conts++;
}

__attribute__((noinline)) static int count_conts(void)
{
	struct timespec nap = {0, 10000000};
	double start = now_s();

	signal(SIGCONT, on_cont);
	printf("ready\n");
	fflush(stdout);
	while (now_s() - start < 3)
		nanosleep(&nap, NULL);
	printf("CONT %d\n", (int)conts);
	return 0;
}

__attribute__((noinline)) static int stop_again(void)
{
	struct timespec nap = {0, 10000000};
	double start = now_s(), last = start;

	printf("ready\n");
	fflush(stdout);
	while (now_s() - last < 1 && now_s() - start < 10) {
		last = now_s();
		nanosleep(&nap, NULL);
	}
	raise(SIGTSTP);
	printf("after second stop\n");
	return 0;
}

static char state_of(pid_t pid)
{
	char path[64], buf[512];
	FILE *f;
	size_t n;
	char *paren;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return '?';
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' ? paren[2] : '?';
}

__attribute__((noinline)) static int stale_cont(void)
{
	struct timespec pause = {0, 200000000}, rest = {1, 0};
	pid_t child = fork();

	if (child < 0) {
		perror("ownpgrp: fork");
		return 2;
	}
	if (child == 0) {
		nanosleep(&pause, NULL);
		raise(SIGSTOP);
		_exit(0);
	}
	printf("ready\n");
	fflush(stdout);
	waitpid(child, NULL, WUNTRACED);
	nanosleep(&rest, NULL);
	raise(SIGSTOP);
	nanosleep(&pause, NULL);
	printf("child state %c\n", state_of(child));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "group") != 0 && strcmp(argv[1], "stop") != 0 &&
			 strcmp(argv[1], "stopgroup") != 0 && strcmp(argv[1], "count") != 0 &&
			 strcmp(argv[1], "tstp") != 0 && strcmp(argv[1], "conts") != 0 &&
			 strcmp(argv[1], "restop") != 0 && strcmp(argv[1], "stale") != 0)) {
		fprintf(stderr, "usage: ownpgrp group|stop|stopgroup|count|tstp [move]|conts|restop|"
				"stale\n");
		return 2;
	}
	if (strcmp(argv[1], "count") == 0)
		return count_ints();
	if (strcmp(argv[1], "conts") == 0)
		return count_conts();
	if (strcmp(argv[1], "restop") == 0)
		return stop_again();
	if (strcmp(argv[1], "tstp") == 0) {
		if (argc > 2 && strcmp(argv[2], "move") == 0 && setpgid(0, 0) != 0) {
			perror("ownpgrp: setpgid");
			return 2;
		}
		return naps_until_stopped();
	}
	if (setpgid(0, 0) != 0) {
		perror("ownpgrp: setpgid");
		return 2;
	}
	if (strcmp(argv[1], "stop") == 0)
		return suspend_and_look();
	if (strcmp(argv[1], "stopgroup") == 0)
		return stop_group_of_two();
	if (strcmp(argv[1], "stale") == 0)
		return stale_cont();
	return group_of_two();
}
