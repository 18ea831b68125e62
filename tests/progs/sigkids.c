/*
 * sigkids.c - children made from a signal handler, and children made
 * without fork's handlers.  argv[1]:
 *   fork [N]  N rounds (default 1500) of four threads started and joined
 *             while a SIGUSR1 that only those threads take is sent; its
 *             handler forks a child that exits at once.  The threads'
 *             start and end take the runtime's locks: a fork from a
 *             handler that interrupted one of them must not wait for
 *             ever for a lock its own thread holds
 *   exit      200 children, each starting and joining threads in rounds
 *             until a SIGUSR1 that only those threads take calls exit(0)
 *             from its handler; exit's write takes the runtime's locks.
 *             A child not ended in 3 s counts as hung, and is killed
 *   mallocexit
 *             20 children, each a thread that mallocs and frees 5,000
 *             bytes over and over, SIGUSR1 taken only by it, and a
 *             SIGUSR1 2 ms on whose handler calls exit(0): the handler
 *             interrupts malloc's locks held, and exit's write must take
 *             no malloc (Note [Names without malloc] in dump.c).  A child
 *             not ended in 3 s counts as hung, and is killed
 *   ufork     a child made by _Fork (no fork handlers run) asks
 *             sigaction and signal about SIGTERM: the program's view
 *             (the default action), not the runtime's handler
 *   vfork     the same from a vfork child, which shares our memory
 *   uintr     a child made by _Fork calls siginterrupt(SIGUSR2, 1) and
 *             then signal(SIGUSR2, h): no SA_RESTART, as glibc gives;
 *             then siginterrupt(SIGUSR2, 0) and signal again: SA_RESTART;
 *             the parent's signal after it keeps SA_RESTART
 *   usi       a thread changes SIGUSR1's action over and over while 300
 *             children made by _Fork each call siginterrupt(SIGUSR1, 1)
 *             and exit: one that inherited the runtime's lock taken must
 *             not wait for it.  A child not ended in 3 s counts as hung
 *   asynccancel FIFO
 *             a thread with asynchronous cancellation raises SIGUSR2
 *             (run with dump_signal=SIGUSR2 and output=FIFO): its write
 *             waits in open for a reader, the thread is cancelled there,
 *             and the profile is then read from FIFO into FIFO.got.  It
 *             must come whole; the thread dies by the cancellation after
 *             the write.  Without the runtime: "no runtime"
 *   asynccancelterm FIFO
 *             the same with SIGTERM (run with output=FIFO), "cancelled"
 *             printed once the cancellation is sent; the caller reads the
 *             FIFO.  The process must die by SIGTERM after the write, as
 *             it would without the runtime; "joined" is the failure
 *   dumpexit FIFO
 *             a thread waits in ccprof_dump() to FIFO (the profile's
 *             output) for a reader, and a SIGUSR1 whose handler calls
 *             exit(0) is sent to it there; a thread then reads both that
 *             write and exit's.  Without the runtime: the handler exits
 *             at once
 */
#define _GNU_SOURCE
#include <ccprof.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t forks;

static void fork_now(int sig)
{
	pid_t p = fork();

	(void)sig;
	if (p == 0)
		_exit(0);
	if (p > 0 && waitpid(p, NULL, 0) == p)
		forks++;
}

int work(int x)
{
	return x + 1;
}

static void *take_usr1(void *arg)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	return (void *)(long)work((int)(long)arg);
}

static void fork_in_handler(int rounds)
{
	struct sigaction sa;
	sigset_t s;
	int i, j;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fork_now;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	for (i = 0; i < rounds; i++) {
		pthread_t t[4];

		for (j = 0; j < 4; j++)
			pthread_create(&t[j], NULL, take_usr1, (void *)(long)j);
		kill(getpid(), SIGUSR1);
		for (j = 0; j < 4; j++)
			pthread_join(t[j], NULL);
	}
	/* A signal still pending when the last thread ended is lost in
	 * either run; only whether all rounds end is compared. */
	printf("%d rounds ended, forks %s\n", rounds, forks > 0 ? "made" : "none");
}

static void exit_now(int sig)
{
	(void)sig;
	exit(0);
}

/* SIGUSR1 calls exit; blocked in this thread, so that only threads
 * that unblock it take it. */
static void usr1_exits(void)
{
	struct sigaction sa;
	sigset_t s;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = exit_now;
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
}

static void exiting_child(void)
{
	int i, j;

	usr1_exits();
	for (i = 0;; i++) {
		pthread_t t[4];

		for (j = 0; j < 4; j++)
			pthread_create(&t[j], NULL, take_usr1, (void *)(long)j);
		if (i == 20)
			kill(getpid(), SIGUSR1);
		for (j = 0; j < 4; j++)
			pthread_join(t[j], NULL);
	}
}

