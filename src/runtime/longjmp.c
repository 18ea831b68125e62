/*
 * longjmp.c - frames left by longjmp, discarded at the jump.
 *
 * Note [Longjmp]: the hooks find frames left without a return by their
 * stack pointers (Note [Shadow stack]): a call discards the entries below
 * its own.  After a longjmp that guess fails when the frame that called
 * setjmp calls a function with a bigger frame than the ones abandoned: its
 * hook's stack pointer lies below theirs, so they stay and the call shows
 * as theirs (objdump's i386 disassembler, whose fetch_data longjmps back
 * to print_insn).  The fast path cannot tell, but the jump itself can:
 * glibc's jmp_buf holds the stack pointer of the frame that called setjmp
 * (mangled with the thread's pointer guard), and every entry strictly
 * below it belongs to a frame the jump leaves.  So longjmp, siglongjmp,
 * _longjmp and the fortified __longjmp_chk are interposed to pop those
 * entries, then jump as before.
 *
 * The frames left are those below the target, those of a handler on an
 * alternate signal stack (off the thread's stack, above it or below),
 * and functions inlined into the setjmp frame after the setjmp
 * (rt_left_by_jump in machine.c).  Only where the layout is known
 * (x86-64 glibc), and only when the target is on the thread's own stack (a
 * jump within an alternate stack is left to the hooks' guess).  A jump
 * inside libc (one that never goes through these names) is still left to
 * the guess.  Entries
 * of manual regions stop the pop, as they stop the hooks'
 * (rt_discard_gone).  The entries popped are not remembered as dropped
 * (Note [Split functions] in hooks.c): no exit of theirs will come.
 *
 * Note [Jumps in a static program]: libccprof.a has these names too.  A
 * program linked with it whose libc is shared finds libc's with dlsym,
 * as the shared runtime does.  In a fully static program (-static) there
 * is nothing after us for dlsym to find, but the names cannot clash:
 * libc.a defines longjmp, _longjmp and siglongjmp weakly, as aliases of
 * __libc_siglongjmp, and __longjmp_chk alone in an object nothing else
 * of libc's needs.  Ours, weak as well (the Makefile's STATIC_WEAK) and
 * met first, take their place; a program's own, or those of a sanitizer
 * clang links into the program, come before ours, so that its
 * interceptors see every jump (tests/progs/sanjump.c).  Ours jump with
 * __libc_siglongjmp (a weak reference: linked in only if something asks
 * for it).  Something always does: the runtime starts its sampler with
 * pthread_create, whose unwinding for pthread_exit and cancellation
 * (libc.a's unwind.o) jumps with __libc_longjmp, defined in the same
 * object; `pkg-config --static` also asks for it with
 * -Wl,-u,__libc_siglongjmp.  Lost in a fully static program, and only
 * there: __longjmp_chk's check that the target frame is still live (its
 * jump is __libc_siglongjmp's).  tests/robust.py jump_siblings.
 */
#include <setjmp.h>
#include <stdlib.h>

#include "runtime.h"

typedef void (*jump_fn)(struct __jmp_buf_tag *, int);

static void *real_longjmp, *real_siglongjmp, *real__longjmp, *real_longjmp_chk;

/* glibc's, in libc.a: Note [Jumps in a static program]. */
extern void __libc_siglongjmp(struct __jmp_buf_tag *, int) __attribute__((weak));

/* libc's jumps: dlsym's, or in a static program libc.a's. */
static void longjmp_lookup(void)
{
	real_longjmp = rt_next_or("longjmp", (void *)__libc_siglongjmp);
	real_siglongjmp = rt_next_or("siglongjmp", (void *)__libc_siglongjmp);
	real__longjmp = rt_next_or("_longjmp", (void *)__libc_siglongjmp);
	real_longjmp_chk = rt_next_or("__longjmp_chk", (void *)__libc_siglongjmp);
}

/* Before main: jumps come from signal handlers, where dlsym is no safe
 * call. */
__attribute__((constructor)) static void longjmp_lookup_early(void)
{
	longjmp_lookup();
}

/* Note [Self-inlined copies] in machine.c: set from the start (the
 * program's libraries' constructors run before ours), in place of
 * machine.c's weak 0, where jump_target_sp knows the jmp_buf. */
#if defined(__x86_64__) && defined(__GLIBC__)
RT_HIDDEN int rt_jumps_followed = 1;
#endif

/* The stack pointer the jump returns to, or 0 where the jmp_buf's layout
 * is not known.  glibc (sysdeps/x86_64/jmpbuf-offsets.h) keeps it in slot
 * JB_RSP = 6, mangled as PTR_MANGLE does: xor with the pointer guard at
 * %fs:0x30, then rotate left by 17. */
static uintptr_t jump_target_sp(struct __jmp_buf_tag *env)
{
#if defined(__x86_64__) && defined(__GLIBC__)
	uintptr_t v = (uintptr_t)env->__jmpbuf[6], guard;

	__asm__("movq %%fs:0x30, %0" : "=r"(guard));
	return ((v >> 17) | (v << 47)) ^ guard;
#else
	(void)env;
	return 0;
#endif
}

/* Pop the entries of the frames the jump leaves.  The target must lie on
 * this thread's own stack; we may be on an alternate signal stack, above
 * or below it. */
static void discard_jumped(struct __jmp_buf_tag *env)
{
	struct rt_thread *t = rt_self;
	uintptr_t target = jump_target_sp(env);

	if (t != NULL && target != 0 && t->stacks.on_other)
		rt_stack_jump(t, target); /* out of a coroutine (Note [One shadow stack a stack]) */
	if (t == NULL || !rt_sp_on_stack(t, target))
		return;
	rt_pop_left(t, rt_left_by_jump, target);
}

static _Noreturn void jump(void **real, struct __jmp_buf_tag *env, int val)
{
	discard_jumped(env);
	if (!rt_real_ready(real, longjmp_lookup))
		abort(); /* no libc longjmp to call: nothing sane is left */
	((jump_fn)*real)(env, val);
	__builtin_unreachable();
}

RT_API void longjmp(jmp_buf env, int val)
{
	jump(&real_longjmp, env, val);
}

RT_API void _longjmp(jmp_buf env, int val)
{
	jump(&real__longjmp, env, val);
}

RT_API void siglongjmp(sigjmp_buf env, int val)
{
	jump(&real_siglongjmp, env, val);
}

RT_API _Noreturn void __longjmp_chk(jmp_buf env, int val);

RT_API void __longjmp_chk(jmp_buf env, int val)
{
	jump(&real_longjmp_chk, env, val);
}
