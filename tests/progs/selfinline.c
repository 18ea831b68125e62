/* The hooks, called by hand, in the order gcc -O2 and -O3 call them for
 * a recursive function inlined into itself (void f(int n) { if (n > 0)
 * { f(n - 1); g(); } }): f's hook and its inlined copy's run in one
 * frame with one call site.  The shared runtime on x86-64 nests the
 * copy's entry in f's, its hook called from elsewhere (Note
 * [Self-inlined copies] in src/runtime/machine.c).  Where it cannot
 * (off x86-64, and "onesite" below), the copy's entry replaces f's,
 * and the real recursive call's entry is replaced in the same way by its
 * own copy.  That real call's exit then matches no entry; it is a real
 * call's return, not a split function's (Note [Split functions] in
 * src/runtime/hooks.c), so it must not end the outer copy's call: the
 * g() the copy makes next is f's, either way.  Built -O2, the last exit
 * hook of inner() is a sibling call, which sees the outer copy's stack
 * pointer: the exit must not end that entry as a split function's exit
 * at its sp would (Note [Split functions]).  Nothing here is
 * instrumented but by these calls.
 *
 * With argv[1] "onesite" every hook is called from one place, a
 * function of its own, as if from one frame: a copy's hook is then
 * called from where its outer call's was, which is what the runtime
 * takes for a new call after a jump it did not see, and the copy's entry
 * replaces f's, as everywhere it cannot tell them apart (off x86-64,
 * and libccprof.a before session 49). */
#include <stdio.h>
#include <string.h>

#define NI __attribute__((noinline, no_instrument_function))

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

static volatile int sink, hook_sink;
static int onesite;

/* The hooks, from here for "onesite"; hook_sink keeps each a real call. */
NI static void hook_at_one_site(int enter, void *fn, void *site)
{
	if (enter)
		__cyg_profile_func_enter(fn, site);
	else
		__cyg_profile_func_exit(fn, site);
	hook_sink++;
}

/* Inline, so that otherwise each hook is called from its own place. */
#define HOOK(enter, fn, site)                                                        \
	do {                                                                         \
		if (onesite)                                                         \
			hook_at_one_site(enter, (void *)(fn), (site));               \
		else if (enter)                                                      \
			__cyg_profile_func_enter((void *)(fn), (site));              \
		else                                                                 \
			__cyg_profile_func_exit((void *)(fn), (site));               \
	} while (0)
#define ENTER(fn, site) HOOK(1, fn, site)
#define EXIT(fn, site) HOOK(0, fn, site)

NI void f(void) { sink++; }
NI void g(void) { sink += 2; }

/* Call sites: the return addresses the hooks would be given. */
static char main_site, outer_site, inner_site;

/* f's real recursive call, in a frame of its own. */
NI static void inner(void)
{
	ENTER(f, &outer_site); /* f */
	ENTER(f, &outer_site); /* its inlined copy */
	EXIT(f, &outer_site);
	EXIT(f, &outer_site);  /* its entry was replaced */
}

NI static void call_g(void)
{
	ENTER(g, &inner_site);
	g();
	EXIT(g, &inner_site);
}

/* The outermost call of f and its inlined copy, in one frame. */
NI static void outer(void)
{
	ENTER(f, &main_site);
	ENTER(f, &main_site);
	inner();  /* the copy's real call of f */
	call_g(); /* the copy's g(): f's */
	EXIT(f, &main_site);
	EXIT(f, &main_site);
}

NI int main(int argc, char **argv)
{
	onesite = argc > 1 && strcmp(argv[1], "onesite") == 0;
	for (int i = 0; i < 100; i++)
		outer();
	printf("sink %d\n", sink);
	return 0;
}
