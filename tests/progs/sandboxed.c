/*
 * sandboxed.c - a program under a seccomp filter that kills the process
 * at any sched_getattr, sched_setattr or prctl, system calls it never
 * makes itself (Note [Sandboxed] in src/runtime/sandbox.c), as a systemd
 * unit with SystemCallFilter=~@resources does for the first two.
 *
 *   sandboxed fork   installs the filter, forks a child that works and
 *                    exits with 3; prints how the child ended, then works
 *   sandboxed exec   installs the filter and execs itself as `image`,
 *                    which starts the runtime anew under it
 *   sandboxed execraw as exec, but the image's main ends by the exit
 *                    system call itself, with status 3 (Note [A leader
 *                    that died alone])
 *   sandboxed late   works, then puts itself under a filter that kills at
 *                    link, rename and unlink in all their forms (a sandbox
 *                    that lets nothing change in the file system), works
 *                    again and returns: writing a profile then would die
 *   sandboxed groups (root) joins 3,000 supplementary groups, which makes
 *                    /proc/thread-self/status longer than 8 KB, then as
 *                    exec, which prints "image worked"
 *   sandboxed strict works, then puts itself under a list of allowed
 *                    calls, the thread killed at any other (as file(1)'s
 *                    sandbox): those of the exit and of stdio, and open
 *                    and read; works again and returns
 *   sandboxed violate as strict, but then breaks its own sandbox (getppid,
 *                    not listed): its only thread is killed, and so is
 *                    the process, by SIGSYS
 *   sandboxed term   as strict, then prints "filtered" and waits in a read
 *                    of standard input to be killed: by the signal it is
 *                    sent, as without ccprof, not by SIGSYS (Note
 *                    [Handlers under a filter] in src/runtime/seccomp.c);
 *                    "term libseccomp" installs the same filter the way
 *                    libseccomp does when the seccomp call is missing,
 *                    by prctl(PR_SET_SECCOMP)
 *   sandboxed worker prctl|getrusage
 *                    a thread names itself "sealed", works and puts
 *                    itself alone (no other thread) under a filter that
 *                    kills the process at that call (and sched_* and
 *                    sigaltstack), and
 *                    then: with getrusage, names itself "self-renamed" by
 *                    prctl(PR_SET_NAME); with prctl, main names it
 *                    "renamed" (pthread_setname_np, a write to its /proc
 *                    comm); then works again and ends.  A second thread,
 *                    "bystander", works first (main waits for that
 *                    before it starts the worker: a loaded machine ran
 *                    the worker's seal first now and then, and the
 *                    bystander's state, made after it, asked no name),
 *                    under no filter, and ends once the worker is sealed.  main joins both, prints
 *                    "worker worked 3" and returns 0, and writes the
 *                    profile: the worker must make none of these calls
 *                    as it ends, and the bystander keeps the name it has
 *                    (Note [Calls as a thread ends] in
 *                    src/runtime/threads.c)
 *   sandboxed deep   works, puts itself under a filter that kills the
 *                    process at getrlimit and prlimit64 (calls a sandbox's
 *                    list of allowed calls leaves out, sshd's for one),
 *                    then dives 70,000 calls deep, past the shadow stack's
 *                    first segment (Note [Segment pool] in
 *                    src/runtime/shadow.c), and prints "dive 70001"
 *   sandboxed initfork  (run as PID 1 of a namespace) puts itself under a
 *                    filter that kills the process at tgkill, forks a
 *                    child that waits, sends it SIGTERM and prints "child
 *                    killed by signal N": 15 as bare, not the filter's
 *                    SIGSYS (Note [A namespace's init] in
 *                    src/runtime/signals.c)
 *   sandboxed clock  works, puts itself and every thread (TSYNC) under a
 *                    filter that kills the process at clock_gettime (the
 *                    monotonic clock's reads need none: the vDSO answers
 *                    them), then for
 *                    100 ms allocates and frees in allocates() and prints
 *                    "allocated 100": under heap=1, a heap sample's
 *                    measure of its own cost read the thread's CPU clock,
 *                    a system call (helper-191: the process died by SIGSYS
 *                    under clock=wall and cycles)
 *   sandboxed jail   (root) works, chroots into the current directory,
 *                    which has no /proc, then as late: vsftpd's and sshd's
 *                    order
 *
 * Without a profiler: "child exited 3" and "worked 2" for fork, "image
 * worked" for exec, "worked 2" for late; exit status 0.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <pthread.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SECCOMP_RET_KILL_THREAD
#define SECCOMP_RET_KILL_THREAD 0x00000000U
#endif
#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000U
#endif

static volatile unsigned long sink;
static int worked;

__attribute__((noinline)) static void work(void)
{
	for (unsigned long i = 0; i < 20000000; i++)
		sink += i;
	worked++;
}

/* A filter: `listed` for the n calls in nrs[], `otherwise` for the rest. */
static int by_prctl; /* install with prctl(PR_SET_SECCOMP), not seccomp(2) */
static unsigned filter_flags; /* seccomp(2)'s: TSYNC puts every thread under it */

