/* A generator made with makecontext, resumed by swapcontext from two
 * places in turn: first_half() resumes it N times, then second_half()
 * N + 1 times, the last letting numbers() end.  Each step() yields, and
 * after it is resumed calls tally(), and in the second half burn(), about
 * 1 ms of CPU.  ccprof should show the generator's frames under whoever
 * resumed it while they ran (Note [One shadow stack a stack] in
 * src/runtime/stacks.c): burn()'s time under second_half alone.
 *
 * argv[1]:
 *   two      as above, on the main thread; numbers() ends by returning to
 *            its uc_link
 *   set      the same, but numbers() ends by setcontext
 *   inside   the same, the generator's stack a buffer in main's frame,
 *            inside the main thread's own stack
 *   threads  first_half on one thread, second_half on another, after the
 *            first ended: the generator moves between threads
 *   many     GENS generators alive at once, each resumed ROUNDS times in
 *            turn by many_rounds(), then each let finish; with a second
 *            argument `fork`, then a child forked that calls after_end()
 *            and ends, and "child PID" printed (its profile's memory is
 *            its own)
 *   pool     4 stacks reused by TASKS tasks, each left for good at its
 *            first yield (a task cancelled); prints whether the address
 *            space grew by less than 256 MB (Note [Coroutines abandoned])
 *   threadpool  THREADS threads one after another, each running a task on
 *            a malloc'd stack to its first yield, then freeing the stack
 *            and ending; prints whether the address space grew by less
 *            than 256 MB
 *   ulink    ulink_round() starts UNSEEN coroutines by start_one(); each
 *            returns to a uc_link saved by getcontext in ulink_round
 *   jump     jump_round() resumes a coroutine that yields once, then
 *            longjmps back to jump_round's setjmp; JUMPS times
 *   pipe     pipe_consume() pulls N values from a generator filter(),
 *            which pulls each from a generator source() and burns 1 ms
 *   plain    a thread whose own functions are not instrumented resumes
 *            the generator to its end: its first instrumented call is on
 *            the generator's stack
 *   preempt  PTASKS tasks, each calling through 64 functions, switched by
 *            a 50 us timer's handler (preemptive green threads): the
 *            slow path is often interrupted by a switch to another task
 * Then main calls after_end(), which must be main's own call. */
#include <pthread.h>
#include <setjmp.h>
#include <sys/wait.h>
#include <unistd.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define N 200
#define GENS 300
#define ROUNDS 20
#define STACK (64 * 1024)
#define TASKS 2000
#define THREADS 300
#define UNSEEN 100
#define JUMPS 10

struct gen {
	ucontext_t ctx, caller;
	int value, finished;
	char *stack;
};

static struct gen one;
static int in_second, end_by_set;
static volatile unsigned long sink;
static unsigned long n_first, n_second, n_resume, n_numbers, n_step, n_yield, n_tally, n_burn,
	n_after, n_many, n_task, n_start, n_body, n_ulink, n_failing, n_fail, n_jump, n_source,
	n_filter, n_pipe;
static __thread struct gen *running; /* the generator this thread resumed */

__attribute__((noinline)) void burn(void)
{
	n_burn++;
	for (unsigned long i = 0; i < 3200000; i++)
		sink += i * i;
}

__attribute__((noinline)) void tally(void)
{
	n_tally++;
}

__attribute__((noinline)) void yield_value(struct gen *g, int v)
{
	n_yield++;
	g->value = v;
	swapcontext(&g->ctx, &g->caller);
}

__attribute__((noinline)) void step(struct gen *g, int i)
{
	n_step++;
	yield_value(g, i);
	tally();
	if (in_second)
		burn();
}

__attribute__((noinline)) void numbers(void)
{
	struct gen *g = running;
	int count = g == &one ? 2 * N : ROUNDS;

	n_numbers++;
	for (int i = 0; i < count; i++)
		step(running, i); /* `running`: the thread resuming it now */
	running->finished = 1;
	if (end_by_set)
		setcontext(&running->caller);
}

