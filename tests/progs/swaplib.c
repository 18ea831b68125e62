/* A plugin built twice, -DWORK=alpha_work -DDEP=alpha_dep and
 * -DWORK=beta_work -DDEP=beta_dep, each linked with its own dependency
 * (tests/progs/swapdep.c), with the same sizes, so that the second,
 * loaded after the first is closed, lands at the same addresses
 * (tests/progs/dlswap.c). */
#ifndef WORK
#define WORK alpha_work
#endif
#ifndef DEP
#define DEP alpha_dep
#endif

int DEP(int x);

__attribute__((noinline)) int WORK(int x)
{
	return x * 3 + 1;
}

int plugin_entry(int x)
{
	return WORK(x) + DEP(x);
}
