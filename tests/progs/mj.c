/*
 * Morgan & Jarvis's selection example (DESIGN.md §4) as a real program
 * with known costs per compressed stack (top first):
 *
 *   ⟨a⟩ 20   ⟨b,a⟩ 10   ⟨c,b,a⟩ 50   ⟨c,a⟩ 10      (units of burn())
 *
 * main calls a; a burns 20, calls b, then c(10); b burns 10 and calls
 * c(50).  So COST a = 20, b = 10, c = 60; INHERITED a = 90, b = 60,
 * c = 60, and with b deselected COST a = 30, c = 60.  argv[1] rounds
 * (default 20) make the run long enough to measure.  burn() is one
 * loop that is not instrumented, so its time is its caller's own, and
 * every unit costs the same wherever it is burnt (copies of a loop in
 * different functions can run at different speeds: alignment).
 */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define UNIT 20000UL

static __attribute__((noinline, no_instrument_function)) void burn(unsigned long units)
{
	for (volatile unsigned long i = 0; i < units * UNIT; i++)
		;
}

NOINLINE void c(unsigned long units)
{
	burn(units);
}

NOINLINE void b(void)
{
	burn(10);
	c(50);
}

NOINLINE void a(void)
{
	burn(20);
	b();
	c(10);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 20;
	for (int r = 0; r < rounds; r++)
		a();
	printf("done %d rounds\n", rounds);
	return 0;
}
