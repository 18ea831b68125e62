/*
 * presig.c - signal handlers installed before the runtime starts (by a
 * library's constructor, which runs before the preloaded runtime's) keep
 * every part of their action: flags, mask, and that they alone see the
 * signals they handle.
 *
 * Built twice: with -DPRESIG_LIB -shared -fPIC as libpresig.so, whose
 * constructor installs a SIGALRM handler without SA_RESTART and with
 * SIGUSR2 in its mask, and a SIGSEGV handler that jumps out of the fault
 * (as a garbage collector's write barrier handles faults); and as the
 * program, linked with it.  argv[1]:
 *   intr     a read of an empty pipe, cut short by SIGALRM: EINTR, as the
 *            handler asked (it hangs if the read restarts); prints what
 *            the handler found blocked
 *   handled  three faults, each handled; then whether a profile already
 *            exists in the current directory (none may be written for a
 *            fault the program handles), and exit 0
 *   resethand SIGUSR2 twice; the library's handler for it has
 *            SA_RESETHAND: the first runs it (what sigaction says after
 *            it is printed), the second kills by the default action
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern sigjmp_buf presig_jump;
extern volatile sig_atomic_t presig_faults, presig_usr2_blocked, presig_alrm_blocked;
extern volatile sig_atomic_t presig_usr2s;

#ifdef PRESIG_LIB
sigjmp_buf presig_jump;
volatile sig_atomic_t presig_faults, presig_usr2_blocked, presig_alrm_blocked;
volatile sig_atomic_t presig_usr2s;

static void on_usr2(int sig)
{
	(void)sig;
	presig_usr2s++;
}

static void on_alrm(int sig)
{
	sigset_t now;

	(void)sig;
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	presig_usr2_blocked = sigismember(&now, SIGUSR2);
	presig_alrm_blocked = sigismember(&now, SIGALRM);
}

static void on_segv(int sig)
{
	(void)sig;
	presig_faults++;
	siglongjmp(presig_jump, 1);
}

__attribute__((constructor)) static void install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alrm;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	sa.sa_flags = 0; /* no SA_RESTART: the read is to fail with EINTR */
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_segv;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	sa.sa_handler = on_usr2; /* once: then the default action */
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	sigaction(SIGUSR2, &sa, NULL);
}
#else
int work(int x)
{
	return x * 2;
}

int probe(volatile int *p)
{
	return *p;
}

static void intr(void)
{
	struct sigaction sa;
	int fd[2];
	ssize_t r;
	char c;

	if (pipe(fd) != 0)
		return;
	sigaction(SIGALRM, NULL, &sa);
	printf("SIGALRM: flags %#x, SIGUSR2 in mask %d\n", (unsigned)sa.sa_flags,
	       sigismember(&sa.sa_mask, SIGUSR2));
	alarm(1);
	r = read(fd[0], &c, 1);
	printf("read %zd: %s\n", r, r < 0 ? strerror(errno) : "data");
	printf("in the handler: SIGUSR2 blocked %d, SIGALRM blocked %d\n",
	       (int)presig_usr2_blocked, (int)presig_alrm_blocked);
}

static int profile_here(void)
{
	DIR *d = opendir(".");
	struct dirent *e;
	int found = 0;

	while (d && (e = readdir(d)) != NULL)
		if (strstr(e->d_name, ".ccprof"))
			found = 1;
	if (d)
		closedir(d);
	return found;
}

static void handled(void)
{
	int i;

	for (i = 0; i < 3; i++)
		if (!sigsetjmp(presig_jump, 1))
			probe(NULL);
	printf("faults %d, a profile already %s\n", (int)presig_faults,
	       profile_here() ? "written" : "absent");
}

static void resethand(void)
{
	struct sigaction sa;

	raise(SIGUSR2);
	sigaction(SIGUSR2, NULL, &sa);
	printf("handled %d; then SIGUSR2 %s, flags %#x\n", (int)presig_usr2s,
	       sa.sa_handler == SIG_DFL ? "default" : "a handler", (unsigned)sa.sa_flags);
	raise(SIGUSR2);
	printf("still here after the second\n");
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "intr";

	setvbuf(stdout, NULL, _IONBF, 0);
	printf("%d\n", work(1));
	if (strcmp(how, "intr") == 0)
		intr();
	else if (strcmp(how, "resethand") == 0)
		resethand();
	else
		handled();
	return 0;
}
#endif
