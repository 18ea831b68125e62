/* A signal handler that runs instrumented code after every single
 * instruction of a call, one instruction further each round: round k
 * single-steps (x86 trap flag) through a call of a_k, and at the k-th
 * instruction its SIGTRAP handler calls, from the context it interrupted,
 * a function never called before (which takes the slow path and fills
 * that context's transition caches wherever the hooks are in reading
 * them), then a_k, b, c and d themselves (which enter the very contexts
 * whose counters the interrupted hook may be half-way through
 * incrementing).  Note [Cache reads] in hooks.c.
 *
 * Every a_k is called twice by main (once to memoise its transitions,
 * once stepped) and calls b, c and d(1); d(1) calls d(0), a direct
 * recursion (A1).  b misses the two-entry inline cache and goes to the
 * thread cache.  Prints the counts the profile must show, the handler's
 * calls included, and how many rounds the handler acted in.  */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#include "repeat.h"

#if defined(__x86_64__)

#include "trapflag.h"

#define NA 512 /* rounds: instructions stepped, at most */
#define NH 512 /* the handler's functions: one new one per round */

static unsigned long na, nb, nc, nd;
static volatile unsigned steps_left, acted, round_k;

__attribute__((noinline)) void b(void) { nb++; }
__attribute__((noinline)) void c(void) { nc++; }
__attribute__((noinline)) void d(int more)
{
	nd++;
	if (more)
		d(more - 1);
	__asm__ volatile(""); /* not a tail call */
}

#define A(n) __attribute__((noinline)) void a##n(void) { na++; b(); c(); d(1); }
#define H(n) __attribute__((noinline)) void h##n(void) { __asm__ volatile(""); }
X256(A, 0) X256(A, 1)
X256(H, 0) X256(H, 1)
#define PA(n) a##n,
#define PH(n) h##n,
static void (*const as[NA])(void) = { X256(PA, 0) X256(PA, 1) };
static void (*const hs[NH])(void) = { X256(PH, 0) X256(PH, 1) };

/* Not instrumented itself, so that the new function is called from the
 * context the trap interrupted. */
__attribute__((no_instrument_function)) static void on_trap(int sig, siginfo_t *si, void *uv)
{
	ucontext_t *uc = uv;

	(void)sig;
	(void)si;
	if (steps_left && --steps_left == 0) {
		hs[acted++ % NH]();
		as[round_k]();
		b();
		c();
		d(0);
		uc->uc_mcontext.gregs[REG_EFL] &= ~TRAP_FLAG; /* done stepping */
	}
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	for (unsigned k = 0; k < NA; k++) {
		as[k](); /* memoise [main] -> a_k and a_k's own calls */
		round_k = k;
		steps_left = k + 1;
		trap_flag(1);
		as[k]();
		trap_flag(0);
		steps_left = 0;
	}
	printf("calls a %lu\ncalls b %lu\ncalls c %lu\ncalls d %lu\nhandled %u\n", na, nb, nc,
	       nd, acted);
	return 0;
}

#else

int main(void)
{
	puts("unsupported");
	return 0;
}

#endif
