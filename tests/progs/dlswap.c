/* dlopen a plugin, call it, dlclose it, then the same with another plugin
 * that the loader puts at the same addresses (tests/progs/swaplib.c):
 * each plugin's functions must keep their own calls (dlclose.c).  Then
 * the first plugin once more, where it was: its functions are the ones
 * of its first load, not new ones.
 * Each plugin's dependency goes and comes with it, and must keep its own
 * calls too.
 * Usage: dlswap ALPHA.so BETA.so.  Prints whether the addresses
 * coincided and the calls the profile must show. */
#include <dlfcn.h>
#include <stdio.h>

static void *run(const char *path, int times, int *sum)
{
	void *h = dlopen(path, RTLD_NOW);
	int (*entry)(int);

	if (h == NULL) {
		printf("dlopen: %s\n", dlerror());
		return NULL;
	}
	entry = (int (*)(int))dlsym(h, "plugin_entry");
	for (int i = 0; i < times; i++)
		*sum += entry(i);
	dlclose(h);
	return (void *)entry;
}

int main(int argc, char **argv)
{
	int sum = 0;
	void *a, *b, *a2;

	if (argc != 3)
		return 2;
	a = run(argv[1], 3, &sum);
	b = run(argv[2], 5, &sum);
	a2 = run(argv[1], 2, &sum);
	if (a == NULL || b == NULL || a2 == NULL)
		return 1;
	printf("same address %s\nagain %s\nsum %d\ncalls alpha_work 5\ncalls beta_work 5\n"
	       "calls alpha_dep 5\ncalls beta_dep 5\n",
	       a == b ? "yes" : "no", a2 == a ? "yes" : "no", sum);
	return 0;
}
