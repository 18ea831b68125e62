/* vforktime.c - a parent that works between vforks, and whose children
 * die inside a function they called, as dash's do in `tryexec`:
 * child_run calls in_child, then ends by _exit, or by exec of /bin/true,
 * or (nested) after a vfork of its own whose child calls in_child.  The
 * parent works in parent_work and in main itself, after each vfork
 * returns.  Usage: vforktime exit|exec|nested|childexit|threads|jump N
 * (childexit: the children end by exit, not _exit, and then a fork
 * child calls parent_work once).  Prints
 * the children it waited for.  A profile must charge the parent's time
 * to parent_work and main, not to child_run or in_child, which only the
 * children run (Note [A vfork child's calls] in src/runtime/vfork.c);
 * the children's calls are counted in the parent's profile.  threads:
 * three threads do that, N children each.  jump: once, a SIGALRM the
 * child sends its parent (in in_child) is handled as vfork returns, and
 * the handler leaves by siglongjmp; then main works in after_work, which
 * must have the time. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static _Thread_local volatile unsigned long sink; /* each thread its own: no race */

/* About 100 us of CPU. */
static void spin(void)
{
	for (unsigned long i = 0; i < 100000; i++)
		sink += i;
}

__attribute__((noinline)) static void parent_work(void)
{
	spin();
}

static int jump_mode;

__attribute__((noinline)) static void in_child(void)
{
	sink++;
	if (jump_mode) /* for the parent, suspended until we end */
		kill(getppid(), SIGALRM);
}

__attribute__((noinline)) static void child_run(const char *how)
{
	in_child();
	if (strcmp(how, "exec") == 0)
		execl("/bin/true", "true", (char *)NULL);
	if (strcmp(how, "childexit") == 0)
		exit(0); /* wrong in a vfork child, but done: the atexit handlers run */
	if (strcmp(how, "nested") == 0) {
		pid_t g = vfork();

		if (g == 0) {
			in_child();
			_exit(0);
		}
		if (g < 0 || waitpid(g, NULL, 0) != g)
			_exit(3);
	}
	_exit(0);
}

/* n vforks; the children that ended well. */
static int vforks(const char *how, int n)
{
	int waited = 0;

	for (int i = 0; i < n; i++) {
		int status;
		pid_t pid;

		parent_work();
		pid = vfork();
		if (pid == 0)
			child_run(how);
		if (pid < 0) {
			perror("vfork");
			return 1;
		}
		/* main's own work, before any call: the context it is charged
		 * to is the one vfork returned to */
		for (unsigned long j = 0; j < 100000; j++)
			sink += j;
		if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0)
			waited++;
	}
	return waited;
}

static void *thread_vforks(void *n)
{
	return (void *)(long)vforks("exit", *(int *)n);
}

static sigjmp_buf out;

__attribute__((noinline)) static void on_alarm(int sig)
{
	(void)sig;
	siglongjmp(out, 1);
}

__attribute__((noinline)) static void after_work(void)
{
	for (unsigned long i = 0; i < 30000000; i++)
		sink += i;
}

/* The handler runs as vfork returns, and jumps out of main's loop. */
static int jump_out(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int status, waited = 0;

	jump_mode = 1;
	sigaction(SIGALRM, &sa, NULL);
	if (sigsetjmp(out, 1) == 0) {
		vforks("exit", 1);
		return -1; /* no signal came */
	}
	while (wait(&status) > 0)
		waited += WIFEXITED(status) && WEXITSTATUS(status) == 0;
	after_work();
	return waited;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "exit";
	int n = argc > 2 ? atoi(argv[2]) : 1000, waited = 0;

	if (strcmp(how, "threads") == 0) {
		pthread_t t[3];

		for (int i = 0; i < 3; i++)
			pthread_create(&t[i], NULL, thread_vforks, &n);
		for (int i = 0; i < 3; i++) {
			void *r;

			pthread_join(t[i], &r);
			waited += (int)(long)r;
		}
	} else if (strcmp(how, "jump") == 0) {
		waited = jump_out();
	} else {
		waited = vforks(how, n);
	}
	if (strcmp(how, "childexit") == 0) { /* and a fork child: its profile */
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			parent_work();
			exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			return 1;
	}
	printf("%d children\n", waited);
	return 0;
}
