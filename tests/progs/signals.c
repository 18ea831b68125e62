/*
 * Signals: argv[1] selects what happens.
 *   segv | fpe | abort | bus  crash inside crash_here() called from level2()
 *   term | int                raise the signal (default action) from work()
 *   handled                   a SIGINT handler of the program's own that
 *                             calls instrumented code, then exit(3)
 *   reraise                   xz's way: a SIGINT handler of the
 *                             program's own notes the signal; the program
 *                             cleans up, restores the default action and
 *                             raises it again, to die by it
 *   pipe | hup | alrm | quit | usr1 | vtalrm | xcpu | xfsz | rt
 *                             raise that signal (default action; rt is
 *                             SIGRTMIN+2, which the runtime leaves alone);
 *                             pipe as a write to a closed pipe does
 *   view                      what sigaction and signal tell the program
 *                             of its own actions, through save, ignore,
 *                             restore, ssignal and sysv_signal; then
 *                             SIGTERM
 *   segvreraise               a crash reporter's way: the program's own
 *                             SIGSEGV handler restores the default action
 *                             and returns, so the fault recurs and kills
 *   usr2                      raise SIGUSR2 (dump_signal), then go on
 *   nested                    a SIGALRM handler calling instrumented code
 *                             while the program is deep in recursion
 *   wait                      print "waiting PID" from wait_here(), then
 *                             wait for a signal to end the process
 *   threads                   the same with two more threads waiting in
 *                             idle(), to take a second signal
 *   waitexit                  the same, but a SIGTERM handler of its own
 *                             ends the wait, and the program exits 0
 *   sleepone                  print "waiting PID", then sleep 1.5 s in
 *                             one nanosleep and print "slept" or, if a
 *                             handler cut it short, "interrupted"; exit 0
 *                             (as a namespace's init, a SIGTERM at its
 *                             default action must do nothing)
 *   forkwait                  fork; the child waits as `wait` does, and
 *                             the parent prints "child died by N" when it
 *                             ends by a signal, and exits 0
 *   orphans                   print "waiting PID", then for 3 s fork
 *                             children that fork a grandchild and exit
 *                             (orphans for a namespace's init), count
 *                             the SIGUSR1s and print "USR1 N"
 *   countint                  print "waiting PID", then count the SIGINTs
 *                             that come until 0.3 s after the first, print
 *                             "SIGINT N times" and exit 0
 *   segvpipe | endpipe        stderr becomes a pipe nobody reads, then a
 *                             crash (segv) or the normal end: whatever the
 *                             runtime writes there must not end the
 *                             program by SIGPIPE instead
 *   altterm | altabort | altsegv
 *                             an 8 KB alternate signal stack (as gnulib's
 *                             c-stack and Rust give threads, for stack
 *                             overflows), then SIGTERM, abort(), or a
 *                             fault (whose handler runs on that stack)
 *   overflow                  print "overflowing", then recurse in deeper()
 *                             until the stack overflows (SIGSEGV, no
 *                             alternate stack of the program's)
 *   altoff                    set an alternate stack of 64 KB, take it
 *                             away (SS_DISABLE), then as overflow
 *   alt4k                     set an alternate stack of 4 KB (room for the
 *                             kernel's frame, 3.6 KB here, and little
 *                             more) above a page no one may touch, then
 *                             as overflow
 *   alt2k                     the same with 2 KB (MINSIGSTKSZ), too small
 *                             for the kernel's frame: no handler can run
 *   threadoverflow            the same in a second thread, which has no
 *                             alternate stack of the program's
 *   threadownalt              a thread sets an alternate stack of its own
 *                             before its first call, takes it away
 *                             (SS_DISABLE), then overflows
 *   threadalt                 a thread prints what altview prints; then 20
 *                             threads one after another each make a call;
 *                             then as threadoverflow
 *   onstack                   a SIGUSR1 handler installed with SA_ONSTACK
 *                             (but no alternate stack of the program's)
 *                             that uses 200 KB of stack; raise SIGUSR1,
 *                             print "handled N", exit 0
 *   altview                   print what sigaltstack says of the thread's
 *                             alternate stack, set one of 16 KB, print
 *                             again, disable it, print again, exit 0
 *   altdisarm                 altsegv with the stack set up with
 *                             SS_AUTODISARM: the kernel disarms it as the
 *                             handler starts, and sigaltstack then says
 *                             it is disabled
 *   vforkterm                 a vfork child dies by SIGTERM before its
 *                             exec (the runtime's handler runs in it, in
 *                             our memory); then the program raises SIGTERM
 *   forks                     a thread asks sigaction about SIGINT over
 *                             and over while the program forks; each
 *                             child asks once and exits (none may hang)
 *   stop | tstp               print "stopping PID" from stop_here(), which
 *                             raises SIGSTOP or SIGTSTP; once continued,
 *                             print "resumed" and exit 4
 * The program prints what it did, so the runs with and without ccprof can
 * be compared line by line; handled and nested also print the calls they
 * counted, "calls F N" (on_alarm's, which a late tick can change, left
 * out).
 */
