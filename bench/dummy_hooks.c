/*
 * dummy_hooks.c - empty __cyg_profile_func_enter/exit: the cost of
 * -finstrument-functions itself (the two calls per function, their
 * arguments, the lost inlining and tail calls), with no profiler behind it.
 *
 * Built two ways by bench/run, to compare like with like:
 *   dummy_hooks.so  preloaded with LD_PRELOAD, as libccprof.so is: every
 *                   hook call goes through the PLT to another module;
 *   dummy_hooks.o   linked into the program, as libccprof.a is.
 * Without either, the executable would bind to glibc's own no-op hooks,
 * which are the same thing as the .so (a PLT call into libc.so).
 */
#define HOOK __attribute__((visibility("default"), noinline, no_instrument_function, used))

HOOK void __cyg_profile_func_enter(void *fn, void *call_site);
HOOK void __cyg_profile_func_exit(void *fn, void *call_site);

HOOK void __cyg_profile_func_enter(void *fn, void *call_site)
{
	(void)fn;
	(void)call_site;
	__asm__ __volatile__("" ::: "memory"); /* stay a real, empty call */
}

HOOK void __cyg_profile_func_exit(void *fn, void *call_site)
{
	(void)fn;
	(void)call_site;
	__asm__ __volatile__("" ::: "memory");
}
