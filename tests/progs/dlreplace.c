/* dlopen a plugin, call it, dlclose it, rename another build over its
 * file, and the same again at the same path (Note [Modules without a
 * build-id] in src/model/combine.c).  The two builds of
 * tests/progs/swaplib.c have their functions at the same offsets.
 * Usage: dlreplace PLUGIN.so NEW.so.  Prints the calls the profile must
 * show. */
#include <dlfcn.h>
#include <stdio.h>

static int run(const char *path, int times, int *sum)
{
	void *h = dlopen(path, RTLD_NOW);
	int (*entry)(int);

	if (h == NULL) {
		printf("dlopen: %s\n", dlerror());
		return -1;
	}
	entry = (int (*)(int))dlsym(h, "plugin_entry");
	for (int i = 0; i < times; i++)
		*sum += entry(i);
	dlclose(h);
	return 0;
}

int main(int argc, char **argv)
{
	int sum = 0;

	if (argc != 3)
		return 2;
	if (run(argv[1], 3, &sum) != 0 || rename(argv[2], argv[1]) != 0 ||
	    run(argv[1], 5, &sum) != 0)
		return 1;
	printf("sum %d\ncalls alpha_work 3\ncalls beta_work 5\n", sum);
	return 0;
}
