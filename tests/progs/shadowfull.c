/*
 * shadowfull.c - calls past the end of the shadow stack, which cannot
 * grow (Note [The hooks' thread] in src/runtime/threads.c): main, not
 * instrumented, makes the thread's first call (warm), grows its own
 * stack by 6 MB while it may, limits the address space (RLIMIT_AS) to
 * what the process maps and 1 MB more, then dives DEPTH deep (argv[1],
 * default 80000: more than the shadow stack's first 65,536 entries),
 * each level calling mark() once the level below has returned.  Then
 * main burns about 30 ms of CPU time, calls after() 1000 times and
 * burns about 10 ms more: burns in no function the profile knows.  It
 * prints "dive N mark N after N", the calls it made, and on stderr
 * "burnt NS NS", the CPU time of each burn.  The calls past the end
 * are lost; every other call is recorded, mark() always in dive,
 * after() at the root, as if no dive had been, and the burns charged
 * to no function: an exit lost after the dive would leave the second
 * to after().
 *
 * With a MODE (argv[2]) the deepest level jumps out of the dive instead
 * of returning, so that the calls past the end never exit: "longjmp"
 * back to outer(), which main calls and which calls dive, by glibc's
 * longjmp (which the shared runtime interposes: rt_pop_left); "outer"
 * the same by __builtin_longjmp, which nothing sees until outer()
 * returns; "main" by __builtin_longjmp to main, which nothing sees
 * until after()'s first call (the first burn is dive's then).  No level
 * returns ("dive 0 mark 0").  Mode "grow" returns from the dive, as
 * "return" does, but lifts the address-space limit at its deepest
 * level: the calls past the end that are still running are deeper than
 * the shadow stack's top, and the stack must not grow over them.
 *
 * Mode "top" lands the jump in the shadow stack's top entry: the dive's
 * level whose entry is the first segment's second last (TOP_LEVEL)
 * calls land(), whose entry is the last; land() calls setjmp, dives
 * 50 levels more, past the end, and the deepest longjmps back to it.
 * land() returns, and the level that called it burns about 30 ms
 * ("burnt" prints it third) before it calls mark() and returns, as
 * every level above it does ("dive 65534 mark 65534").  Mode
 * "builtin-top" does the same by __builtin_setjmp and __builtin_longjmp,
 * which nothing sees: land()'s exit, at its entry's stack pointer, is
 * the first to learn of it.
 *
 * With "room" (argv[3]) no limit is set: the shadow stack goes on into
 * new segments (Note [Shadow stack segments] in src/runtime/runtime.h),
 * no call is lost, and a jump out of the dive leaves frames in several.
 */
#define _DEFAULT_SOURCE /* alloca */
#include <alloca.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "cpuspin.h"
#include "vmsize.h"

#define NOINLINE __attribute__((noinline))
#define NO_HOOKS __attribute__((no_instrument_function, noinline))

static unsigned long dives, marks, afters;
static volatile unsigned long sink;
static const char *mode = "return";
static jmp_buf libc_env;
static void *builtin_env[5];
static unsigned long long burnt[3]; /* not main's locals: main is jumped to */
static unsigned long top_n; /* mode top: the n of dive's level TOP_LEVEL */

/* The dive's level, counted from 1, whose entry is the first shadow
 * stack segment's second last (its 65,536 entries but the sentinel),
 * when main, not instrumented, calls dive. */
#define TOP_LEVEL 65534ul

NOINLINE void warm(void)
{
	sink++;
}

NOINLINE void mark(void)
{
	marks++;
}

/* Spin ms milliseconds of CPU time; the time it took. */
NO_HOOKS static unsigned long long burn_cpu(long ms)
{
	long t0 = cpu_ns();

	spin_cpu(ms * 1000000L);
	return (unsigned long long)(cpu_ns() - t0);
}

/* The address space back, as the dive's deepest level returns. */
NO_HOOKS static void lift_limit(void)
{
	struct rlimit lim;

	if (getrlimit(RLIMIT_AS, &lim) == 0) {
		lim.rlim_cur = lim.rlim_max;
		setrlimit(RLIMIT_AS, &lim);
	}
}

NOINLINE unsigned long land(void);

NOINLINE unsigned long dive(unsigned long n)
{
	volatile char frame = (char)n; /* a frame of its own at each level */
	unsigned long r;

	if (n == 0 && mode[0] == 'g')
		lift_limit();
	if (n == 0 && (mode[0] == 'l' || mode[0] == 't'))
		longjmp(libc_env, 1);
	if (n == 0 && (mode[0] == 'o' || mode[0] == 'm' || mode[0] == 'b'))
		__builtin_longjmp(builtin_env, 1);
	if ((mode[0] == 't' || mode[0] == 'b') && n == top_n) {
		r = land();
		burnt[2] = burn_cpu(30);
	} else {
		r = n ? dive(n - 1) : 0;
	}
	mark();
	dives++;
	return r + (unsigned long)frame;
}

/* Modes top and builtin-top: the top entry, which the jump from 50
 * levels past the end lands in. */
NOINLINE unsigned long land(void)
{
	if (mode[0] == 'b') {
		if (__builtin_setjmp(builtin_env) != 0)
			return 0;
	} else if (setjmp(libc_env) != 0) {
		return 0;
	}
	return dive(50);
}

NOINLINE void after(void)
{
	afters++;
}

/* Where the "longjmp" and "outer" modes land. */
NOINLINE unsigned long outer(unsigned long depth)
{
	if (mode[0] == 'l') {
		if (setjmp(libc_env) != 0)
			return 0;
	} else if (__builtin_setjmp(builtin_env) != 0) {
		return 0;
	}
	return dive(depth);
}

/* The pages of the stack the dive will use, mapped before the limit. */
NO_HOOKS static void grow_stack(size_t bytes)
{
	volatile char *p = alloca(bytes);

	for (size_t i = 0; i < bytes; i += 4096)
		p[i] = 0;
}

NO_HOOKS int main(int argc, char **argv)
{
	unsigned long depth = argc > 1 ? strtoul(argv[1], NULL, 10) : 80000;
	struct rlimit lim;

	setvbuf(stdout, NULL, _IONBF, 0); /* no buffer to map later */
	warm();
	grow_stack(6u << 20);
	if (getrlimit(RLIMIT_AS, &lim) != 0) {
		perror("shadowfull: getrlimit");
		return 1;
	}
	lim.rlim_cur = mapped_now() + (1u << 20); /* the hard limit stays: "grow" */
	if (argc > 3 && strcmp(argv[3], "room") == 0)
		lim.rlim_cur = lim.rlim_max; /* the shadow stack goes on in new segments */
	if (lim.rlim_cur == 1u << 20 || setrlimit(RLIMIT_AS, &lim) != 0) {
		perror("shadowfull: setrlimit");
		return 1;
	}
	if (argc > 2)
		mode = argv[2];
	top_n = depth - (TOP_LEVEL - 1);
	if (mode[0] == 'r' || mode[0] == 'g' || mode[0] == 't' || mode[0] == 'b')
		sink += dive(depth);
	else if (mode[0] != 'm')
		sink += outer(depth);
	else if (__builtin_setjmp(builtin_env) == 0)
		sink += dive(depth);
	burnt[0] = burn_cpu(30);
	for (int i = 0; i < 1000; i++)
		after();
	burnt[1] = burn_cpu(10);
	printf("dive %lu mark %lu after %lu\n", dives, marks, afters);
	fprintf(stderr, "burnt %llu %llu %llu\n", burnt[0], burnt[1], burnt[2]);
	return 0;
}
