/*
 * procfs.h - whether /proc numbers processes as getpid does.
 *
 * Note [A /proc of another PID namespace]: /proc shows the PID namespace
 * it was mounted in.  In a process of a namespace made without a /proc
 * of its own (`unshare --pid --fork`, a container that bind-mounts the
 * host's), /proc/self is this process under its outer number, while
 * getpid, gettid and fork give the inner ones: /proc/<fork's pid> names
 * another process, or none.  ccprof record's canary read a stranger's
 * pending signals and passed a group's signal on a second time, and the
 * runtime's helper never found its own leader's file (helper-196).  So
 * whoever reads /proc by a number asks first whether /proc's numbers are
 * ours, and does without it when they are not.  libc only, no
 * allocation, async-signal-safe (the runtime links it too).
 */
#ifndef CCPROF_PROCFS_H
#define CCPROF_PROCFS_H

/* 1 if /proc/self is getpid()'s number, else 0 (another namespace's
 * /proc, or none). */
int ccp_proc_numbers_ours(void);

#endif
