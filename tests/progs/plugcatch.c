/* A C program that opens a C++ library with RTLD_LOCAL and calls it: the
 * library's catches reach the runtime's __cxa_begin_catch, and its
 * libstdc++ is not among the program's objects, where dlsym(RTLD_NEXT)
 * looks (Note [A catch in a library of its own] in
 * src/runtime/catch.c; the program aborted there).  argv[1]: the
 * library (tests/progs/plugcatch_lib.cpp).  Prints what the library
 * counted. */
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
	return 0;
}