/* Wait up to 3 s for child p; 1 if it hung there and was killed. */
static int reaped_or_killed(pid_t p)
{
	int waited;

	for (waited = 0; waited < 3000 && waitpid(p, NULL, WNOHANG) == 0; waited++)
		usleep(1000);
	if (waited < 3000)
		return 0;
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	return 1;
}

static void exit_in_handler(void)
{
	int k, hung = 0;

	for (k = 0; k < 200; k++) {
		pid_t p = fork();

		if (p == 0)
			exiting_child();
		hung += reaped_or_killed(p);
	}
	printf("exit in a handler: %d of 200 children hung\n", hung);
}

static void *churn_malloc(void *arg)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	for (;;) {
		void *volatile p = malloc(5000 + (size_t)work(0));

		free(p);
	}
	return arg;
}

static void exit_in_malloc(void)
{
	struct timespec ms2 = { 0, 2000000 };
	int k, hung = 0;

	usr1_exits();
	for (k = 0; k < 20; k++) {
		pid_t p = fork();

		if (p == 0) {
			pthread_t t;

			pthread_create(&t, NULL, churn_malloc, NULL);
			nanosleep(&ms2, NULL);
			kill(getpid(), SIGUSR1);
			pthread_join(t, NULL);
			_exit(1);
		}
		hung += reaped_or_killed(p);
	}
	printf("exit in a handler in malloc: %d of 20 children hung\n", hung);
}

static void show(const char *who, const struct sigaction *sa, sighandler_t by_signal)
{
	printf("%s: SIGTERM %s, flags %#x; signal gave %s\n", who,
	       sa->sa_handler == SIG_DFL ? "default" : "a handler", (unsigned)sa->sa_flags,
	       by_signal == SIG_DFL ? "default" : "a handler");
}

static struct sigaction seen; /* the vfork child's, in our memory */
static sighandler_t seen_signal;

static void child_views(int vforked)
{
	struct sigaction sa;
	pid_t p;

	work(1);
	p = vforked ? vfork() : _Fork();
	if (p == 0) {
		sigaction(SIGTERM, NULL, &seen);
		seen_signal = signal(SIGTERM, SIG_DFL);
		if (!vforked)
			show("child", &seen, seen_signal);
		_exit(0);
	}
	waitpid(p, NULL, 0);
	if (vforked)
		show("vfork child", &seen, seen_signal);
	sigaction(SIGTERM, NULL, &sa);
	show("parent", &sa, signal(SIGTERM, SIG_DFL));
}

/* Whether signal(SIGUSR2, ...) just set SA_RESTART. */
static int usr2_restarts(void)
{
	struct sigaction sa;

	sigaction(SIGUSR2, NULL, &sa);
	return !!(sa.sa_flags & SA_RESTART);
}

static void nothing(int sig);

static void child_siginterrupt(void)
{
	pid_t p;

	work(1);
	p = _Fork();
	if (p == 0) {
		siginterrupt(SIGUSR2, 1);
		signal(SIGUSR2, nothing);
		printf("child: after siginterrupt 1, restart=%d\n", usr2_restarts());
		siginterrupt(SIGUSR2, 0);
		signal(SIGUSR2, nothing);
		printf("child: after siginterrupt 0, restart=%d\n", usr2_restarts());
		_exit(0);
	}
	waitpid(p, NULL, 0);
	signal(SIGUSR2, nothing);
	printf("parent: restart=%d\n", usr2_restarts());
}

static volatile int stop;

static void nothing(int sig)
{
	(void)sig;
}

static void *churn(void *arg)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = nothing;
	while (!stop)
		sigaction(SIGUSR1, &sa, NULL);
	return arg;
}

static void siginterrupt_in_children(void)
{
	pthread_t t;
	int k, hung = 0;

	pthread_create(&t, NULL, churn, NULL);
	for (k = 0; k < 300; k++) {
		pid_t p = _Fork();

		if (p == 0) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
			siginterrupt(SIGUSR1, 1);
#pragma GCC diagnostic pop
			_exit(0);
		}
		hung += reaped_or_killed(p);
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("siginterrupt in _Fork children: %d of 300 hung\n", hung);
}

static pid_t dumper; /* the thread id of the thread in ccprof_dump */

/* Whether thread `tid` waits in an openat system call. */
static int in_openat(pid_t tid)
{
	char path[64], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return atoi(buf) == SYS_openat && buf[0] != 'r'; /* not "running" */
}

static void drain(const char *fifo)
{
	char buf[4096];
	int fd = open(fifo, O_RDONLY);

	while (fd >= 0 && read(fd, buf, sizeof buf) > 0)
		continue;
	if (fd >= 0)
		close(fd);
}

