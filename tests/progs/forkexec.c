/* A parent that forks a child which execs a program (itself again): the
 * image must not write over the parent's profile, nor the parent over
 * the image's (Note [Exec in a forked child] in src/runtime/exec.c).
 * argv[1] picks the exec: execl (list form, environ), execvp (through
 * PATH), execve (an environment of its own, without CCPROF_OPTIONS),
 * spawn: posix_spawn, no fork, or vfork: a vfork child that calls execl
 * and nothing instrumented (it runs in the parent's memory), clone: a
 * child clone() makes without fork()'s handlers, on a stack of two pages
 * of its own, as googletest's "threadsafe" death tests do, which calls
 * execl from an instrumented function (Note [A child's small stack] in
 * src/runtime/exec.c), clonevfork: such a child (on 64 KB) that vforks
 * and execs /bin/true 100 times, after which its address space must not
 * have grown (its vfork children share its memory, not rt_pid's),
 * vforkseccomp: vfork + execl under a seccomp filter that kills a
 * process calling kcmp, vforkbigenv: vfork + execl with 2,000 variables
 * more in the environment, past the 4 KB the runtime's room held (Note
 * [A large environment in a vfork child] in src/runtime/exec.c), and
 * vforkbigenvthread: the same from a thread on a 72 KB stack, too small
 * for that room and what the exec needs beside it, vforkbigenvbare:
 * vfork + execve of /bin/true with 16,000 variables more from a thread
 * on 128 KB that ran nothing instrumented (the runtime knows nothing of
 * its stack), clonevmbigenv: clone(CLONE_VM | CLONE_VFORK) on a 64 KB
 * stack inside an instrumented function's frame, whose child execs
 * /bin/true with 9,000 variables more (a room sized by the thread's
 * stack wrote over the parent's frames below: helper-183), system or
 * popen: the image runs from a shell that libc spawns (popen's reads
 * the image's output and prints it), systhreads: two threads call
 * system at once, each running the image (image_work 4 in each),
 * syscancel: a thread cancelled inside system("sleep 10"), then system
 * runs the image,
 * double or doublespawn: a daemon's double fork, the child calling
 * nothing instrumented before it forks again (and the grandchild execs)
 * or posix_spawns the image, emptyenv: a child that clears its
 * environment execs the image, and posix_spawn runs it with a null envp
 * (each image prints how many variables it got: none, as without ccprof),
 * or
 * vforkmany: 100 vfork children that execl /bin/true with 100 arguments
 * each, after which the parent's address space must not have grown (an
 * argument array mapped in a vfork child stays in the parent).
 * Calls: parent_work 3 before the fork and 2 after, child_work once in
 * the child before its exec (not with spawn or vfork), image_work 4 in
 * the image. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) void parent_work(void) { }
__attribute__((noinline)) void child_work(void) { }
__attribute__((noinline)) void image_work(void) { }

static void exec_image(const char *how, const char *self)
{
	char *argv[] = {(char *)self, "image", NULL};

	if (strcmp(how, "execvp") == 0) {
		execvp(self, argv);
	} else if (strcmp(how, "execve") == 0) {
		char preload[4200];
		char *env[] = {preload, NULL};

		snprintf(preload, sizeof preload, "LD_PRELOAD=%s",
			 getenv("LD_PRELOAD") ? getenv("LD_PRELOAD") : "");
		execve("/proc/self/exe", argv, env);
	} else {
		execl("/proc/self/exe", self, "image", (char *)NULL);
	}
	perror("exec");
	_exit(127);
}

/* The clone child: instrumented, on its two pages. */
static int clone_child(void *self)
{
	execl("/proc/self/exe", (char *)self, "image", (char *)NULL);
	_exit(127);
}

static pid_t clone_on(int (*fn)(void *), size_t size, void *arg)
{
	char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return stack == MAP_FAILED ? -1 : clone(fn, stack + size, SIGCHLD, arg);
}

/* A filter that kills the process at a kcmp, and allows the rest. */
static void kill_at_kcmp(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_kcmp, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		perror("seccomp");
}

/* VmSize of this process in kB, from /proc/self/status. */
static long vm_size_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmSize: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

#define A10 "a", "a", "a", "a", "a", "a", "a", "a", "a", "a"