#define _GNU_SOURCE /* sysv_signal */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31) /* <linux/signal.h>, Linux 4.7 on */
#endif
#define NOINLINE __attribute__((noinline))

static volatile int zero;
static volatile unsigned long sink;
static volatile sig_atomic_t ticks;
static volatile sig_atomic_t caught;
static unsigned long n_work, n_on_int, n_in_handler, n_spin; /* calls counted */

NOINLINE void crash_here(const char *how)
{
	if (strcmp(how, "segv") == 0)
		*(volatile int *)(long)zero = 1;
	else if (strcmp(how, "fpe") == 0)
		sink = (unsigned long)(100 / zero);
	else if (strcmp(how, "abort") == 0)
		abort();
	else if (strcmp(how, "bus") == 0)
		raise(SIGBUS);
}

NOINLINE void level2(const char *how) { crash_here(how); }

/* Not a tail call: the buffer is read after the call returns. */
NOINLINE int deeper(int n)
{
	volatile char frame[512];

	frame[0] = (char)n;
	return deeper(n + 1) + frame[0];
}

static void *overflow_thread(void *arg)
{
	(void)arg;
	deeper(0);
	return NULL;
}

static void print_altstack(void);

/* What sigaltstack says of the thread's alternate stack; then with one
 * of 16 KB set, and again with it disabled. */
NOINLINE void altview(void)
{
	static char alt[16384];
	stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt }, off = { .ss_flags = SS_DISABLE };

	print_altstack();
	sigaltstack(&ss, NULL);
	print_altstack();
	sigaltstack(&off, NULL);
	print_altstack();
}

static void *altview_thread(void *arg)
{
	altview();
	return arg;
}

static volatile int short_calls;

NOINLINE void short_call(void)
{
	short_calls++;
}

/* Not instrumented: the thread's first call comes after its own stack. */
__attribute__((no_instrument_function)) static void *own_alt_thread(void *arg)
{
	static char alt[65536];
	stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt }, off = { .ss_flags = SS_DISABLE };

	sigaltstack(&ss, NULL);
	short_call();
	sigaltstack(&off, NULL);
	deeper(0);
	return arg;
}

static void *short_thread(void *arg)
{
	short_call();
	return arg;
}

static volatile int onstack_sum;

static void on_usr1_onstack(int sig)
{
	volatile char big[200 * 1024];

	memset((char *)big, sig, sizeof big);
	onstack_sum = big[0] + big[sizeof big - 1];
}

static void print_altstack(void)
{
	stack_t ss;

	if (sigaltstack(NULL, &ss) != 0)
		printf("sigaltstack failed\n");
	else if (ss.ss_flags & SS_DISABLE)
		printf("altstack disabled\n");
	else
		printf("altstack of %zu bytes, flags %d\n", ss.ss_size, ss.ss_flags);
}

NOINLINE void in_handler(void) { n_in_handler++; sink++; }

