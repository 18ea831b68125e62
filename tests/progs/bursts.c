/*
 * bursts.c - threads that work in short bursts and block in between, and
 * say how much CPU each part took (Note [CPU time where it ran] in
 * src/runtime/sampler.c).
 *
 *   bursts sleep N   main: N times, `burn` 0.4 ms of CPU, then `pause_for`
 *                    a 1.1 ms nanosleep
 *   bursts pipe N    a worker: N times, `wait_input` blocks in read(2) on a
 *                    pipe, then `handle` burns 0.4 ms; main's `feed`
 *                    writes a byte every 1.1 ms (nanosleep)
 *   bursts stages N  main: N requests, each after a 3 ms sleep in
 *                    `wait_request`: `parse` 0.3 ms, `compute` 1 ms,
 *                    `reply` 0.2 ms (the start of a burst, helper-123)
 *   bursts crowd N   N threads, each busy for 1.5 s: `alpha` 0.25 ms,
 *                    `beta` 0.75 ms in turn (on two CPUs each runs a
 *                    fraction of the time: Note [Too few hits])
 *   bursts pool N    N short threads, two at a time: each `task` 0.3 ms,
 *                    then `rest` in a 2 ms sleep (Note [Too few hits])
 *   bursts period N  main: N periods of exactly 1 ms (clock_nanosleep to
 *                    an absolute time), `first` burning 0.3 ms and
 *                    `second` 0.2 ms in each (Note [Samples out of step])
 *   bursts parked N  N threads, each `task` 0.3 ms, then `park` on a
 *                    condition variable for good; main exits after 200 ms
 *                    with them parked, so the profile is written while
 *                    they are in `park` (Note [Too few hits])
 *
 * Prints "FUNCTION NS" for each function named above: the CPU time its
 * thread's clock advanced while in it, measured around the part.  Then
 * "work-cpu NS" and "waited-for-cpu NS": the CPU the working parts took
 * (all but the blocking ones), and how much longer than that they took
 * in wall time, waiting for a CPU.  On a machine with more runnable
 * threads than CPUs the scheduler holds a thread back where it has had
 * its share, at the end of a burst, and clock=cpu's second looks charge
 * partly where a thread waits (Note [CPU time where it ran]).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned long long work_cpu_ns, work_wall_ns; /* summed over threads, atomically */

static unsigned long long now_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static unsigned long long now_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static volatile unsigned long sink;

__attribute__((noinline)) static void spin_until(unsigned long long end)
{
	while (now_cpu() < end)
		for (int i = 0; i < 200; i++)
			sink++;
}

__attribute__((noinline)) void burn(void)
{
	spin_until(now_cpu() + 400000);
}

__attribute__((noinline)) void pause_for(void)
{
	struct timespec ts = {0, 1100000};

	nanosleep(&ts, NULL);
}

static unsigned long long burn_ns, pause_ns, handle_ns, wait_ns, feed_ns, first_ns, second_ns;
static unsigned long long parse_ns, compute_ns, reply_ns, request_wait_ns;
static unsigned long long alpha_ns, beta_ns; /* summed over threads, atomically */
static unsigned long long crowd_end;
static unsigned long long task_ns, rest_ns; /* summed over threads, atomically */
static int pipefd[2];
static int rounds;

/* The part's CPU, added to *into. */
#define MEASURED(into, call)                                                                       \
	do {                                                                                       \
		unsigned long long t0_ = now_cpu();                                                \
		call;                                                                              \
		*(into) += now_cpu() - t0_;                                                        \
	} while (0)

static void worked(unsigned long long cpu, unsigned long long wall)
{
	__atomic_add_fetch(&work_cpu_ns, cpu, __ATOMIC_RELAXED);
	__atomic_add_fetch(&work_wall_ns, wall, __ATOMIC_RELAXED);
}

/* A working part: also counted in work-cpu and waited-for-cpu. */
#define WORKED(into, call)                                                                         \
	do {                                                                                       \
		unsigned long long w0_ = now_wall(), c0_ = now_cpu(), c_;                          \
		call;                                                                              \
		c_ = now_cpu() - c0_;                                                              \
		*(into) += c_;                                                                     \
		worked(c_, now_wall() - w0_);                                                      \
	} while (0)

__attribute__((noinline)) void first(void)
{
	spin_until(now_cpu() + 300000);
}

__attribute__((noinline)) void second(void)
{
	spin_until(now_cpu() + 200000);
}

__attribute__((noinline)) void parse(void)
{
	spin_until(now_cpu() + 300000);
}

__attribute__((noinline)) void compute(void)
{
	spin_until(now_cpu() + 1000000);
}

__attribute__((noinline)) void reply(void)
{
	spin_until(now_cpu() + 200000);
}

__attribute__((noinline)) void wait_request(void)
{
	struct timespec ts = {0, 3000000};

	nanosleep(&ts, NULL);
}

static void requests(void)
{
	for (int i = 0; i < rounds; i++) {
		MEASURED(&request_wait_ns, wait_request());
		WORKED(&parse_ns, parse());
		WORKED(&compute_ns, compute());
		WORKED(&reply_ns, reply());
	}
	printf("wait_request %llu\nparse %llu\ncompute %llu\nreply %llu\n", request_wait_ns, parse_ns,
	       compute_ns, reply_ns);
}

