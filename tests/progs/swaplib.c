/* A plugin built twice, -DWORK=alpha_work and -DWORK=beta_work, with the
 * same size, so that the second, loaded after the first is closed, lands
 * at the same addresses (tests/progs/dlswap.c). */
#ifndef WORK
#define WORK alpha_work
#endif

__attribute__((noinline)) int WORK(int x)
{
	return x * 3 + 1;
}

int plugin_entry(int x)
{
	return WORK(x) + 1;
}
