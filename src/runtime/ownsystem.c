/*
 * ownsystem.c - system(3) as glibc does it, for a program linked with
 * libccprof.a and -static.
 *
 * Note [system in a static program]: the archive's system is weak (the
 * Makefile) and is the program's, so that its shell's children write
 * OUT.<pid> (Note [Shell children] in shellspawn.c).  Linked with a
 * shared libc, it calls libc's, as the shared runtime does.  Under
 * -static, libc.a's system is never pulled in: it is a weak alias in an
 * object whose other name, __libc_system, no dynamic link may use (it is
 * GLIBC_PRIVATE in libc.so), so nothing the archive can name brings it.
 * So the runtime does glibc's work itself (stdlib/system.c in glibc
 * 2.36), step for step:
 *
 *   - SIGINT and SIGQUIT ignored in the process while any thread is in
 *     system, their actions put back by the last to leave: at the
 *     kernel, as glibc's internal sigaction does, out of the program's
 *     view of its actions (dispositions.c), which glibc's call never
 *     changes either;
 *   - SIGCHLD blocked in the calling thread while it waits;
 *   - /bin/sh -c -- COMMAND spawned by libc's own posix_spawn (libc.a's
 *     popen, which the archive always links in, brings it), with the
 *     caller's signal mask and SIGINT and SIGQUIT at their default
 *     actions unless they were ignored;
 *   - a shell that cannot be spawned is status 127, as if it had exited
 *     so, with errno set;
 *   - a thread cancelled while it waits kills the shell with SIGKILL,
 *     reaps it and leaves as the others do;
 *   - system(NULL) is whether "exit 0" runs.
 *
 * tests/progs/systemsem.c compares all of it with the bare program's
 * libc system.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime.h"

/* libc's posix_spawn under its own name (exec.c has the same weak
 * reference): what glibc's system calls, which no interposer sees. */
extern int __posix_spawn(pid_t *, const char *, const posix_spawn_file_actions_t *,
			 const posix_spawnattr_t *, char *const[], char *const[])
	__attribute__((weak));

/* A signal's action as the kernel keeps it (rt_sigaction(2)). */
struct kernel_action {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

static int kernel_action(int sig, const struct kernel_action *act, struct kernel_action *old)
{
	return (int)syscall(SYS_rt_sigaction, sig, act, old, sizeof(uint64_t));
}

static pthread_mutex_t users_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned users;                          /* threads inside system */
static struct kernel_action saved_int, saved_quit; /* the actions before the first */

static void ignore_interrupts(void)
{
	static const struct kernel_action ignore = { SIG_IGN, 0, NULL, 0 };

	pthread_mutex_lock(&users_lock);
	if (users++ == 0) {
		kernel_action(SIGINT, &ignore, &saved_int);
		kernel_action(SIGQUIT, &ignore, &saved_quit);
	}
	pthread_mutex_unlock(&users_lock);
}

static void restore_interrupts(void)
{
	pthread_mutex_lock(&users_lock);
	if (--users == 0) {
		kernel_action(SIGINT, &saved_int, NULL);
		kernel_action(SIGQUIT, &saved_quit, NULL);
	}
	pthread_mutex_unlock(&users_lock);
}

/* The shell, with the caller's mask and, unless ignored, SIGINT and
 * SIGQUIT at their default actions; an error number, or 0.  Not inlined
 * into run_shell, whose cancellation cleanup is a setjmp (gcc warned
 * that r might be clobbered). */
static __attribute__((noinline)) int spawn_shell(pid_t *pid, const char *command,
						const sigset_t *mask)
{
	char *argv[] = { "sh", "-c", "--", (char *)command, NULL };
	posix_spawnattr_t attr;
	sigset_t reset;
	int r;

	if (__posix_spawn == NULL)
		return ENOSYS;
	sigemptyset(&reset);
	if (saved_int.handler != SIG_IGN)
		sigaddset(&reset, SIGINT);
	if (saved_quit.handler != SIG_IGN)
		sigaddset(&reset, SIGQUIT);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, mask);
	posix_spawnattr_setsigdefault(&attr, &reset);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	r = __posix_spawn(pid, "/bin/sh", NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	return r;
}

struct waiting {
	pid_t pid;
	const sigset_t *mask;
};

/* Cancelled while waiting for the shell: end it, as glibc does. */
static void cancelled(void *arg)
{
	const struct waiting *w = arg;
	int state;

	kill(w->pid, SIGKILL);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state); /* waitpid is a cancellation point */
	while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
		;
	pthread_setcancelstate(state, NULL);
	restore_interrupts();
	sigprocmask(SIG_SETMASK, w->mask, NULL);
}

static int run_shell(const char *command)
{
	sigset_t child, mask;
	struct waiting w;
	int status = -1, err;
	pid_t got;

	ignore_interrupts();
	sigemptyset(&child);
	sigaddset(&child, SIGCHLD);
	sigprocmask(SIG_BLOCK, &child, &mask);
	err = spawn_shell(&w.pid, command, &mask);
	if (err == 0) {
		w.mask = &mask;
		pthread_cleanup_push(cancelled, &w);
		while ((got = waitpid(w.pid, &status, 0)) < 0 && errno == EINTR)
			;
		if (got != w.pid)
			status = -1;
		pthread_cleanup_pop(0);
	} else {
		status = 127 << 8; /* as if the shell had exited 127 */
	}
	restore_interrupts();
	sigprocmask(SIG_SETMASK, &mask, NULL);
	if (err != 0)
		errno = err;
	return status;
}

int rt_own_system(const char *command)
{
	if (command == NULL) /* is there a shell? */
		return run_shell("exit 0") == 0;
	return run_shell(command);
}