/* 100 vfork children that execl /bin/true, with 100 arguments if args. */
static void vfork_many(const char *who, int args)
{
	long before = vm_size_kb(), after;
	int status, bad = 0;

	for (int i = 0; i < 100; i++) {
		pid_t pid = vfork();

		if (pid == 0) {
			if (args)
				execl("/bin/true", "true", A10, A10, A10, A10, A10, A10, A10, A10,
				      A10, A10, (char *)NULL);
			else
				execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		waitpid(pid, &status, 0);
		bad += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	after = vm_size_kb();
	/* 100 leaked pages would be 400 kB; stdio's buffers are far less. */
	printf("%s: %d failed, address space grew: %s\n", who, bad,
	       after - before < 128 ? "no" : "yes");
}

/* clonevfork's child. */
static int clone_vforks(void *unused)
{
	(void)unused;
	vfork_many("clonevfork", 0);
	fflush(stdout);
	_exit(0);
}

/* The shell command that runs this program's image. */
static const char *image_command(void)
{
	static char cmd[4200];
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

	self[n > 0 ? n : 0] = '\0';
	snprintf(cmd, sizeof cmd, "'%s' image", self);
	return cmd;
}

static void *system_image(void *unused)
{
	(void)unused;
	return (void *)(long)system(image_command());
}

static void *system_sleep(void *unused)
{
	(void)unused;
	return (void *)(long)system("sleep 10");
}

/* Through libc's shell: the image's profile must not be the parent's,
 * and environ must be as it was once system or popen returns. */
static int shell_image(const char *how)
{
	extern char **environ;
	char **env = environ, line[256];
	const char *opt = getenv("CCPROF_OPTIONS");
	char before[4096];
	int status = -1;

	snprintf(before, sizeof before, "%s", opt ? opt : "(none)");
	if (strcmp(how, "system") == 0) {
		status = system(image_command());
	} else if (strcmp(how, "popen") == 0) {
		FILE *f = popen(image_command(), "r");

		while (f && fgets(line, sizeof line, f))
			printf("from popen: %s", line);
		status = f ? pclose(f) : -1;
	} else if (strcmp(how, "syscancel") == 0) {
		pthread_t t;

		pthread_create(&t, NULL, system_sleep, NULL);
		usleep(200000);
		pthread_cancel(t);
		pthread_join(t, NULL);
		status = system(image_command());
	} else {
		pthread_t t[2];
		void *rc[2];

		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, system_image, NULL);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], &rc[i]);
		status = rc[0] != NULL ? (int)(long)rc[0] : (int)(long)rc[1];
	}
	opt = getenv("CCPROF_OPTIONS");
	printf("environ kept: %s\n",
	       env == environ && strcmp(before, opt ? opt : "(none)") == 0 ? "yes" : "no");
	return status;
}

/* The middle process of a double fork: nothing instrumented here (a
 * static function that the compiler may inline is instrumented too, so
 * the work is in main's frame). */
__attribute__((no_instrument_function)) static int double_fork(const char *how, const char *self)
{
	extern char **environ;
	char *args[] = {(char *)self, "image", NULL};
	int status;
	pid_t pid;

	if (strcmp(how, "doublespawn") == 0) {
		if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ) != 0)
			return 126;
	} else if ((pid = fork()) == 0) {
		execv("/proc/self/exe", args);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 125;
}

/* vforkbigenv's environment: n variables more. */
static void big_environment_of(int n)
{
	for (int i = 0; i < n; i++) {
		char name[16];

		snprintf(name, sizeof name, "BIGENV%d", i);
		setenv(name, "1", 1);
	}
}

static void big_environment(void)
{
	big_environment_of(2000);
}

/* vforkbigenvbare's thread: nothing instrumented, vfork + execve of
 * /bin/true; the child's exit status, or -signal. */
__attribute__((no_instrument_function)) static void *vfork_true(void *unused)
{
	extern char **environ;
	char *argv[] = {"/bin/true", NULL};
	int status;
	pid_t pid = vfork();

	(void)unused;
	if (pid == 0) {
		execve(argv[0], argv, environ);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	return (void *)(intptr_t)(WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));
}

/* clonevmbigenv's child. */
static int exec_true(void *unused)
{
	extern char **environ;
	char *argv[] = {"/bin/true", NULL};

	(void)unused;
	execve(argv[0], argv, environ);
	_exit(127);
}