/* Signal the dumper as it waits for a reader (inside the write), then
 * read that write and exit's. */
static void *reader(void *fifo)
{
	while (!in_openat(dumper))
		usleep(1000);
	syscall(SYS_tgkill, (long)getpid(), (long)dumper, (long)SIGUSR1);
	drain(fifo);
	drain(fifo);
	return NULL;
}

static void exit_mid_dump(const char *fifo)
{
	struct sigaction sa;
	pthread_t t;

	printf("a dump, and exit from a handler in it\n");
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = exit_now;
	sigaction(SIGUSR1, &sa, NULL);
	if (!ccprof__dump || mkfifo(fifo, 0600) != 0)
		raise(SIGUSR1); /* without the runtime: nothing to be in */
	dumper = (pid_t)syscall(SYS_gettid);
	pthread_create(&t, NULL, reader, (void *)fifo);
	ccprof_dump();
	for (;;)
		pause(); /* the handler's exit ends it */
}

static int dumper_signal = SIGUSR2;

static void *cancelled_dumper(void *arg)
{
	int old;

	__atomic_store_n(&dumper, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
	raise(dumper_signal); /* the handler's write waits in open */
	for (;;)
		pause(); /* a cancellation point, if the write left it pending */
	return arg;
}

/* What the FIFO gives until every writer has closed it, into `out`.  The
 * open does not wait: a write cancelled in its open never comes, and
 * poll's 20 s then end the wait (a failure, not a timing). */
static size_t read_fifo(const char *fifo, const char *out)
{
	char buf[4096];
	struct pollfd pfd = { .events = POLLIN };
	int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	size_t total = 0;
	ssize_t n;

	pfd.fd = open(fifo, O_RDONLY | O_NONBLOCK);
	while (pfd.fd >= 0 && o >= 0 && poll(&pfd, 1, 20000) == 1 &&
	       (n = read(pfd.fd, buf, sizeof buf)) > 0)
		total += (size_t)write(o, buf, (size_t)n);
	if (pfd.fd >= 0)
		close(pfd.fd);
	if (o >= 0)
		close(o);
	return total;
}

static void cancel_mid_dump(const char *fifo)
{
	char got[4096];
	pthread_t t;

	if (!ccprof__dump || mkfifo(fifo, 0600) != 0) {
		printf("no runtime\n");
		return;
	}
	pthread_create(&t, NULL, cancelled_dumper, NULL);
	while (__atomic_load_n(&dumper, __ATOMIC_ACQUIRE) == 0 || !in_openat(dumper))
		usleep(1000);
	pthread_cancel(t);
	snprintf(got, sizeof got, "%s.got", fifo);
	printf("read %zu bytes\n", read_fifo(fifo, got));
	pthread_join(t, NULL);
	unlink(fifo); /* exit's write goes to a file */
	printf("joined\n");
}

/* The same with SIGTERM: its handler writes, then the process must die
 * by the signal, as it would without the runtime, not lose the thread to
 * the cancellation and go on.  The FIFO is read by whoever runs this,
 * after "cancelled": the process's own reader would die with it. */
static void cancel_mid_term(const char *fifo)
{
	pthread_t t;

	if (!ccprof__dump || mkfifo(fifo, 0600) != 0) {
		printf("no runtime\n");
		return;
	}
	dumper_signal = SIGTERM;
	pthread_create(&t, NULL, cancelled_dumper, NULL);
	while (__atomic_load_n(&dumper, __ATOMIC_ACQUIRE) == 0 || !in_openat(dumper))
		usleep(1000);
	pthread_cancel(t);
	printf("cancelled\n");
	pthread_join(t, NULL);
	printf("joined\n"); /* the failure: the thread ended, the process lives */
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "fork";

	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(how, "fork") == 0)
		fork_in_handler(argc > 2 ? atoi(argv[2]) : 1500);
	else if (strcmp(how, "exit") == 0)
		exit_in_handler();
	else if (strcmp(how, "mallocexit") == 0)
		exit_in_malloc();
	else if (strcmp(how, "usi") == 0)
		siginterrupt_in_children();
	else if (strcmp(how, "uintr") == 0)
		child_siginterrupt();
	else if (strcmp(how, "asynccancel") == 0)
		cancel_mid_dump(argc > 2 ? argv[2] : "dump.fifo");
	else if (strcmp(how, "asynccancelterm") == 0)
		cancel_mid_term(argc > 2 ? argv[2] : "dump.fifo");
	else if (strcmp(how, "dumpexit") == 0)
		exit_mid_dump(argc > 2 ? argv[2] : "dump.fifo");
	else
		child_views(strcmp(how, "vfork") == 0);
	return 0;
}
