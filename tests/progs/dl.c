/* dlopen an instrumented library, call into it, dlclose it: its
 * functions keep their names in the profile. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h = dlopen(argc > 1 ? argv[1] : "./libshlib.so", RTLD_NOW);
	int (*entry)(int);
	int s = 0;

	if (h == NULL) {
		printf("dlopen: %s\n", dlerror());
		return 1;
	}
	entry = (int (*)(int))dlsym(h, "lib_entry");
	for (int i = 0; i < 6; i++)
		s += entry(i);
	dlclose(h);
	printf("sum %d\n", s);
	return 0;
}
