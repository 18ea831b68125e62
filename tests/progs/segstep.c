/* A signal handler that runs instrumented code at every instruction of a
 * call made where the shadow stack's first segment ends (Note [Shadow
 * stack segments] in src/runtime/runtime.h).  main dives DEPTH - OFFSET
 * - 1 levels, then, round k, calls y, which single-steps (x86 trap flag)
 * through a call of x, and at its k-th instruction the SIGTRAP handler
 * calls h_k (new: the slow path), x, and r(3), whose frames go on into
 * the next segment when the interrupted hook left the first one full.
 * x's entry, OFFSET 0: the first of the next segment (the hook goes on
 * into it); 1: the first segment's last; 2: the one before, and r's
 * second frame goes on.  y's exit finds the link and pops back into the
 * first segment, so every round starts as the first did.  The shadow
 * stack used to be one mapping that grew with mremap, which could move
 * it under the interrupted hook: SIGSEGV.
 *
 *   segstep OFFSET        prints the counts the profile must show and
 *                         how many rounds the handler acted in
 *   segstep OFFSET fork   each stepped call in a child of its own
 *                         (round_in_child); prints "forked N crashed M" */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "repeat.h"

#if defined(__x86_64__)

#include "trapflag.h"

#define DEPTH 65535 /* the first segment's entries but its sentinel */
#define NA 400      /* rounds: instructions stepped, at most */
#define NH 512      /* the handler's functions: one new one per round */

static unsigned long nx, ny, nr, ndive;
static volatile unsigned steps_left, acted;

__attribute__((noinline)) void x(void) { nx++; __asm__ volatile(""); }
__attribute__((noinline)) void r(int more)
{
	nr++;
	if (more)
		r(more - 1);
	__asm__ volatile(""); /* not a tail call */
}

#define H(n) __attribute__((noinline)) void h##n(void) { __asm__ volatile(""); }
X256(H, 0) X256(H, 1)
#define PH(n) h##n,
static void (*const hs[NH])(void) = { X256(PH, 0) X256(PH, 1) };

/* Not instrumented itself: what it calls is called from the context the
 * trap interrupted. */
__attribute__((no_instrument_function)) static void on_trap(int sig, siginfo_t *si, void *uv)
{
	ucontext_t *uc = uv;

	(void)sig;
	(void)si;
	if (steps_left && --steps_left == 0) {
		hs[acted++ % NH]();
		x();
		r(3);
		uc->uc_mcontext.gregs[REG_EFL] &= ~TRAP_FLAG; /* done stepping */
	}
}

/* Round k: x called once to memoise its transition, then stepped. */
__attribute__((noinline)) void y(unsigned k, int stepped)
{
	ny++;
	if (!stepped) {
		x();
		return;
	}
	steps_left = k + 1;
	trap_flag(1);
	x();
	trap_flag(0);
	steps_left = 0;
}

static int forking;
static unsigned forked, crashed;

/* Round k in a child, which the parent waits for: the child's stack is
 * the parent's, the first segment full or nearly, its next one never
 * used, as in a process that has not been so deep before.  The child
 * says whether its handler acted in a shared page and ends by SIGKILL,
 * which writes no profile; any other end is a crash.  0 once a child's
 * handler did not act: k is past the call's last instruction. */
__attribute__((no_instrument_function)) static int round_in_child(unsigned k)
{
	static volatile unsigned *child_acted;
	pid_t pid;
	int status;

	if (child_acted == NULL &&
	    (child_acted = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				-1, 0)) == MAP_FAILED)
		exit(1);
	*child_acted = 0;
	if ((pid = fork()) == 0) {
		y(k, 1);
		*child_acted = acted;
		raise(SIGKILL);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		exit(1);
	forked++;
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
		crashed++;
		return 1;
	}
	return *child_acted != 0;
}

__attribute__((no_instrument_function)) static void rounds(void)
{
	for (unsigned k = 0; k < NA; k++) {
		y(k, 0);
		if (!forking)
			y(k, 1);
		else if (!round_in_child(k))
			break;
	}
}

__attribute__((noinline)) void dive(unsigned long n)
{
	ndive++;
	if (n > 1)
		dive(n - 1);
	else
		rounds();
	__asm__ volatile(""); /* not a tail call */
}

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	struct sigaction sa;
	unsigned long offset = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	forking = argc > 2 && strcmp(argv[2], "fork") == 0;
	dive(DEPTH - offset - 1);
	if (forking)
		printf("forked %u crashed %u\n", forked, crashed);
	else
		printf("calls dive %lu\ncalls y %lu\ncalls x %lu\ncalls r %lu\nhandled %u\n", ndive,
		       ny, nx, nr, acted);
	return 0;
}

#else

int main(void)
{
	puts("unsupported");
	return 0;
}

#endif
