/*
 * Morgan & Jarvis's selection example (docs/views.md, "Selection") as a
 * real program with known costs per compressed stack (top first):
 *
 *   ⟨a⟩ 20   ⟨b,a⟩ 10   ⟨c,b,a⟩ 50   ⟨c,a⟩ 10      (units of burn())
 *
 * main calls a; a burns 20, calls b, then c(10); b burns 10 and calls
 * c(50).  So COST a = 20, b = 10, c = 60; INHERITED a = 90, b = 60,
 * c = 60, and with b deselected COST a = 30, c = 60.  argv[1] rounds
 * (default 20) make the run long enough to measure.  burn() is one
 * loop that is not instrumented, so its time is its caller's own, and
 * every unit costs the same wherever it is burnt (copies of a loop in
 * different functions can run at different speeds: alignment).  It also
 * times itself (elapsed, as clock=cycles charges), and the program prints
 * what each compressed stack burnt on stderr, "spent a NS b NS bc NS ac
 * NS": on a loaded machine a unit can take longer than another, and
 * then these are what the profile must show.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, in burn.h */
#include <stdio.h>
#include <stdlib.h>
#include "burn.h"

#define NOINLINE __attribute__((noinline))
#define UNIT 20000UL

enum stack { A, B_A, C_B_A, C_A }; /* ⟨a⟩ ⟨b,a⟩ ⟨c,b,a⟩ ⟨c,a⟩ */
static unsigned long long spent[4];

NOINLINE void c(unsigned long units, enum stack where)
{
	burn(units * UNIT, &spent[where]);
}

NOINLINE void b(void)
{
	burn(10 * UNIT, &spent[B_A]);
	c(50, C_B_A);
}

NOINLINE void a(void)
{
	burn(20 * UNIT, &spent[A]);
	b();
	c(10, C_A);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 20;
	for (int r = 0; r < rounds; r++)
		a();
	printf("done %d rounds\n", rounds);
	fprintf(stderr, "spent a %llu b %llu bc %llu ac %llu\n", spent[A], spent[B_A], spent[C_B_A],
		spent[C_A]);
	return 0;
}
