/* The dependency of a plugin (tests/progs/swaplib.c), built twice,
 * -DDEP=alpha_dep and -DDEP=beta_dep: unloaded with its plugin, it must
 * give up its addresses too (dlclose.c). */
#ifndef DEP
#define DEP alpha_dep
#endif

__attribute__((noinline)) int DEP(int x)
{
	return x + 2;
}
