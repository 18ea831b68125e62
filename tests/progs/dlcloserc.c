/*
 * dlcloserc.c - dlopen LIB (default libm.so.6), call work(), dlclose it
 * and print "dlclose RC" (with errno's text if it failed).  Linked
 * -static with libccprof.a, the runtime's dlclose found no libc's behind
 * it and failed with ENOSYS (helper-200; src/runtime/dlclose.c).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static volatile int worked;

__attribute__((noinline)) static void work(void)
{
	worked++;
}

int main(int argc, char **argv)
{
	void *h = dlopen(argc > 1 ? argv[1] : "libm.so.6", RTLD_NOW);
	int rc;

	work();
	if (h == NULL) {
		printf("dlopen: %s\n", dlerror());
		return 1;
	}
	errno = 0;
	rc = dlclose(h);
	printf("dlclose %d%s%s\n", rc, rc ? " " : "", rc ? strerror(errno) : "");
	return rc != 0;
}