static void filter(const long *nrs, unsigned n, unsigned listed, unsigned otherwise)
{
	struct sock_filter code[2 + 2 * 32];
	struct sock_fprog prog;
	unsigned k = 0;

	code[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, nr));
	for (unsigned i = 0; i < n && i < 32; i++) {
		code[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nrs[i], 0, 1);
		code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, listed);
	}
	code[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, otherwise);
	prog.len = (unsigned short)k;
	prog.filter = code;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) != 0 ||
	    (by_prctl ? prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0L, 0L)
		      : syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, filter_flags, &prog)) != 0) {
		perror("sandboxed: seccomp");
		exit(1);
	}
}

#define COUNT(a) (unsigned)(sizeof(a) / sizeof(a)[0])

static void install_filter(void)
{
	static const long nrs[] = {SYS_sched_getattr, SYS_sched_setattr, SYS_prctl};

	filter(nrs, COUNT(nrs), SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_ALLOW);
}

static void forbid_changes(void)
{
	static const long nrs[] = {SYS_link,   SYS_linkat,    SYS_rename, SYS_renameat,
				   SYS_renameat2, SYS_unlink, SYS_unlinkat};

	filter(nrs, COUNT(nrs), SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_ALLOW);
}

/* file(1)'s kind: what the exit and stdio need, open and read. */
static void allow_only_few(void)
{
	static const long nrs[] = {
		SYS_read,  SYS_write,  SYS_openat, SYS_close,	  SYS_fstat,	     SYS_newfstatat,
		SYS_lseek, SYS_brk,    SYS_mmap,   SYS_munmap,	  SYS_madvise,	     SYS_futex,
		SYS_getpid, SYS_rt_sigprocmask, SYS_exit, SYS_exit_group, SYS_getrandom};

	filter(nrs, COUNT(nrs), SECCOMP_RET_ALLOW, SECCOMP_RET_KILL_THREAD);
}

__attribute__((noinline)) static void allocates(void)
{
	struct timespec ms = {0, 1000000};

	for (int i = 0; i < 64; i++)
		free((void *)(sink = (unsigned long)malloc(32 + i)));
	nanosleep(&ms, NULL);
}

static int clock_filtered(void)
{
	static const long nrs[] = {SYS_clock_gettime};
	int n;

	filter_flags = SECCOMP_FILTER_FLAG_TSYNC; /* the runtime's sampler too */
	filter(nrs, COUNT(nrs), SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_ALLOW);
	for (n = 0; n < 100; n++)
		allocates();
	printf("allocated %d\n", n);
	return 0;
}

static unsigned long dives;

