/* Jumps the runtime does not see, out of f, back to the frame that
 * called it: each leaves f's entry on the shadow stack, and the next
 * call of f, from the same site in a frame of the same size, looks like
 * a copy of f inlined into it (Note [Self-inlined copies] in
 * src/runtime/machine.c).  It must be taken for the new call it is, and
 * such entries must not pile up: ROUNDS jumps, then g, from main.
 *   unseenjump libc ROUNDS     libc's own longjmp, reached past the
 *                              interposed one (as a jump inside libc)
 *   unseenjump builtin ROUNDS  __builtin_setjmp and __builtin_longjmp,
 *                              which call nothing
 *   unseenjump setcontext ROUNDS
 *                              getcontext, and setcontext back out of f on
 *                              the same stack, then big(), whose frame is
 *                              larger than f's: a jump the shared runtime
 *                              follows now, so big is main's each time
 *   unseenjump copies ROUNDS   no jump: the enter hook called by hand for
 *                              f, once and then ROUNDS times from another
 *                              place in one frame, with no exit, as a run
 *                              of nested copies would, past any real
 *                              depth (RT_SELF_COPIES) */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define NI __attribute__((noinline, no_instrument_function))

typedef void (*jump_fn)(jmp_buf, int);

static jmp_buf env;
static void *builtin_env[5];
static ucontext_t context;
static jump_fn libc_longjmp;
static enum { LIBC, BUILTIN, SETCONTEXT } how;
static long fs, gs, bigs;

__attribute__((noinline)) void f(void)
{
	fs++;
	if (how == BUILTIN)
		__builtin_longjmp(builtin_env, 1);
	if (how == SETCONTEXT)
		setcontext(&context);
	libc_longjmp(env, 1);
}

__attribute__((noinline)) void big(void)
{
	volatile char buf[4096];

	buf[0] = 1;
	bigs += buf[0];
}

__attribute__((noinline)) void g(void)
{
	gs++;
}

void __cyg_profile_func_enter(void *fn, void *site);

static char f_site;

NI static void hooks_by_hand(int rounds)
{
	__cyg_profile_func_enter((void *)f, &f_site);
	fs++;
	for (int i = 0; i < rounds; i++) {
		__cyg_profile_func_enter((void *)f, &f_site);
		fs++;
	}
}

/* Its own frame, so that f's and g's hooks see the stack pointer of a
 * frame whose size nothing else changes. */
NI static void jumps(int rounds)
{
	for (volatile int i = 0; i < rounds; i++) {
		if (how == BUILTIN) {
			if (__builtin_setjmp(builtin_env) == 0)
				f();
		} else if (how == SETCONTEXT) {
			volatile int back = 0;

			getcontext(&context);
			if (!back) {
				back = 1;
				f();
			}
			big();
		} else if (setjmp(env) == 0) {
			f();
		}
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "libc";
	int rounds = argc > 2 ? atoi(argv[2]) : 1000;
	void *libc;

	if (strcmp(mode, "copies") == 0) {
		hooks_by_hand(rounds);
	} else {
		how = strcmp(mode, "builtin") == 0 ? BUILTIN :
		      strcmp(mode, "setcontext") == 0 ? SETCONTEXT : LIBC;
		libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
		if (how == LIBC && (libc == NULL ||
				 (libc_longjmp = (jump_fn)dlsym(libc, "longjmp")) == NULL)) {
			fprintf(stderr, "no libc.so.6\n");
			return 2;
		}
		jumps(rounds);
	}
	g();
	printf("calls f %ld\ncalls g %ld\n", fs, gs);
	if (bigs)
		printf("calls big %ld\n", bigs);
	return 0;
}
