/*
 * lateload.c - a program whose code calls the runtime only once it has
 * loaded a library that does (Note [A helper for code that calls the
 * hooks] in src/runtime/instrumented.c).  It prints how many threads the
 * process has at start (from a constructor, which runs after the
 * preloaded runtime's), before it loads the library, and after its first
 * call into it, which spins for 200 ms of CPU time:
 *
 *     lateload LIB    "threads at start N", "threads before the call N",
 *                     "threads after the call N"
 *
 * Built without -finstrument-functions, nothing in it calls the hooks:
 * the runtime's sampling helper is made at that first call, not at
 * start-up.  Built with it, main's own hooks call the runtime, and the
 * helper is there from the start.  Built with -DLATELOAD_LIB
 * -finstrument-functions -shared: the library, late_spin.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>

#include "cpuspin.h"

#ifdef LATELOAD_LIB

__attribute__((noinline)) void late_spin(long ms)
{
	spin_cpu(ms * 1000000L);
}

#else

static __attribute__((no_instrument_function)) int threads(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	if (d == NULL)
		return -1;
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n - 2; /* . and .. */
}

__attribute__((constructor, no_instrument_function)) static void at_start(void)
{
	printf("threads at start %d\n", threads());
}

int main(int argc, char **argv)
{
	void (*late_spin)(long);
	void *h;

	if (argc < 2)
		return 2;
	printf("threads before the call %d\n", threads());
	if ((h = dlopen(argv[1], RTLD_NOW)) == NULL) {
		printf("dlopen: %s\n", dlerror());
		return 1;
	}
	*(void **)&late_spin = dlsym(h, "late_spin");
	late_spin(200);
	printf("threads after the call %d\n", threads());
	return 0;
}

#endif