NOINLINE void on_int(int sig)
{
	(void)sig;
	n_on_int++;
	in_handler();
	printf("handled SIGINT\n");
	printf("calls main 1\ncalls work %lu\ncalls on_int %lu\ncalls in_handler %lu\n", n_work,
	       n_on_int, n_in_handler);
	exit(3);
}

NOINLINE void note(int sig)
{
	caught = sig;
}

NOINLINE void clean_up(void)
{
	struct sigaction dfl;

	printf("cleaning up after %d\n", (int)caught);
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigaction(caught, &dfl, NULL);
	raise(caught);
}

NOINLINE void work(int sig)
{
	n_work++;
	printf("raising %d\n", sig);
	fflush(stdout);
	raise(sig);
	printf("survived %d\n", sig);
}

static const char *action(int sig)
{
	struct sigaction sa;

	if (sigaction(sig, NULL, &sa) != 0)
		return "error";
	if (sa.sa_handler == SIG_DFL)
		return "default";
	if (sa.sa_handler == SIG_IGN)
		return "ignore";
	return sa.sa_handler == note ? "note" : "someone else's handler";
}

/* The rest of what sigaction gives back: flags, mask, restorer. */
static void details(const char *what, int sig)
{
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof sa);
	sigaction(sig, NULL, &sa);
	printf("%s: flags %#x, restorer %s, mask", what, (unsigned)sa.sa_flags,
	       sa.sa_restorer ? "set" : "none");
	for (i = 1; i < 32; i++)
		if (sigismember(&sa.sa_mask, i))
			printf(" %d", i);
	printf("\n");
}

/* Every answer must be the one the program would get without ccprof. */
NOINLINE void view(void)
{
	void (*old)(int);

	printf("SIGINT: %s, SIGPIPE: %s\n", action(SIGINT), action(SIGPIPE));
	old = signal(SIGTERM, SIG_IGN); /* save, ignore for a while, restore */
	printf("signal(SIGTERM) was %s\n", old == SIG_DFL ? "default" : "something else");
	raise(SIGTERM);
	printf("SIGTERM ignored: %s\n", action(SIGTERM));
	signal(SIGTERM, old);
	printf("SIGTERM restored: %s\n", action(SIGTERM));
	details("SIGTERM restored", SIGTERM);
	{
		struct sigaction dfl;

		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		dfl.sa_flags = SA_RESTART;
		sigemptyset(&dfl.sa_mask);
		sigaddset(&dfl.sa_mask, SIGKILL); /* no mask holds it */
		sigaddset(&dfl.sa_mask, SIGUSR1);
		sigaction(SIGPIPE, &dfl, NULL);
		details("SIGPIPE default with a mask", SIGPIPE);
	}
	old = ssignal(SIGINT, SIG_IGN); /* signal's SVID name */
	printf("ssignal(SIGINT) was %s\n", old == SIG_DFL ? "default" : "something else");
	ssignal(SIGINT, old);
	old = sysv_signal(SIGHUP, note);
	printf("sysv_signal(SIGHUP) was %s, now %s\n", old == SIG_DFL ? "default" : "something else",
	       action(SIGHUP));
	old = sysv_signal(SIGHUP, SIG_DFL);
	printf("sysv_signal(SIGHUP) was %s, now %s\n", old == note ? "note" : "something else",
	       action(SIGHUP));
	details("SIGHUP after sysv_signal", SIGHUP);
	printf("signal(SIGALRM, SIG_ERR): %s\n", signal(SIGALRM, SIG_ERR) == SIG_ERR ? "error" : "taken");
	/* siginterrupt(sig, 1): glibc's signal leaves out SA_RESTART from then
	 * on, for the default action too; and it changes the flags of the
	 * action in place, which the program then sees.  (Deprecated, still
	 * in use.) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	siginterrupt(SIGUSR1, 1);
	details("SIGUSR1 default, interrupting", SIGUSR1);
	signal(SIGUSR1, SIG_DFL);
	details("SIGUSR1 signal(SIG_DFL) after siginterrupt", SIGUSR1);
	signal(SIGUSR1, note);
	details("SIGUSR1 signal(note) after siginterrupt", SIGUSR1);
	siginterrupt(SIGUSR1, 0);
	details("SIGUSR1 note, restarting", SIGUSR1);
	signal(SIGUSR1, SIG_DFL);
	details("SIGUSR1 signal(SIG_DFL), restarting", SIGUSR1);
	siginterrupt(SIGUSR1, 1);
	details("SIGUSR1 default, interrupting again", SIGUSR1);
	siginterrupt(SIGRTMIN + 3, 1); /* a signal the runtime leaves alone */
	signal(SIGRTMIN + 3, SIG_DFL);
	details("SIGRTMIN+3 after siginterrupt", SIGRTMIN + 3);
	printf("siginterrupt(0, 1): %d\n", siginterrupt(0, 1));
#pragma GCC diagnostic pop
	work(SIGTERM);
}