__attribute__((noinline)) int resume_gen(struct gen *g)
{
	n_resume++;
	running = g;
	swapcontext(&g->caller, &g->ctx);
	return g->value;
}

/* g made to run fn on `stack` (a new one if NULL), returning to link. */
static void gen_make(struct gen *g, char *stack, void (*fn)(void), ucontext_t *link)
{
	g->stack = stack != NULL ? stack : malloc(STACK);
	g->finished = 0;
	if (g->stack == NULL || getcontext(&g->ctx) != 0)
		exit(2);
	g->ctx.uc_stack.ss_sp = g->stack;
	g->ctx.uc_stack.ss_size = STACK;
	g->ctx.uc_link = link;
	makecontext(&g->ctx, fn, 0);
}

static void gen_init(struct gen *g, char *stack)
{
	gen_make(g, stack, numbers, &g->caller);
}

__attribute__((noinline)) void first_half(void)
{
	n_first++;
	for (int i = 0; i < N; i++)
		resume_gen(&one);
}

__attribute__((noinline)) void second_half(void)
{
	n_second++;
	in_second = 1;
	while (!one.finished)
		resume_gen(&one);
}

__attribute__((noinline)) void after_end(void)
{
	n_after++;
}

static void *first_thread(void *arg)
{
	(void)arg;
	first_half();
	return NULL;
}

static void *second_thread(void *arg)
{
	(void)arg;
	second_half();
	return NULL;
}

__attribute__((noinline)) void many_rounds(struct gen *gens)
{
	n_many++;
	for (int r = 0; r <= ROUNDS; r++)
		for (int k = 0; k < GENS; k++)
			if (!gens[k].finished)
				resume_gen(&gens[k]);
}

/* pool */
static struct gen pool[4];
static char pool_stacks[4][STACK];

__attribute__((noinline)) void task_body(void)
{
	n_task++;
	yield_value(running, 0); /* never resumed: cancelled */
}

__attribute__((noinline)) void pool_round(void)
{
	for (int i = 0; i < TASKS; i++) {
		gen_make(&pool[i % 4], pool_stacks[i % 4], task_body, NULL);
		resume_gen(&pool[i % 4]);
	}
}

static long address_space_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f != NULL && fgets(line, sizeof line, f))
		if (strncmp(line, "VmSize:", 7) == 0)
			kb = atol(line + 7);
	if (f != NULL)
		fclose(f);
	return kb;
}

/* threadpool */
__attribute__((noinline)) void *one_task(void *arg)
{
	struct gen g;

	(void)arg;
	gen_make(&g, NULL, task_body, NULL);
	resume_gen(&g);
	free(g.stack); /* the task is dropped */
	return NULL;
}

/* ulink */
static ucontext_t unseen_return;

__attribute__((noinline)) void body(void)
{
	n_body++;
}

__attribute__((noinline)) void start_one(struct gen *g)
{
	n_start++;
	swapcontext(&g->caller, &g->ctx);
}

__attribute__((noinline)) void ulink_round(void)
{
	static struct gen g;
	volatile int i = 0, started;

	n_ulink++;
	while (i < UNSEEN) {
		started = 0;
		getcontext(&unseen_return); /* body returns here */
		if (!started) {
			started = 1;
			gen_make(&g, g.stack, body, &unseen_return);
			start_one(&g);
		}
		i = i + 1;
	}
}

/* jump */
static jmp_buf on_error;

__attribute__((noinline)) void fail(void)
{
	n_fail++;
	longjmp(on_error, 1);
}

__attribute__((noinline)) void failing(void)
{
	n_failing++;
	yield_value(running, 0);
	fail();
}

__attribute__((noinline)) void jump_round(void)
{
	n_jump++;
	if (setjmp(on_error) == 0) {
		gen_make(&one, one.stack, failing, &one.caller);
		resume_gen(&one);
		resume_gen(&one);
	}
}

/* pipe */
static struct gen source_gen, filter_gen;

