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
 * context, shadow stack top, calls past its end and `busy` in fields the
 * child does not write, and marks the thread as in a vfork (vfork_cur,
 * also the sampler's sign: rt_charged_ctx charges a sample to the
 * context the parent called vfork in, where it waits).  When the parent
 * returns, rt_vfork_restore puts them back: the child's entries above
 * the saved top are gone with the child.  Not restored: the clock's last
 * tick (clock=cycles), so that the parent's next hook charges from the
 * child's last one, the wait for the exec, to the context vfork was
 * called in, and nothing is counted twice; and the counts, which stay
 * the child's calls in the parent's profile (README, "Known limits").
 *
 * A vfork child that calls vfork saves nothing (vfork_cur is its
 * parent's, set), and says so in rsi, which the kernel also keeps, so
 * that it restores nothing: the outermost parent restores its own.  A
 * signal handled in the parent as the system call returns runs before
 * the restore, on the child's leftover entries: its calls may show under
 * the child's last function.  Under CET shadow stacks the child leaves
 * by a jump, as glibc's does: a `ret` would pop the shadow stack it
 * shares with its parent.
 *
 * x86-64 Linux only; elsewhere libc's vfork runs, as before.
 */
#include <errno.h>
#include <sys/syscall.h>

#include "runtime.h"

#if defined(__x86_64__) && defined(__linux__) && defined(__ELF__)

#define STR_(x) #x
#define STR(x) STR_(x)

RT_HIDDEN long rt_vfork_save(void);
RT_HIDDEN long rt_vfork_restore(long ret, long saved);

/* 1 if the thread's state was saved, 0 where it has none or is itself a
 * vfork child's. */
long rt_vfork_save(void)
{
	struct rt_thread *t = rt_self;

	if (t == NULL || RT_LOAD(&t->vfork_cur) != NULL)
		return 0;
	t->vfork_top = t->top;
	t->vfork_overflow = t->overflow;
	t->vfork_busy = RT_LOAD(&t->busy);
	RT_PUBLISH(&t->vfork_cur, RT_LOAD(&t->cur));
	return 1;
}

/* In the parent, or where the call failed: the state as saved (cur
 * before top, as rt_pop_to), and vfork's result, with errno set for a
 * failure. */
long rt_vfork_restore(long ret, long saved)
{
	struct rt_thread *t = rt_self;

	if (saved && t != NULL) {
		struct rt_ctx *c = RT_LOAD(&t->vfork_cur);

		RT_STORE(&t->busy, t->vfork_busy);
		t->overflow = t->vfork_overflow;
		RT_PUBLISH(&t->cur, c);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->top = t->vfork_top;
		RT_PUBLISH(&t->vfork_cur, (struct rt_ctx *)NULL);
	}
	if (ret < 0 && ret > -4096) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

/* At entry rsp is 8 below a multiple of 16: the calls into C take 8
 * more.  rdssp is a no-op where shadow stacks are off or unknown. */
__asm__(".text\n"
	".globl vfork\n"
	".type vfork, @function\n"
	".p2align 4\n"
	"vfork:\n"
	".cfi_startproc\n"
	"endbr64\n"
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
	".cfi_endproc\n"
	".size vfork, .-vfork\n");

#endif
