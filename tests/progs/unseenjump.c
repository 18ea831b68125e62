/* longjmps the runtime does not see: libc's own longjmp, reached past the
 * interposed one (as a jump made inside libc would be).  Each jump leaves
 * f's entry on the shadow stack, and the next call of f, from the same
 * site in the same frame, looks like a copy of f inlined into it (Note
 * [Self-inlined copies] in src/runtime/machine.c).  Such entries must not
 * pile up: ROUNDS jumps, then g, which finds them all gone.
 * unseenjump ROUNDS */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*jump_fn)(jmp_buf, int);

static jmp_buf env;
static jump_fn libc_longjmp;
static long fs, gs;

__attribute__((noinline)) void f(void)
{
	fs++;
	libc_longjmp(env, 1);
}

__attribute__((noinline)) void g(void)
{
	gs++;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1000;
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	volatile int i;

	if (libc == NULL || (libc_longjmp = (jump_fn)dlsym(libc, "longjmp")) == NULL) {
		fprintf(stderr, "no libc.so.6\n");
		return 2;
	}
	for (i = 0; i < rounds; i++)
		if (setjmp(env) == 0)
			f();
	g();
	printf("calls f %ld\ncalls g %ld\n", fs, gs);
	return 0;
}