__attribute__((noinline)) void source(void)
{
	for (int k = 0;; k++) {
		n_source++;
		yield_value(&source_gen, k);
	}
}

__attribute__((noinline)) void filter(void)
{
	for (;;) {
		int v = resume_gen(&source_gen);

		n_filter++;
		burn();
		yield_value(&filter_gen, v);
	}
}

__attribute__((noinline)) void pipe_consume(void)
{
	n_pipe++;
	for (int i = 0; i < N; i++)
		resume_gen(&filter_gen);
}

/* plain */
__attribute__((no_instrument_function, noinline)) static void *plain_thread(void *arg)
{
	(void)arg;
	running = &one;
	while (!one.finished)
		swapcontext(&one.caller, &one.ctx);
	return NULL;
}

/* preempt */
#define PTASKS 4
#define PROUNDS 200000
static ucontext_t psched, ptask[PTASKS];
static volatile int pcur = -1, pdone[PTASKS];
static unsigned long p_leaf[PTASKS];
static void (*const pfs[64])(int, int);

__attribute__((noinline)) void pleaf(int i)
{
	p_leaf[i]++;
}

#define PF(n)                                                     \
	__attribute__((noinline)) static void pf##n(int i, int d) \
	{                                                         \
		if (d)                                            \
			pfs[(n * 7 + d) % 64](i, d - 1);          \
		else                                              \
			pleaf(i);                                 \
	}
#define X8(M, b) M(b##0) M(b##1) M(b##2) M(b##3) M(b##4) M(b##5) M(b##6) M(b##7)
#define X64(M) X8(M, 1) X8(M, 2) X8(M, 3) X8(M, 4) X8(M, 5) X8(M, 6) X8(M, 7) X8(M, 8)
X64(PF)
#define PADDR(n) pf##n,
static void (*const pfs[64])(int, int) = { X64(PADDR) };

__attribute__((noinline)) void ptask_body(int i)
{
	for (int r = 0; r < PROUNDS; r++)
		pfs[(r * 13 + i) % 64](i, 3);
	pdone[i] = 1;
}

__attribute__((no_instrument_function)) static void ptask_start(int i)
{
	sigset_t alarm;

	sigemptyset(&alarm);
	sigaddset(&alarm, SIGALRM);
	sigprocmask(SIG_UNBLOCK, &alarm, NULL);
	ptask_body(i);
}

__attribute__((no_instrument_function)) static void on_tick(int sig)
{
	(void)sig;
	if (pcur >= 0)
		swapcontext(&ptask[pcur], &psched);
}

__attribute__((noinline)) void preempt_schedule(void)
{
	for (int left = PTASKS; left;) {
		left = 0;
		for (int i = 0; i < PTASKS; i++)
			if (!pdone[i]) {
				left++;
				pcur = i;
				swapcontext(&psched, &ptask[i]);
				pcur = -1;
			}
	}
}

static void preempt(void)
{
	struct sigaction sa;
	struct sigevent ev;
	struct itimerspec every = { { 0, 50000 }, { 0, 50000 } }, off;
	sigset_t alarm;
	timer_t timer;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_tick;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&alarm);
	sigaddset(&alarm, SIGALRM);
	for (int i = 0; i < PTASKS; i++) {
		getcontext(&ptask[i]);
		ptask[i].uc_stack.ss_sp = malloc(256 * 1024);
		ptask[i].uc_stack.ss_size = 256 * 1024;
		ptask[i].uc_link = &psched;
		sigaddset(&ptask[i].uc_sigmask, SIGALRM);
		makecontext(&ptask[i], (void (*)(void))ptask_start, 1, i);
	}
	sigprocmask(SIG_BLOCK, &alarm, NULL); /* only the tasks take it */
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGALRM;
	timer_create(CLOCK_MONOTONIC, &ev, &timer);
	timer_settime(timer, 0, &every, NULL);
	preempt_schedule();
	memset(&off, 0, sizeof off);
	timer_settime(timer, 0, &off, NULL);
	timer_delete(timer);
	for (int i = 0; i < PTASKS; i++)
		printf("task %d: %lu leaves\n", i, p_leaf[i]);
}

