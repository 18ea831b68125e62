/*
 * usebump.c - a program linked with its own allocator library
 * (bumpalloc.c), for tests/alloc.py: every block it allocates must come
 * from that library, with or without libccprof-alloc.so in between.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bump_owns(const void *p);

__attribute__((noinline)) char *copy(const char *s)
{
	return strdup(s); /* glibc's strdup calls malloc too */
}

int main(void)
{
	void *a = malloc(100), *b = calloc(4, 25), *c = NULL;
	char *d = copy("text");

	a = realloc(a, 300);
	if (posix_memalign(&c, 64, 10) != 0)
		return 1;
	printf("owned %d %d %d %d\n", bump_owns(a), bump_owns(b), bump_owns(c), bump_owns(d));
	return 0;
}
