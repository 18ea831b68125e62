/* dlopen a library, call into it, dlclose it, in a loop, with a mapping
 * made between loads so that the library moves (tests/robust.py,
 * dlstorm()): its functions are one function each, however many times
 * and wherever it was loaded.  Prints the calls it made. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static int through(int (*entry)(int), int i)
{
	return entry(i);
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 100, i;
	long s = 0;

	for (i = 0; i < n; i++) {
		void *h = dlopen(argv[1], RTLD_NOW);
		int (*entry)(int);

		if (h == NULL) {
			printf("dlopen: %s\n", dlerror());
			return 1;
		}
		entry = (int (*)(int))dlsym(h, "lib_entry");
		s += through(entry, i);
		if (dlclose(h) != 0) {
			printf("dlclose: %s\n", dlerror());
			return 1;
		}
		/* Shift where the next load goes. */
		if (mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
			return 1;
	}
	printf("calls through %d\ncalls lib_entry %d\ncalls helper %d\n", n, n, n);
	printf("sum %ld\n", s);
	return 0;
}