/* clonevmbigenv: the child on a stack in this frame. */
__attribute__((noinline)) static int clone_vm_vfork(void)
{
	char stack[64 << 10] __attribute__((aligned(16)));
	volatile long canary = 0x1234;
	int status;
	pid_t pid = clone(exec_true, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);

	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	if (canary != 0x1234)
		printf("canary overwritten\n");
	return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

/* vforkbigenvthread's thread: vfork + execl, the child's exit status. */
static void *vfork_exec_image(void *self)
{
	int status;
	pid_t pid = vfork();

	if (pid == 0) {
		execl("/proc/self/exe", (char *)self, "image", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	return (void *)(intptr_t)(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc > 1 && strcmp(argv[1], "envcount") == 0) {
		extern char **environ;
		int n = 0;

		while (environ && environ[n])
			n++;
		printf("image got %d variables\n", n);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "emptyenv") == 0) {
		char *args[] = {argv[0], "envcount", NULL};

		fflush(stdout);
		if ((pid = fork()) == 0) {
			clearenv();
			execv("/proc/self/exe", args);
			_exit(127);
		}
		waitpid(pid, &status, 0);
		if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, NULL) == 0)
			waitpid(pid, &status, 0);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "image") == 0) {
		for (int i = 0; i < 4; i++)
			image_work();
		printf("image done\n");
		return 0;
	}
	for (int i = 0; i < 3; i++)
		parent_work();
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "vforkmany") == 0) {
		vfork_many("vforkmany", 1);
		for (int i = 0; i < 2; i++)
			parent_work();
		return 0;
	}
	if (argc > 1 && (strcmp(argv[1], "system") == 0 || strcmp(argv[1], "popen") == 0 ||
			 strcmp(argv[1], "systhreads") == 0 || strcmp(argv[1], "syscancel") == 0)) {
		status = shell_image(argv[1]);
		for (int i = 0; i < 2; i++)
			parent_work();
		printf("parent done, shell exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return 0;
	}
	if (argc > 1 && (strcmp(argv[1], "double") == 0 || strcmp(argv[1], "doublespawn") == 0)) {
		pid = fork();
		if (pid == 0)
			_exit(double_fork(argv[1], argv[0]));
		waitpid(pid, &status, 0);
		for (int i = 0; i < 2; i++)
			parent_work();
		printf("parent done, child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "vforkbigenvbare") == 0) {
		pthread_attr_t attr;
		pthread_t t;
		void *rc;

		big_environment_of(16000);
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 128 * 1024);
		if (pthread_create(&t, &attr, vfork_true, NULL) != 0 || pthread_join(t, &rc) != 0)
			return 1;
		printf("child exit %d\n", (int)(intptr_t)rc);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "clonevmbigenv") == 0) {
		big_environment_of(9000);
		printf("child exit %d\n", clone_vm_vfork());
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "vforkbigenvthread") == 0) {
		pthread_attr_t attr;
		pthread_t t;
		void *rc;

		big_environment();
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 72 * 1024);
		if (pthread_create(&t, &attr, vfork_exec_image, argv[0]) != 0 ||
		    pthread_join(t, &rc) != 0)
			return 1;
		for (int i = 0; i < 2; i++)
			parent_work();
		printf("parent done, child exit %d\n", (int)(intptr_t)rc);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "spawn") == 0) {
		extern char **environ;
		char *args[] = {argv[0], "image", NULL};
		int rc = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ);

		if (rc != 0) {
			fprintf(stderr, "posix_spawn: %s\n", strerror(rc));
			return 1;
		}
	} else if (argc > 1 && strcmp(argv[1], "clone") == 0) {
		pid = clone_on(clone_child, 2 * 4096, argv[0]);
	} else if (argc > 1 && strcmp(argv[1], "clonevfork") == 0) {
		pid = clone_on(clone_vforks, 64 * 1024, NULL);
	} else if (argc > 1 && (strcmp(argv[1], "vfork") == 0 ||
				strcmp(argv[1], "vforkseccomp") == 0 ||
				strcmp(argv[1], "vforkbigenv") == 0)) {
		if (strcmp(argv[1], "vforkseccomp") == 0)
			kill_at_kcmp();
		if (strcmp(argv[1], "vforkbigenv") == 0)
			big_environment();
		pid = vfork();
		if (pid == 0) {
			execl("/proc/self/exe", argv[0], "image", (char *)NULL);
			_exit(127);
		}
	} else {
		pid = fork();
	}
	if (pid == 0) {
		child_work();
		exec_image(argc > 1 ? argv[1] : "execl", argv[0]);
	}
	waitpid(pid, &status, 0);
	for (int i = 0; i < 2; i++)
		parent_work();
	printf("parent done, child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