__attribute__((noinline)) static void dive(int depth)
{
	dives++;
	if (depth > 0)
		dive(depth - 1);
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

static int deep(void)
{
	static const long nrs[] = {SYS_getrlimit, SYS_prlimit64};

	filter(nrs, COUNT(nrs), SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_ALLOW);
	dive(70000);
	printf("dive %lu\n", dives);
	return 0;
}

/* sandboxed worker: its two steps, each told through a pipe; the
 * bystander's end, told through a third. */
static int to_main[2], to_worker[2], to_bystander[2];
static int worker_by_prctl;

static void *bystander(void *arg)
{
	char c;

	(void)arg;
	work();
	if (write(to_main[1], "b", 1) != 1 || read(to_bystander[0], &c, 1) != 1)
		return NULL;
	return NULL;
}

static void *worker(void *arg)
{
	static const long by_prctl_nrs[] = {SYS_sched_getattr, SYS_sched_setattr, SYS_prctl,
					    SYS_sigaltstack};
	static const long by_rusage_nrs[] = {SYS_sched_getattr, SYS_sched_setattr, SYS_getrusage,
					     SYS_sigaltstack};
	char c = 0;

	(void)arg;
	pthread_setname_np(pthread_self(), "sealed");
	work();
	if (worker_by_prctl)
		filter(by_prctl_nrs, COUNT(by_prctl_nrs), SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_ALLOW);
	else
		filter(by_rusage_nrs, COUNT(by_rusage_nrs), SECCOMP_RET_KILL_PROCESS,
		       SECCOMP_RET_ALLOW);
	if (!worker_by_prctl)
		prctl(PR_SET_NAME, "self-renamed", 0L, 0L, 0L);
	if (write(to_main[1], &c, 1) != 1 || read(to_worker[0], &c, 1) != 1)
		return NULL;
	work();
	return NULL;
}

static int sealed_worker(const char *how)
{
	pthread_t t, b;
	char c = 0;

	worker_by_prctl = strcmp(how, "prctl") == 0;
	if (pipe(to_main) != 0 || pipe(to_worker) != 0 || pipe(to_bystander) != 0 ||
	    pthread_create(&b, NULL, bystander, NULL) != 0)
		return perror("sandboxed: bystander"), 1;
	if (read(to_main[0], &c, 1) != 1) /* the bystander has worked */
		return 1;
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return perror("sandboxed: worker"), 1;
	if (read(to_main[0], &c, 1) != 1) /* the worker is sealed */
		return 1;
	if (worker_by_prctl && pthread_setname_np(t, "renamed") != 0)
		return perror("sandboxed: pthread_setname_np"), 1;
	if (write(to_bystander[1], &c, 1) != 1)
		return 1;
	pthread_join(b, NULL);
	if (write(to_worker[1], &c, 1) != 1)
		return 1;
	pthread_join(t, NULL);
	printf("worker worked %d\n", worked);
	return 0;
}

static void join_many_groups(void)
{
	static gid_t gids[3000];

	for (int i = 0; i < 3000; i++)
		gids[i] = (gid_t)(1000000000u + (unsigned)i);
	if (setgroups(3000, gids) != 0) {
		perror("sandboxed: setgroups");
		exit(1);
	}
}

static int forked(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return perror("fork"), 1;
	if (pid == 0) {
		work();
		exit(3);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return perror("waitpid"), 1;
	if (WIFEXITED(status))
		printf("child exited %d\n", WEXITSTATUS(status));
	else
		printf("child killed by signal %d\n", WTERMSIG(status));
	work();
	printf("worked %d\n", worked);
	return 0;
}

static int init_forks(void)
{
	static const long nrs[] = {SYS_tgkill};
	struct timespec settle = {0, 200000000};
	int status;
	pid_t pid;

	filter(nrs, COUNT(nrs), SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_ALLOW);
	if ((pid = fork()) < 0)
		return perror("fork"), 1;
	if (pid == 0) {
		for (;;)
			pause();
	}
	nanosleep(&settle, NULL);
	kill(pid, SIGTERM);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return perror("waitpid"), 1;
	if (WIFSIGNALED(status))
		printf("child killed by signal %d\n", WTERMSIG(status));
	else
		printf("child exited %d\n", WEXITSTATUS(status));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && (strcmp(argv[1], "image") == 0 || strcmp(argv[1], "imageraw") == 0)) {
		work();
		printf("image worked\n");
		if (strcmp(argv[1], "imageraw") == 0) {
			fflush(stdout);
			syscall(SYS_exit, 3);
		}
		return 0;
	}
	if (argc < 2 || (strcmp(argv[1], "fork") != 0 && strcmp(argv[1], "exec") != 0 &&
			 strcmp(argv[1], "late") != 0 && strcmp(argv[1], "groups") != 0 &&
			 strcmp(argv[1], "jail") != 0 && strcmp(argv[1], "strict") != 0 &&
			 strcmp(argv[1], "violate") != 0 && strcmp(argv[1], "execraw") != 0 &&
			 strcmp(argv[1], "term") != 0 && strcmp(argv[1], "worker") != 0 &&
			 strcmp(argv[1], "deep") != 0 && strcmp(argv[1], "clock") != 0 &&
			 strcmp(argv[1], "initfork") != 0)) {
		fprintf(stderr, "usage: sandboxed "
				"fork|exec|execraw|late|groups|jail|strict|violate|term|worker|deep|"
				"clock|initfork\n");
		return 2;
	}
	if (strcmp(argv[1], "worker") == 0)
		return sealed_worker(argc > 2 ? argv[2] : "prctl");
	if (strcmp(argv[1], "term") == 0) {
		char c;

		by_prctl = argc > 2 && strcmp(argv[2], "libseccomp") == 0;
		work();
		allow_only_few();
		printf("filtered\n");
		fflush(stdout);
		while (read(0, &c, 1) != 0)
			;
		return 0;
	}
	work();
	if (strcmp(argv[1], "initfork") == 0)
		return init_forks();
	if (strcmp(argv[1], "deep") == 0)
		return deep();
	if (strcmp(argv[1], "clock") == 0)
		return clock_filtered();
	if (strcmp(argv[1], "groups") == 0)
		join_many_groups();
	if (strcmp(argv[1], "jail") == 0 && (chroot(".") != 0 || chdir("/") != 0)) {
		perror("sandboxed: chroot");
		return 1;
	}
	if (strcmp(argv[1], "late") == 0 || strcmp(argv[1], "jail") == 0 ||
	    strcmp(argv[1], "strict") == 0 || strcmp(argv[1], "violate") == 0) {
		if (strcmp(argv[1], "late") == 0 || strcmp(argv[1], "jail") == 0)
			forbid_changes();
		else
			allow_only_few();
		work();
		printf("worked %d\n", worked);
		if (strcmp(argv[1], "violate") == 0) {
			fflush(stdout);
			syscall(SYS_getppid);
		}
		return 0;
	}
	install_filter();
	if (strcmp(argv[1], "fork") == 0)
		return forked();
	execl("/proc/self/exe", argv[0], strcmp(argv[1], "execraw") == 0 ? "imageraw" : "image",
	      (char *)NULL);
	perror("exec");
	return 1;
}