NOINLINE void on_segv(int sig)
{
	printf("caught %d, dying by it\n", sig);
	signal(sig, SIG_DFL);
}

/* Counts to 20 and no further: a tick that lands after spin's loop ends,
 * before main ignores the signal (a loaded machine), must not change what
 * the program prints. */
NOINLINE void on_alarm(int sig)
{
	(void)sig;
	if (ticks >= 20)
		return;
	in_handler();
	ticks++;
}

NOINLINE void spin(int depth)
{
	n_spin++;
	if (depth > 0) {
		spin(depth - 1);
		return;
	}
	while (ticks < 20)
		sink++;
}

NOINLINE void wait_here(void)
{
	printf("waiting %ld\n", (long)getpid());
	while (!caught)
		pause();
	printf("clean exit after %d\n", (int)caught);
	exit(0);
}

static volatile sig_atomic_t ints;

static void count_int(int sig)
{
	(void)sig;
	ints++;
}

NOINLINE void count_ints(void)
{
	struct timespec rest = { 0, 300000000 };

	signal(SIGINT, count_int);
	printf("waiting %ld\n", (long)getpid());
	while (!ints)
		pause();
	while (nanosleep(&rest, &rest) != 0)
		;
	printf("SIGINT %d times\n", (int)ints);
	exit(0);
}

NOINLINE void sleep_once(void)
{
	struct timespec rest = { 1, 500000000 };

	printf("waiting %ld\n", (long)getpid());
	fflush(stdout);
	printf("%s\n", nanosleep(&rest, NULL) == 0 ? "slept" : "interrupted");
	exit(0);
}

static volatile sig_atomic_t usr1s;

static void count_usr1(int sig)
{
	(void)sig;
	usr1s++;
}

NOINLINE void make_orphans(void)
{
	struct timespec now, end;

	signal(SIGUSR1, count_usr1);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += 3;
	printf("waiting %ld\n", (long)getpid());
	fflush(stdout);
	do {
		pid_t c = fork();

		if (c == 0) {
			if (fork() == 0)
				_exit(0);
			_exit(0);
		}
		if (c > 0)
			while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
				;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	printf("USR1 %d\n", (int)usr1s);
	exit(0);
}

NOINLINE void fork_wait(void)
{
	int status;
	pid_t child = fork();

	if (child == 0)
		wait_here();
	if (child < 0 || waitpid(child, &status, 0) != child)
		exit(2);
	if (WIFSIGNALED(status))
		printf("child died by %d\n", WTERMSIG(status));
	exit(0);
}

NOINLINE void stop_here(int sig)
{
	printf("stopping %ld\n", (long)getpid());
	raise(sig);
	printf("resumed\n");
	exit(4);
}

static pthread_barrier_t started;

/* stderr to a pipe whose reader is gone. */
static void stderr_nowhere(void)
{
	int fd[2];

	if (pipe(fd) == 0) {
		dup2(fd[1], 2);
		close(fd[0]);
		close(fd[1]);
	}
}

NOINLINE void *ask(void *arg)
{
	struct sigaction sa;

	for (;;)
		sigaction(SIGINT, NULL, &sa);
	return arg;
}

/* Each child must end at once: one that hangs (in a lock the fork
 * copied taken) is killed after 5 s, and no more are made. */
NOINLINE void forks(void)
{
	pthread_t t;
	int i, status = 0;

	pthread_create(&t, NULL, ask, NULL);
	for (i = 0; i < 300; i++) {
		struct sigaction sa;
		pid_t pid = fork();
		int waited;

		if (pid == 0) {
			sigaction(SIGINT, NULL, &sa);
			_exit(0);
		}
		for (waited = 0; waited < 5000 && waitpid(pid, &status, WNOHANG) == 0; waited++)
			usleep(1000);
		if (waited == 5000) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			printf("child %d hung\n", i);
			return;
		}
	}
	printf("%d children ended\n", i);
}

