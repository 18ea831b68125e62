/* Two static functions named `step`, one here and one in twins2.c: the
 * text report must tell them apart (Note [Names that collide] in
 * src/output/names.c).  Prints the calls of each.  With -DTWINS_LIB it
 * calls a third `step`, alone in libtwins.so (twins3.c). */
#include <stdio.h>

static unsigned long here;

__attribute__((noinline)) static void step(void)
{
	here++;
}

unsigned long twin_steps(int n);
#ifdef TWINS_LIB
unsigned long lib_steps(int n); /* a third step, in libtwins.so (twins3.c) */
#endif

int main(void)
{
	for (int i = 0; i < 3; i++)
		step();
	printf("calls step_here %lu\ncalls step_there %lu\n", here, twin_steps(5));
#ifdef TWINS_LIB
	printf("calls step_lib %lu\n", lib_steps(7));
#endif
	return 0;
}