/* Burns ns of CPU and adds what it took to *into, which threads share. */
static void burn_into(unsigned long long ns, unsigned long long *into)
{
	unsigned long long w0 = now_wall(), t0 = now_cpu(), took;

	spin_until(t0 + ns);
	took = now_cpu() - t0;
	__atomic_add_fetch(into, took, __ATOMIC_RELAXED);
	worked(took, now_wall() - w0);
}

__attribute__((noinline)) void alpha(void)
{
	burn_into(250000, &alpha_ns);
}

__attribute__((noinline)) void beta(void)
{
	burn_into(750000, &beta_ns);
}

static void *crowd_member(void *arg)
{
	(void)arg;
	while (now_wall() < crowd_end) {
		alpha();
		beta();
	}
	return NULL;
}

__attribute__((noinline)) void task(void)
{
	burn_into(300000, &task_ns);
}

__attribute__((noinline)) void rest(void)
{
	unsigned long long t0 = now_cpu();
	struct timespec ts = {0, 2000000};

	nanosleep(&ts, NULL);
	__atomic_add_fetch(&rest_ns, now_cpu() - t0, __ATOMIC_RELAXED);
}

static void *pool_member(void *arg)
{
	(void)arg;
	task();
	rest();
	return NULL;
}

static int pool(void)
{
	for (int i = 0; i < rounds; i += 2) {
		pthread_t a, b;

		if (pthread_create(&a, NULL, pool_member, NULL) != 0 ||
		    pthread_create(&b, NULL, pool_member, NULL) != 0)
			return 2;
		pthread_join(a, NULL);
		pthread_join(b, NULL);
	}
	printf("task %llu\nrest %llu\n", task_ns, rest_ns);
	return 0;
}

static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

__attribute__((noinline)) void park(void)
{
	pthread_mutex_lock(&park_lock);
	for (;;)
		pthread_cond_wait(&never, &park_lock);
}

static void *parked_member(void *arg)
{
	(void)arg;
	task();
	park();
	return NULL;
}

static int parked(void)
{
	struct timespec ts = {0, 200000000};

	for (int i = 0; i < rounds; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, parked_member, NULL) != 0)
			return 2;
		pthread_detach(t);
	}
	nanosleep(&ts, NULL);
	printf("task %llu\n", task_ns);
	return 0;
}

static int crowd(void)
{
	pthread_t t[256];
	int n = rounds < 256 ? rounds : 256;

	crowd_end = now_wall() + 1500000000ull;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, crowd_member, NULL) != 0)
			return 2;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("alpha %llu\nbeta %llu\n", alpha_ns, beta_ns);
	return 0;
}

static void periods(void)
{
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (int i = 0; i < rounds; i++) {
		WORKED(&first_ns, first());
		WORKED(&second_ns, second());
		next.tv_nsec += 1000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) != 0)
			;
	}
	printf("first %llu\nsecond %llu\n", first_ns, second_ns);
}

__attribute__((noinline)) void handle(void)
{
	spin_until(now_cpu() + 400000);
}

__attribute__((noinline)) int wait_input(void)
{
	char c;

	return (int)read(pipefd[0], &c, 1);
}

__attribute__((noinline)) void feed(void)
{
	struct timespec ts = {0, 1100000};

	nanosleep(&ts, NULL);
	if (write(pipefd[1], "x", 1) != 1)
		exit(3);
}

static void *worker(void *arg)
{
	int got;

	(void)arg;
	for (;;) {
		MEASURED(&wait_ns, got = wait_input());
		if (got != 1)
			return NULL;
		WORKED(&handle_ns, handle());
	}
}

static void sleeps(void)
{
	for (int i = 0; i < rounds; i++) {
		WORKED(&burn_ns, burn());
		MEASURED(&pause_ns, pause_for());
	}
	printf("burn %llu\npause_for %llu\n", burn_ns, pause_ns);
}

static int piped(void)
{
	pthread_t t;

	if (pipe(pipefd) != 0 || pthread_create(&t, NULL, worker, NULL) != 0)
		return 2;
	for (int i = 0; i < rounds; i++)
		MEASURED(&feed_ns, feed());
	close(pipefd[1]);
	pthread_join(t, NULL);
	printf("handle %llu\nwait_input %llu\nfeed %llu\n", handle_ns, wait_ns, feed_ns);
	return 0;
}

static int run_mode(const char *mode)
{
	if (strcmp(mode, "sleep") == 0)
		return sleeps(), 0;
	if (strcmp(mode, "crowd") == 0)
		return crowd();
	if (strcmp(mode, "pool") == 0)
		return pool();
	if (strcmp(mode, "parked") == 0)
		return parked();
	if (strcmp(mode, "stages") == 0)
		return requests(), 0;
	if (strcmp(mode, "period") == 0)
		return periods(), 0;
	if (strcmp(mode, "pipe") == 0)
		return piped();
	return 2;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc != 3)
		return 2;
	rounds = atoi(argv[2]);
	rc = run_mode(argv[1]);
	if (rc == 0)
		printf("work-cpu %llu\nwaited-for-cpu %llu\n", work_cpu_ns,
		       work_wall_ns > work_cpu_ns ? work_wall_ns - work_cpu_ns : 0);
	return rc;
}
