/*
 * vfork.c - vfork taken over, so that the child's calls, made on its
 * parent's thread state, leave the parent's context as it was.
 *
 * Note [A vfork child's calls]: a vfork child runs on its parent's
 * memory with its parent's thread pointer, so its hooks move the
 * parent's thread state: `cur`, `top`.  The child ends in an exec or an
 * _exit, usually inside a function it called (dash's `tryexec`), which
 * never returns; the parent resumed in that function's context.  The
 * sampler charged the parent's CPU, taken before the vfork and seen while
 * the child ran, and the parent's time until its next hook found the
 * child's frames gone, to the child's last function: dash, which vforks
 * for each command, charged 26 % of its CPU to `tryexec` (helper-178); a
 * program that vforks 2,000 times (tests/progs/vforktime.c), 46 %.
 *
 * So vfork is ours, in assembly as glibc's is: the child returns into
 * the caller's frame and its calls write over ours, so the return
 * address waits in a register across the system call (rdi, which the
 * kernel keeps).  Before the call, rt_vfork_save keeps the thread's
 * context, shadow stack top and calls past its end in fields the child
 * does not write, and marks the thread as in a vfork (vfork_cur, also
 * the sampler's sign: rt_charged_ctx charges a sample to the context the
 * parent called vfork in, where it waits).  When the parent returns,
 * rt_vfork_restore puts them back (rt_overflow_set: the child may have
 * gone past the shadow stack's end, which takes the hooks off their fast
 * path, rt_hot): the child's entries above the saved top are gone with
 * the child.  Not restored: the clock's last tick (clock=cycles), so
 * that the parent's next hook charges from the child's last one, the
 * wait for the exec, to the context vfork was called in, and nothing is
 * counted twice; the counts, which stay the child's calls in the
 * parent's profile (README, "Known limits"); and `busy`: a child killed
 * inside a slow path leaves the thread's tables half made, and the
 * parent, finding `busy` taken, loses its calls rather than use them
 * (helper-187: restored, the parent died by SIGSEGV in 3 runs of 30).
 *
 * Every signal is blocked from before the save until after the restore,
 * as glibc's posix_spawn blocks them around its clone, and the child
 * unblocks them first thing: a handler that ran as the system call
 * returned and left by siglongjmp (or a cancellation, or a switch to
 * another context) skipped the restore, and the thread's time went to
 * the function that had called vfork for good (helper-187).  A signal
 * for the parent meanwhile waits, as it does while the parent is
 * suspended in vfork anyway.
 *
 * A vfork child that calls vfork saves nothing (vfork_cur is its
 * parent's, set), and says so in rsi, which the kernel also keeps, so
 * that it restores nothing: the outermost parent restores its own.
 * Under CET shadow stacks the child leaves by a jump, as glibc's does:
 * a `ret` would pop the shadow stack it shares with its parent.
 *
 * A sanitizer's vfork (ASan's, TSan's), where it is there and ours took
 * its name (libccprof.a linked in, where ours is weak but may be the one
 * the link kept; or gcc's libasan.so preloaded after us), gets the call:
 * it must see the child, and it calls libc's itself.  Where the
 * sanitizer's took the name, it calls ours as the real one, and ours
 * does its work (rt_vfork_defer stays NULL).
 *
 * x86-64 Linux only; elsewhere libc's vfork runs, as before.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"

#if defined(__x86_64__) && defined(__linux__) && defined(__ELF__)

#define STR_(x) #x
#define STR(x) STR_(x)

RT_HIDDEN long rt_vfork_save(void);
RT_HIDDEN void rt_vfork_child(void);
RT_HIDDEN long rt_vfork_restore(long ret, long saved);
RT_HIDDEN void *rt_vfork_defer; /* a sanitizer's vfork, to leave the call to */
extern const char rt_vfork_own[] RT_HIDDEN; /* ours, whatever "vfork" is bound to */

/* Every signal, glibc's own too, as glibc's posix_spawn blocks them. */
static void set_mask(uint64_t mask, uint64_t *old)
{
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &mask, old, sizeof mask);
}

/* 1 if the thread's state was saved, 0 where it has none or is itself a
 * vfork child's. */
long rt_vfork_save(void)
{
	struct rt_thread *t = rt_self;
	uint64_t old;

	if (t == NULL || RT_LOAD(&t->vfork_cur) != NULL)
		return 0;
	set_mask(~(uint64_t)0, &old);
	t->vfork_mask = old;
	t->vfork_top = t->top;
	t->vfork_overflow = t->overflow;
	RT_PUBLISH(&t->vfork_cur, RT_LOAD(&t->cur));
	return 1;
}

