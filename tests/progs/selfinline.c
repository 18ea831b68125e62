/* The hooks, called by hand, in the order gcc -O2 and -O3 call them for
 * a recursive function inlined into itself (void f(int n) { if (n > 0)
 * { f(n - 1); g(); } }): f's hook and its inlined copy's run in one
 * frame with one call site.  The shared runtime on x86-64 nests the
 * copy's entry in f's, its hook called from elsewhere (Note
 * [Self-inlined copies] in src/runtime/machine.c).  Where it cannot
 * (libccprof.a, README's known limit), the copy's entry replaces f's,
 * and the real recursive call's entry is replaced in the same way by its
 * own copy.  That real call's exit then matches no entry; it is a real
 * call's return, not a split function's (Note [Split functions] in
 * src/runtime/hooks.c), so it must not end the outer copy's call: the
 * g() the copy makes next is f's, either way.  Built -O2, the last exit
 * hook of inner() is a sibling call, which sees the outer copy's stack
 * pointer: the exit must not end that entry as a split function's exit
 * at its sp would (Note [Split functions]).  Nothing here is
 * instrumented but by these calls. */
#include <stdio.h>

#define NI __attribute__((noinline, no_instrument_function))

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

static volatile int sink;

NI void f(void) { sink++; }
NI void g(void) { sink += 2; }

/* Call sites: the return addresses the hooks would be given. */
static char main_site, outer_site, inner_site;

/* f's real recursive call, in a frame of its own. */
NI static void inner(void)
{
	__cyg_profile_func_enter((void *)f, &outer_site); /* f */
	__cyg_profile_func_enter((void *)f, &outer_site); /* its inlined copy */
	__cyg_profile_func_exit((void *)f, &outer_site);
	__cyg_profile_func_exit((void *)f, &outer_site);  /* its entry was replaced */
}

NI static void call_g(void)
{
	__cyg_profile_func_enter((void *)g, &inner_site);
	g();
	__cyg_profile_func_exit((void *)g, &inner_site);
}

/* The outermost call of f and its inlined copy, in one frame. */
NI static void outer(void)
{
	__cyg_profile_func_enter((void *)f, &main_site);
	__cyg_profile_func_enter((void *)f, &main_site);
	inner();  /* the copy's real call of f */
	call_g(); /* the copy's g(): f's */
	__cyg_profile_func_exit((void *)f, &main_site);
	__cyg_profile_func_exit((void *)f, &main_site);
}

NI int main(void)
{
	for (int i = 0; i < 100; i++)
		outer();
	printf("sink %d\n", sink);
	return 0;
}
