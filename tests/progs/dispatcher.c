/*
 * dispatcher.c - call patterns for the inline cache and the thread cache
 * (Note [Slots without judgement] in src/runtime/machine.c): scatter()
 * calls 16 functions through a table in pseudo-random order, so its two
 * slots catch about one lookup in eight and the thread cache the rest;
 * bursts() calls 3 functions in long runs of each; mixed() does one and
 * then the other.  (Until session 51 the slots judged themselves, and
 * scatter's ended bypassed.)  Prints what it called, for the exact
 * counts: "arc CALLER CALLEE N" and "calls F N".  Mode storm runs both
 * under a timer signal whose handler calls one of the 16 from whatever
 * context it interrupted, so that handlers land inside the hooks'
 * lookups and the slow path; it prints "handled N", "handler F N" (the
 * calls of F the handler made, included in "calls F N") and no arcs
 * (the handler's calls add arcs from the interrupted function).
 *
 * Usage: dispatcher [ROUNDS [both|scatter|bursts|recover|storm]]
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define NF 16

static unsigned long called[NF];

#define F(i) \
	__attribute__((noinline)) static void f##i(void) \
	{ \
		__atomic_fetch_add(&called[i], 1, __ATOMIC_RELAXED); /* one \
			instruction: a handler's call cannot split it */ \
		__asm__ __volatile__(""); \
	}
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7)
F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15)

static void (*const table[NF])(void) = {
	f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15,
};

static unsigned long from_scatter[NF], from_bursts[NF], from_mixed[NF];

static unsigned long rng = 12345;

/* Helpers are not instrumented: the arcs printed are all the arcs there
 * are, and the calls they make are their caller's (no context of their
 * own). */
__attribute__((no_instrument_function)) static unsigned random_callee(void)
{
	rng = rng * 6364136223846793005ul + 1442695040888963407ul;
	return (unsigned)(rng >> 60);
}

/* n calls of the 16, in pseudo-random order, counted in from[]. */
__attribute__((no_instrument_function)) static void call_at_random(unsigned long n,
								    unsigned long *from)
{
	for (unsigned long i = 0; i < n; i++) {
		unsigned k = random_callee();

		from[k]++;
		table[k]();
	}
}

/* rounds of: `run` calls of f0, then of f1, then of f2. */
__attribute__((no_instrument_function)) static void call_in_bursts(unsigned rounds, unsigned run,
								    unsigned long *from)
{
	for (unsigned i = 0; i < rounds; i++)
		for (unsigned k = 0; k < 3; k++)
			for (unsigned j = 0; j < run; j++) {
				from[k]++;
				table[k]();
			}
}

__attribute__((noinline)) static void scatter(unsigned long n)
{
	call_at_random(n, from_scatter);
}

__attribute__((noinline)) static void bursts(unsigned rounds, unsigned run)
{
	call_in_bursts(rounds, run, from_bursts);
}

/* Both patterns from one context: it must come back to its slots. */
__attribute__((noinline)) static void mixed(unsigned long n, unsigned rounds, unsigned run)
{
	call_at_random(n, from_mixed);
	call_in_bursts(rounds, run, from_mixed);
}

__attribute__((no_instrument_function)) static void arcs(const char *caller, const unsigned long *from)
{
	for (int k = 0; k < NF; k++)
		if (from[k])
			printf("arc %s f%d %lu\n", caller, k, from[k]);
}

static volatile sig_atomic_t handled;
static unsigned long by_handler[NF];

__attribute__((no_instrument_function)) static void on_alarm(int sig)
{
	static unsigned long r = 777;

	(void)sig;
	r = r * 6364136223846793005ul + 1442695040888963407ul;
	by_handler[r >> 60]++;
	table[r >> 60]();
	handled++;
}

__attribute__((no_instrument_function)) static void storm(int on)
{
	struct itimerval it = {{0, on ? 50 : 0}, {0, on ? 50 : 0}};

	if (on)
		signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
}

int main(int argc, char **argv)
{
	/* strtoul, not atoi: glibc inlines atoi, and clang then hooks it */
	unsigned rounds = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 20;
	const char *mode = argc > 2 ? argv[2] : "both";
	int st = !strcmp(mode, "storm");
	int s = st || !strcmp(mode, "both") || !strcmp(mode, "scatter");
	int b = st || !strcmp(mode, "both") || !strcmp(mode, "bursts");
	int m = !strcmp(mode, "recover");

	if (!s && !b && !m) {
		fprintf(stderr, "usage: dispatcher [ROUNDS [both|scatter|bursts|recover|storm]]\n");
		return 2;
	}
	if (st)
		storm(1);
	if (s)
		scatter(15000ul * rounds);
	if (b)
		bursts(rounds, 3000);
	if (m)
		mixed(15000ul * rounds, 3 * rounds, 3000);
	if (st) {
		storm(0);
		for (int k = 0; k < NF; k++)
			printf("calls f%d %lu\nhandler f%d %lu\n", k, called[k], k, by_handler[k]);
		printf("handled %ld\n", (long)handled);
		return 0;
	}
	printf("calls main 1\n");
	if (s)
		printf("arc main scatter 1\ncalls scatter 1\n");
	if (b)
		printf("arc main bursts 1\ncalls bursts 1\n");
	if (m)
		printf("arc main mixed 1\ncalls mixed 1\n");
	for (int k = 0; k < NF; k++)
		printf("calls f%d %lu\n", k, called[k]);
	arcs("scatter", from_scatter);
	arcs("bursts", from_bursts);
	arcs("mixed", from_mixed);
	return 0;
}
