/*
 * group_canary.h - whether a signal record got was sent to its whole
 * process group (and so reached the program too): Note [The group's
 * canary] in group_canary.c.
 */
#ifndef CCPROF_CLI_GROUP_CANARY_H
#define CCPROF_CLI_GROUP_CANARY_H

#include <sys/types.h>

struct group_canary {
	pid_t pid;  /* 0: none (record then passes every signal on) */
	int ask;    /* record writes a byte: "take what is pending" */
	int answer; /* the canary writes one back when it has */
	char status_path[32];
	int asks_canary; /* /proc is not ours: the canary says what it has */
};

/* Start the canary, a child of record's in its process group; c->pid is
 * 0 if it could not be.  After the program's fork. */
void group_canary_start(struct group_canary *c);

/* Async-signal-safe: whether the canary has sig pending, that is whether
 * the signal record is handling went to the whole group; if so the
 * canary takes it, ready for the next. */
int group_canary_had(const struct group_canary *c, int sig);

/* End the canary and reap it. */
void group_canary_stop(struct group_canary *c);

#endif
