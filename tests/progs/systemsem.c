/* system(3)'s semantics, printed, for a comparison with the bare
 * program's libc system (src/runtime/ownsystem.c does glibc's work in a
 * program linked with libccprof.a and -static):
 *
 *   - system(NULL): is there a shell;
 *   - the status of "exit 3", of a shell killed by SIGINT, of a command
 *     not found;
 *   - SIGINT and SIGQUIT ignored in the caller while the command runs
 *     (the command sends both to its parent, which lives on), the
 *     program's own SIGINT handler in place again afterwards, and its
 *     SIGQUIT, ignored before, still ignored;
 *   - the command's signal mask is the caller's (SIGUSR1 blocked here),
 *     and SIGCHLD is not left blocked afterwards;
 *   - two threads in system at once: both statuses right, SIGINT's
 *     handler back once both are done. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t interrupts;

static void on_int(int sig)
{
	(void)sig;
	interrupts++;
}

static void show(const char *what, int status)
{
	if (status == -1)
		printf("%s: -1\n", what);
	else if (WIFEXITED(status))
		printf("%s: exit %d\n", what, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		printf("%s: killed by %s\n", what, strsignal(WTERMSIG(status)));
	else
		printf("%s: status %#x\n", what, status);
}

/* The command's own output first, then its status. */
static void run(const char *what, const char *command)
{
	int status;

	fflush(stdout);
	status = system(command);
	show(what, status);
}

static const char *action_name(int sig)
{
	struct sigaction sa;

	sigaction(sig, NULL, &sa);
	return sa.sa_handler == SIG_IGN ? "ignored" : sa.sa_handler == SIG_DFL ? "default" :
	       sa.sa_handler == on_int ? "on_int" : "another handler";
}

static void *in_thread(void *arg)
{
	return (void *)(long)system((const char *)arg);
}

int main(void)
{
	struct sigaction sa;
	sigset_t usr1, now;
	pthread_t a, b;
	void *ra, *rb;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_int;
	sigaction(SIGINT, &sa, NULL);
	signal(SIGQUIT, SIG_IGN);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	fflush(stdout);

	printf("system(NULL): %d\n", system(NULL));
	run("exit 3", "exit 3");
	run("kill -INT $$", "kill -INT $$");
	run("not found", "./no-such-command-here 2>/dev/null");
	run("signals to the parent", "kill -INT $PPID; kill -QUIT $PPID; exit 0");
	printf("interrupts while in system: %d\n", (int)interrupts);
	run("the command's mask and ignored signals", "grep -E '^Sig(Blk|Ign)' /proc/self/status");
	printf("after: SIGINT %s, SIGQUIT %s\n", action_name(SIGINT), action_name(SIGQUIT));
	sigprocmask(SIG_BLOCK, NULL, &now);
	printf("after: SIGCHLD blocked %d, SIGUSR1 blocked %d\n", sigismember(&now, SIGCHLD),
	       sigismember(&now, SIGUSR1));
	pthread_create(&a, NULL, in_thread, "sleep 0.2; exit 4");
	pthread_create(&b, NULL, in_thread, "sleep 0.1; exit 5");
	pthread_join(a, &ra);
	pthread_join(b, &rb);
	show("thread a", (int)(long)ra);
	show("thread b", (int)(long)rb);
	printf("after threads: SIGINT %s\n", action_name(SIGINT));
	raise(SIGINT);
	printf("raise(SIGINT) after: %d interrupt\n", (int)interrupts);
	return 0;
}
