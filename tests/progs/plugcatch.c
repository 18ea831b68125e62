/* A C program that opens a C++ library with RTLD_LOCAL and calls it: the
 * library's catches reach the runtime's __cxa_begin_catch, and its
 * libstdc++ is not among the program's objects, where dlsym(RTLD_NEXT)
 * looks (Note [A catch in a library of its own] in
 * src/runtime/catch.c; the program aborted there).  argv[1]: the
 * library (tests/progs/plugcatch_lib.cpp).  Prints what the library
 * counted, and whether dlerror has a message pending. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h;
	long (*run)(int);

	if (argc < 2 || (h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) == NULL) {
		fprintf(stderr, "plugcatch: %s\n", argc < 2 ? "no library" : dlerror());
		return 2;
	}
	*(void **)&run = dlsym(h, "plug_run");
	if (run == NULL)
		return 2;
	printf("caught %ld\n", run(25));
	/* None pending: the calls above succeeded (the runtime's own failed
	 * lookups must leave no message for the program to find). */
	printf("dlerror %s\n", dlerror() ? "pending" : "none");
	return 0;
}
