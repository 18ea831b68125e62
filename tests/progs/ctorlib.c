/* ctorlib.c - a shared library built with -finstrument-functions whose
 * constructor runs before the runtime's (the program depends on it; the
 * runtime is preloaded): its first call of an instrumented function then
 * starts the runtime inside the hook, which must leave errno as it was
 * (rt_init in src/runtime/init.c).  tests/progs/ctormain.c prints what
 * the constructor saw. */
#include <errno.h>

int ctorlib_errno = -1;

__attribute__((noinline)) int ctorlib_work(int x)
{
	return x * 3 + 1;
}

__attribute__((constructor, no_instrument_function)) static void ctorlib_start(void)
{
	errno = 77;
	if (ctorlib_work(2) == 7)
		ctorlib_errno = errno;
}
