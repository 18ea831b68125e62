/* A third static `step` (tests/progs/twins.c), alone in its module,
 * libtwins.so: the text report shows it "step [libtwins.so]", with no
 * offset, while the program's two need theirs. */
static unsigned long lib;

__attribute__((noinline)) static void step(void)
{
	lib++;
}

unsigned long lib_steps(int n)
{
	for (int i = 0; i < n; i++)
		step();
	return lib;
}