NOINLINE void *idle(void *arg)
{
	pthread_barrier_wait(&started);
	for (;;)
		pause();
	return arg;
}


static const struct {
	const char *how;
	int sig;
} raised[] = {
	{ "pipe", SIGPIPE }, { "hup", SIGHUP },       { "alrm", SIGALRM }, { "quit", SIGQUIT },
	{ "usr1", SIGUSR1 }, { "vtalrm", SIGVTALRM }, { "xcpu", SIGXCPU }, { "xfsz", SIGXFSZ },
};

static int raised_signal(const char *how)
{
	size_t i;

	for (i = 0; i < sizeof raised / sizeof *raised; i++)
		if (strcmp(how, raised[i].how) == 0)
			return raised[i].sig;
	return strcmp(how, "rt") == 0 ? SIGRTMIN + 2 : 0;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "segv";
	struct rlimit no_core = { 0, 0 };

	setvbuf(stdout, NULL, _IONBF, 0);
	setrlimit(RLIMIT_CORE, &no_core); /* SIGQUIT, SIGXCPU... dump core */
	printf("start %s\n", how);
	if (strcmp(how, "term") == 0)
		work(SIGTERM);
	else if (strcmp(how, "int") == 0)
		work(SIGINT);
	else if (strcmp(how, "handled") == 0) {
		signal(SIGINT, on_int);
		work(SIGINT);
	} else if (strcmp(how, "reraise") == 0) {
		struct sigaction sa;

		memset(&sa, 0, sizeof sa);
		sa.sa_handler = note;
		sigaction(SIGINT, &sa, NULL);
		work(SIGINT);
		clean_up();
	} else if (raised_signal(how)) {
		work(raised_signal(how));
	} else if (strcmp(how, "view") == 0) {
		view();
	} else if (strcmp(how, "segvreraise") == 0) {
		signal(SIGSEGV, on_segv);
		level2("segv");
	} else if (strcmp(how, "wait") == 0) {
		wait_here();
	} else if (strcmp(how, "waitexit") == 0) {
		signal(SIGTERM, note);
		wait_here();
	} else if (strcmp(how, "orphans") == 0) {
		make_orphans();
	} else if (strcmp(how, "forkwait") == 0) {
		fork_wait();
	} else if (strcmp(how, "sleepone") == 0) {
		sleep_once();
	} else if (strcmp(how, "countint") == 0) {
		count_ints();
	} else if (strcmp(how, "stop") == 0 || strcmp(how, "tstp") == 0) {
		stop_here(how[0] == 's' ? SIGSTOP : SIGTSTP);
	} else if (strcmp(how, "threads") == 0) {
		pthread_t t;

		pthread_barrier_init(&started, NULL, 3);
		for (int i = 0; i < 2; i++)
			pthread_create(&t, NULL, idle, NULL);
		pthread_barrier_wait(&started);
		wait_here();
	} else if (strcmp(how, "segvpipe") == 0) {
		stderr_nowhere();
		level2("segv");
	} else if (strcmp(how, "endpipe") == 0) {
		stderr_nowhere();
		work(0);
	} else if (strcmp(how, "altterm") == 0 || strcmp(how, "altabort") == 0 ||
		   strcmp(how, "altsegv") == 0) {
		static char alt[8192];
		stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt };

		sigaltstack(&ss, NULL);
		if (strcmp(how, "altterm") == 0)
			work(SIGTERM);
		else
			level2(how + 3); /* abort, segv */
	} else if (strcmp(how, "overflow") == 0) {
		printf("overflowing\n");
		fflush(stdout);
		return deeper(0);
	} else if (strcmp(how, "onstack") == 0) {
		struct sigaction sa;

		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_usr1_onstack;
		sa.sa_flags = SA_ONSTACK;
		sigaction(SIGUSR1, &sa, NULL);
		raise(SIGUSR1);
		printf("handled %d\n", onstack_sum);
		return 0;
	} else if (strcmp(how, "altoff") == 0) {
		static char alt[65536];
		stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt }, off = { .ss_flags = SS_DISABLE };

		sigaltstack(&ss, NULL);
		sigaltstack(&off, NULL);
		printf("overflowing\n");
		fflush(stdout);
		return deeper(0);
	} else if (strcmp(how, "alt4k") == 0 || strcmp(how, "alt2k") == 0) {
		char *p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		size_t size = how[3] == '4' ? 4096 : 2048;
		stack_t ss = { .ss_sp = p + 2 * 4096 - size, .ss_size = size };

		if (p == MAP_FAILED || mprotect(p, 4096, PROT_NONE) != 0 ||
		    sigaltstack(&ss, NULL) != 0) {
			perror("signals: alt4k/alt2k");
			return 1;
		}
		printf("overflowing\n");
		fflush(stdout);
		return deeper(0);
	} else if (strcmp(how, "threadownalt") == 0) {
		pthread_t t;

		printf("overflowing\n");
		fflush(stdout);
		pthread_create(&t, NULL, own_alt_thread, NULL);
		pthread_join(t, NULL);
	} else if (strcmp(how, "threadalt") == 0) {
		pthread_t t;

		pthread_create(&t, NULL, altview_thread, NULL);
		pthread_join(t, NULL);
		for (int i = 0; i < 20; i++) {
			pthread_create(&t, NULL, short_thread, NULL);
			pthread_join(t, NULL);
		}
		printf("%d short calls\noverflowing\n", short_calls);
		fflush(stdout);
		pthread_create(&t, NULL, overflow_thread, NULL);
		pthread_join(t, NULL);
	} else if (strcmp(how, "threadoverflow") == 0) {
		pthread_t t;

		printf("overflowing\n");
		fflush(stdout);
		pthread_create(&t, NULL, overflow_thread, NULL);
		pthread_join(t, NULL);
	} else if (strcmp(how, "altview") == 0) {
		altview();
		return 0;
	} else if (strcmp(how, "altdisarm") == 0) {
		static char alt[8192];
		stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt, .ss_flags = SS_AUTODISARM };

		if (sigaltstack(&ss, NULL) == 0)
			level2("segv");
		printf("no SS_AUTODISARM here\n");
	} else if (strcmp(how, "vforkterm") == 0) {
		int status;
		pid_t pid = vfork();

		if (pid == 0) {
			kill(getpid(), SIGTERM);
			_exit(1);
		}
		waitpid(pid, &status, 0);
		printf("child ended by signal %d\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
		work(SIGTERM);
	} else if (strcmp(how, "forks") == 0) {
		forks();
	} else if (strcmp(how, "usr2") == 0) {
		work(SIGUSR2);
	} else if (strcmp(how, "nested") == 0) {
		struct itimerval it = { { 0, 2000 }, { 0, 2000 } };

		signal(SIGALRM, on_alarm);
		setitimer(ITIMER_REAL, &it, NULL);
		spin(50);
		signal(SIGALRM, SIG_IGN);
		printf("ticks %d\n", (int)ticks);
		printf("calls main 1\ncalls spin %lu\ncalls in_handler %lu\n", n_spin, n_in_handler);
	} else {
		level2(how);
	}
	printf("end\n");
	return 0;
}
