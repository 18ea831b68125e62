/* The inline cache's adaptation (Note [Adaptive inline cache] in
 * machine.c) interrupted at every one of its instructions by a signal
 * handler that makes a call from the context being adapted, as stepper.c
 * does for the lookups.
 *
 * Usage: adaptstep OFFSET SIZE, where OFFSET and SIZE are rt_cache_adapt's
 * in libccprof.so (`nm -S`; the test passes them).  A breakpoint (int3)
 * on its first instruction catches every run of it; the SIGTRAP handler
 * then takes the breakpoint out and single-steps (x86 trap flag) until
 * rt_cache_adapt returns, and after each instruction calls one of the
 * x_j from the interrupted context, which is the context being adapted:
 * that call reads the two slots while they are being rewritten and counts
 * towards the next window.  The first one, made before rt_cache_adapt has
 * reset the count, closes the window again, so a whole run of it nests in
 * the interrupted one.  Then the breakpoint goes back in.
 *
 * disp() calls one of 16 functions x_j, first in a random order, so that
 * its slots are bypassed, refilled, tried and bypassed again, then x0 and
 * x1 three times in four and a random other one the fourth, so that a
 * trial passes and the slots are used again: every branch of
 * rt_cache_adapt runs.  Every function counts its own calls, the
 * handler's included; the profile must show exactly these, less the calls
 * the runtime reports lost, which can only be the handler's.  Prints the
 * counts, the handler's calls of each x_j ("handler xJ N"), the runs of
 * rt_cache_adapt stepped and the calls the handler made. */
#define _GNU_SOURCE
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__x86_64__)

#define TRAP_FLAG 0x100
#define INT3 0xcc
#define CALLS 150000 /* disp's calls in each order */
#define RUNS 400      /* runs of rt_cache_adapt stepped, at most */

static unsigned long nx[16], ndisp, hx[16];

#define X(j) __attribute__((noinline)) void x##j(void) { nx[j]++; __asm__ volatile(""); }
X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
static void (*const xs[16])(void) = { x0, x1, x2, x3, x4, x5, x6, x7,
				      x8, x9, x10, x11, x12, x13, x14, x15 };

__attribute__((noinline)) void disp(unsigned j)
{
	ndisp++;
	xs[j % 16]();
	__asm__ volatile(""); /* not a tail call */
}

static unsigned char *adapt_lo, *adapt_hi; /* rt_cache_adapt's code */
static unsigned char saved;                 /* its first byte */
static volatile uintptr_t entry_sp;         /* sp at its entry; 0: not stepping */
static volatile unsigned runs, acted;

__attribute__((no_instrument_function)) static void breakpoint(int on)
{
	*adapt_lo = on ? INT3 : saved;
}

/* Not instrumented itself, so that its calls are made from the context
 * the trap interrupted. */
__attribute__((no_instrument_function)) static void on_trap(int sig, siginfo_t *si, void *uv)
{
	greg_t *r = ((ucontext_t *)uv)->uc_mcontext.gregs;

	(void)sig;
	(void)si;
	if (entry_sp == 0) { /* the breakpoint: rip is past the int3 */
		if ((unsigned char *)r[REG_RIP] != adapt_lo + 1)
			return;
		breakpoint(0);
		r[REG_RIP]--;
		entry_sp = (uintptr_t)r[REG_RSP];
		r[REG_EFL] |= TRAP_FLAG;
		return;
	}
	if ((uintptr_t)r[REG_RSP] > entry_sp) { /* returned */
		entry_sp = 0;
		r[REG_EFL] &= ~TRAP_FLAG;
		if (++runs < RUNS)
			breakpoint(1);
		return;
	}
	hx[acted % 16]++;
	xs[acted++ % 16]();
}

/* Where the dynamic linker put the runtime. */
__attribute__((no_instrument_function)) static int find_runtime(struct dl_phdr_info *info, size_t size,
								void *base)
{
	(void)size;
	if (strstr(info->dlpi_name, "libccprof") == NULL)
		return 0;
	*(uintptr_t *)base = info->dlpi_addr;
	return 1;
}

/* A fixed pseudo-random sequence (xorshift32), so that runs are alike. */
__attribute__((no_instrument_function)) static unsigned next_random(unsigned *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	uintptr_t base = 0, page, end;
	unsigned seed = 2463534242u;
	unsigned long total = 0;
	long pagesize = sysconf(_SC_PAGESIZE);

	if (argc != 3 || !dl_iterate_phdr(find_runtime, &base)) {
		fputs("usage: adaptstep OFFSET SIZE, with libccprof.so loaded\n", stderr);
		return 2;
	}
	adapt_lo = (unsigned char *)(base + strtoul(argv[1], NULL, 0));
	adapt_hi = adapt_lo + strtoul(argv[2], NULL, 0);
	page = (uintptr_t)adapt_lo & ~(uintptr_t)(pagesize - 1);
	end = (uintptr_t)adapt_hi;
	if (mprotect((void *)page, end - page, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
		perror("adaptstep: mprotect");
		return 2;
	}
	saved = *adapt_lo;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	breakpoint(1);
	for (unsigned i = 0; i < CALLS; i++)
		disp(next_random(&seed) >> 7);
	for (unsigned i = 0; i < CALLS; i++)
		disp(i % 4 == 3 ? 2 + next_random(&seed) % 14 : i % 2);
	if (entry_sp == 0)
		breakpoint(0);
	for (unsigned j = 0; j < 16; j++) {
		printf("calls x%u %lu\nhandler x%u %lu\n", j, nx[j], j, hx[j]);
		total += nx[j];
	}
	printf("calls disp %lu\ncalls x %lu\nruns %u\nhandled %u\n", ndisp, total, runs, acted);
	return 0;
}

#else

int main(void)
{
	puts("unsupported");
	return 0;
}

#endif