/* In the child, where the state was saved: the signal mask as it was. */
void rt_vfork_child(void)
{
	set_mask(rt_self->vfork_mask, NULL);
}

/* In the parent, or where the call failed: the state as saved (cur
 * before top, as rt_pop_to), the signal mask, and vfork's result, with
 * errno set for a failure. */
long rt_vfork_restore(long ret, long saved)
{
	struct rt_thread *t = rt_self;

	if (saved) {
		RT_PUBLISH(&t->cur, RT_LOAD(&t->vfork_cur));
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->top = t->vfork_top;
		rt_overflow_set(t, t->vfork_overflow);
		RT_PUBLISH(&t->vfork_cur, (struct rt_ctx *)NULL);
	}
	if (ret > 0 && rt_exit_child_dropped_handlers())
		rt_process_handlers_again(); /* Note [exit in a vfork child] in exitgate.c */
	if (saved)
		set_mask(t->vfork_mask, NULL);
	if (ret < 0 && ret > -4096) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

/* The sanitizers' interceptors, by their names in LLVM 14-16 and 17 on:
 * weak references, not dlsym, whose failure leaves a message malloc'd,
 * which the heap profile would count as the program's (tests/heap.py). */
extern char __interceptor_vfork[] __attribute__((weak));
extern char ___interceptor_vfork[] __attribute__((weak));

__attribute__((constructor)) static void vfork_lookup(void)
{
	void *bound = (void *)&vfork, *own = (void *)rt_vfork_own;
	void *theirs = __interceptor_vfork ? (void *)__interceptor_vfork : (void *)___interceptor_vfork;

	/* Two names of one address, which C says two functions never are:
	 * hidden from the compiler, which would drop the test. */
	__asm__("" : "+r"(own));
	if (bound == own && theirs != NULL && theirs != own)
		rt_vfork_defer = theirs;
}

/* At entry rsp is 8 below a multiple of 16: the calls into C take 8
 * more.  rdssp is a no-op where shadow stacks are off or unknown. */
__asm__(".text\n"
	".globl vfork\n"
	".type vfork, @function\n"
	".globl rt_vfork_own\n"
	".hidden rt_vfork_own\n"
	".p2align 4\n"
	"vfork:\n"
	"rt_vfork_own:\n"
	".cfi_startproc\n"
	"endbr64\n"
	"mov rt_vfork_defer(%rip), %rax\n"
	"test %rax, %rax\n"
	"jnz 3f\n"
	"sub $8, %rsp\n"
	".cfi_adjust_cfa_offset 8\n"
	"call rt_vfork_save\n"
	"add $8, %rsp\n"
	".cfi_adjust_cfa_offset -8\n"
	"mov %rax, %rsi\n"
	"pop %rdi\n"
	".cfi_adjust_cfa_offset -8\n"
	".cfi_register %rip, %rdi\n"
	"mov $" STR(SYS_vfork) ", %eax\n"
	"syscall\n"
	"push %rdi\n"
	".cfi_adjust_cfa_offset 8\n"
	".cfi_rel_offset %rip, 0\n"
	"test %rax, %rax\n"
	"jz 1f\n"
	"sub $8, %rsp\n"
	".cfi_adjust_cfa_offset 8\n"
	"mov %rax, %rdi\n"
	"call rt_vfork_restore\n"
	"add $8, %rsp\n"
	".cfi_adjust_cfa_offset -8\n"
	"ret\n"
	"1:\n" /* the child */
	"test %rsi, %rsi\n"
	"jz 4f\n"
	"sub $8, %rsp\n"
	".cfi_adjust_cfa_offset 8\n"
	"call rt_vfork_child\n"
	"add $8, %rsp\n"
	".cfi_adjust_cfa_offset -8\n"
	"4:\n"
	"xor %esi, %esi\n"
	"rdsspq %rsi\n"
	"test %rsi, %rsi\n"
	"jz 2f\n"
	"pop %rdi\n"
	".cfi_adjust_cfa_offset -8\n"
	"jmp *%rdi\n"
	".cfi_adjust_cfa_offset 8\n"
	"2:\n"
	"ret\n"
	"3:\n" /* a sanitizer's */
	"jmp *%rax\n"
	".cfi_endproc\n"
	".size vfork, .-vfork\n");

#endif
