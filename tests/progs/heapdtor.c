/* A library that keeps what the program gives it in a registry of its
 * own and frees it all in its destructor, which runs after the
 * preloaded runtime's (its constructor ran before), as C++ libraries'
 * global containers do (Note [After the libraries' destructors] in
 * src/runtime/init.c).  Built twice: with -DHEAPDTOR_LIB the library
 * (libheapdtor.so), else the program, which registers 500 blocks of 100
 * bytes and leaks one block of 77 bytes itself.  Says on stderr what is
 * live at the end by its own count: "live leak_one 77 1" and
 * "live reg_add 0 0" (the registry is empty by then). */
#include <stdio.h>
#include <stdlib.h>

#ifdef HEAPDTOR_LIB
static void *registry[1000];
static int nregistered;

__attribute__((noinline)) void reg_add(size_t n)
{
	if (nregistered < 1000)
		registry[nregistered++] = malloc(n);
}

__attribute__((destructor)) static void reg_clear(void)
{
	while (nregistered > 0)
		free(registry[--nregistered]);
}
#else
void reg_add(size_t n);

static void *volatile kept;

__attribute__((noinline)) static void leak_one(void)
{
	kept = malloc(77);
}

int main(void)
{
	for (int i = 0; i < 500; i++)
		reg_add(100);
	leak_one();
	fprintf(stderr, "live leak_one 77 1\nlive reg_add 0 0\n");
	return 0;
}
#endif
