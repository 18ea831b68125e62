/*
 * shadowfull.c - calls past the end of the shadow stack, which cannot
 * grow (Note [The hooks' thread] in src/runtime/threads.c): main, not
 * instrumented, makes the thread's first call (warm), grows its own
 * stack by 6 MB while it may, limits the address space (RLIMIT_AS) to
 * what the process maps and 1 MB more, then dives DEPTH deep (argv[1],
 * default 80000: more than the shadow stack's first 65,536 entries),
 * each level calling mark() once the level below has returned, calls
 * after() 1000 times from main, then burns about 20 ms in main, which
 * is in no function the profile knows.  It prints "dive N mark N after
 * N", the calls it made, and on stderr "burnt NS".  The calls past the
 * end are lost; every other call is recorded, mark() always in dive,
 * after() at the root, as if no dive had been, and the burn charged to
 * no function: an exit lost after the dive would leave it to after().
 */
#define _DEFAULT_SOURCE /* alloca */
#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include "burn.h"
#include "vmsize.h"

#define NOINLINE __attribute__((noinline))
#define NO_HOOKS __attribute__((no_instrument_function, noinline))

static unsigned long dives, marks, afters;
static volatile unsigned long sink;

NOINLINE void warm(void)
{
	sink++;
}

NOINLINE void mark(void)
{
	marks++;
}

NOINLINE unsigned long dive(unsigned long n)
{
	volatile char frame = (char)n; /* a frame of its own at each level */
	unsigned long r = n ? dive(n - 1) : 0;

	mark();
	dives++;
	return r + (unsigned long)frame;
}

NOINLINE void after(void)
{
	afters++;
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
	unsigned long long burnt = 0;
	struct rlimit lim;

	setvbuf(stdout, NULL, _IONBF, 0); /* no buffer to map later */
	warm();
	grow_stack(6u << 20);
	lim.rlim_cur = lim.rlim_max = mapped_now() + (1u << 20);
	if (lim.rlim_cur == 1u << 20 || setrlimit(RLIMIT_AS, &lim) != 0) {
		perror("shadowfull: setrlimit");
		return 1;
	}
	sink += dive(depth);
	for (int i = 0; i < 1000; i++)
		after();
	burn(80000000, &burnt);
	printf("dive %lu mark %lu after %lu\n", dives, marks, afters);
	fprintf(stderr, "burnt %llu\n", burnt);
	return 0;
}
