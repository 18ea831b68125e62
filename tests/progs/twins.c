/* Two static functions named `step`, one here and one in twins2.c: the
 * text report must tell them apart (Note [Names that collide] in
 * src/output/names.c).  Prints the calls of each. */
#include <stdio.h>

static unsigned long here;

__attribute__((noinline)) static void step(void)
{
	here++;
}

unsigned long twin_steps(int n);

int main(void)
{
	for (int i = 0; i < 3; i++)
		step();
	printf("calls step_here %lu\ncalls step_there %lu\n", here, twin_steps(5));
	return 0;
}