static int other_mode(const char *mode)
{
	pthread_t t;
	long before;

	if (strcmp(mode, "pool") == 0) {
		before = address_space_kb();
		pool_round();
		printf("address space grew by %s than 256 MB\n",
		       address_space_kb() - before < 256 * 1024 ? "less" : "more");
		printf("calls task_body %lu\n", n_task);
	} else if (strcmp(mode, "threadpool") == 0) {
		before = address_space_kb();
		for (int i = 0; i < THREADS; i++) {
			pthread_create(&t, NULL, one_task, NULL);
			pthread_join(t, NULL);
		}
		printf("address space grew by %s than 256 MB\n",
		       address_space_kb() - before < 256 * 1024 ? "less" : "more");
		printf("calls one_task %lu\ncalls task_body %lu\n", n_task, n_task);
	} else if (strcmp(mode, "ulink") == 0) {
		ulink_round();
		printf("calls ulink_round %lu\ncalls start_one %lu\ncalls body %lu\n", n_ulink,
		       n_start, n_body);
	} else if (strcmp(mode, "jump") == 0) {
		for (int k = 0; k < JUMPS; k++)
			jump_round();
		printf("calls jump_round %lu\ncalls failing %lu\ncalls fail %lu\n", n_jump,
		       n_failing, n_fail);
	} else if (strcmp(mode, "pipe") == 0) {
		gen_make(&source_gen, NULL, source, NULL);
		gen_make(&filter_gen, NULL, filter, NULL);
		pipe_consume();
		printf("calls pipe_consume %lu\ncalls filter 1\ncalls source 1\ncalls burn %lu\n"
		       "values %lu, filtered %lu\n",
		       n_pipe, n_burn, n_source, n_filter);
	} else if (strcmp(mode, "preempt") == 0) {
		preempt();
	} else if (strcmp(mode, "plain") == 0) {
		gen_init(&one, NULL);
		pthread_create(&t, NULL, plain_thread, NULL);
		pthread_join(t, NULL);
	} else {
		return 0;
	}
	return 1;
}

/* "calls NAME N", for the functions this run called. */
static void print_calls(const char *name, unsigned long n)
{
	if (n)
		printf("calls %s %lu\n", name, n);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "two";
	char inside[STACK];
	pthread_t t;

	if (other_mode(mode)) {
		/* printed there */
	} else if (strcmp(mode, "many") == 0) {
		static struct gen gens[GENS];

		for (int k = 0; k < GENS; k++)
			gen_init(&gens[k], NULL);
		many_rounds(gens);
		printf("calls many_rounds %lu\n", n_many);
		if (argc > 2 && strcmp(argv[2], "fork") == 0) {
			pid_t pid;

			fflush(stdout);
			if ((pid = fork()) == 0) {
				after_end(); /* a call: a child that makes none writes no profile */
				exit(0);
			}
			printf("child %ld\n", (long)pid);
			waitpid(pid, NULL, 0);
		}
	} else {
		end_by_set = strcmp(mode, "set") == 0;
		gen_init(&one, strcmp(mode, "inside") == 0 ? inside : NULL);
		if (strcmp(mode, "threads") == 0) {
			pthread_create(&t, NULL, first_thread, NULL);
			pthread_join(t, NULL);
			pthread_create(&t, NULL, second_thread, NULL);
			pthread_join(t, NULL);
		} else {
			first_half();
			second_half();
		}
		printf("calls first_half %lu\ncalls second_half %lu\ncalls burn %lu\n", n_first,
		       n_second, n_burn);
	}
	after_end();
	print_calls("resume_gen", n_resume);
	print_calls("numbers", n_numbers);
	print_calls("step", n_step);
	print_calls("yield_value", n_yield);
	print_calls("tally", n_tally);
	print_calls("after_end", n_after);
	return 0;
}
