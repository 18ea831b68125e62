/* The other `step` (tests/progs/twins.c). */
static unsigned long there;

__attribute__((noinline)) static void step(void)
{
	there++;
}

unsigned long twin_steps(int n)
{
	for (int i = 0; i < n; i++)
		step();
	return there;
}
