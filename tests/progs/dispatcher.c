/*
 * dispatcher.c - the two call patterns the inline cache adapts to (Note
 * [Adaptive inline cache] in src/runtime/machine.c): scatter() calls 16
 * functions through a table in pseudo-random order, so its two slots
 * catch about one lookup in eight and it should end as a dispatcher;
 * bursts() calls 3 functions in long runs of each, which the slots catch
 * once they follow the runs.  Prints what it called, for the exact
 * counts: "arc CALLER CALLEE N" and "calls F N".
 *
 * Usage: dispatcher [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>

#define NF 16

static unsigned long called[NF];

#define F(i) \
	__attribute__((noinline)) static void f##i(void) \
	{ \
		called[i]++; \
		__asm__ __volatile__(""); \
	}
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7)
F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15)

static void (*const table[NF])(void) = {
	f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15,
};

static unsigned long from_scatter[NF], from_bursts[NF];

__attribute__((noinline)) static void scatter(unsigned long n)
{
	unsigned long r = 12345;

	for (unsigned long i = 0; i < n; i++) {
		unsigned k;

		r = r * 6364136223846793005ul + 1442695040888963407ul;
		k = (unsigned)(r >> 60);
		from_scatter[k]++;
		table[k]();
	}
}

__attribute__((noinline)) static void bursts(unsigned rounds, unsigned run)
{
	for (unsigned i = 0; i < rounds; i++)
		for (unsigned k = 0; k < 3; k++)
			for (unsigned j = 0; j < run; j++) {
				from_bursts[k]++;
				table[k]();
			}
}

int main(int argc, char **argv)
{
	/* strtoul, not atoi: glibc inlines atoi, and clang then hooks it */
	unsigned rounds = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 20;

	scatter(15000ul * rounds);
	bursts(rounds, 3000);
	printf("arc main scatter 1\narc main bursts 1\ncalls main 1\ncalls scatter 1\ncalls bursts 1\n");
	for (int k = 0; k < NF; k++) {
		printf("calls f%d %lu\n", k, called[k]);
		printf("arc scatter f%d %lu\n", k, from_scatter[k]);
		if (from_bursts[k])
			printf("arc bursts f%d %lu\n", k, from_bursts[k]);
	}
	return 0;
}
