/*
 * fentry.c - hooks for gcc's -pg -mfentry -minstrument-return=call
 * (x86-64): __fentry__ at the start of every function gcc did not inline
 * away, __return__ before each of its returns.
 *
 * gcc's -finstrument-functions hooks inlined copies too, and pays for it
 * (bench vm: 36 M hook calls for 3.6 M real ones); these flags hook the
 * calls that are left after inlining, as clang's
 * -finstrument-functions-after-inlining does.  The program must not be
 * linked with -pg (that would start gprof's own collector), only
 * compiled with it, and linked with the runtime (-lccprof), which defines
 * __return__: glibc defines __fentry__ (for gprof) but not __return__.
 *
 * Note [Fentry registers]: gcc emits both calls with no regard for the
 * calling convention: __fentry__ runs before the prologue, with the
 * arguments still in their registers (integer and vector), and __return__
 * after the epilogue, with the return value in rax:rdx, xmm0:xmm1 or
 * st(0), or before a sibling call with that call's arguments loaded.
 * So the hooks' fast paths are assembly that uses only the registers
 * it saves, r11 (no argument is passed in it, and a PLT stub may clobber
 * it on the way to any function) and xmm15 (neither an argument nor a
 * return register).  Anything else goes through rt_fentry_saved, which
 * saves the x87, SSE, AVX and AVX-512 state with xsave (fxsave without
 * it) around the slow path, a call of the runtime's compiled as usual.
 *
 * Note [Fentry fast paths]: the fast paths are hotpath.h's enter_fast
 * and exit_fast_at written out in assembly (__fentry__, EXIT_FAST), step
 * for step: the same tests in the same order, the shadow slot written
 * twice around the move of top, cur published before top moves back.
 * Compiled from C they needed eight registers saved around a call of a
 * C function: 76 instructions an entry and 36 an exit on SQLite
 * (cachegrind), where the assembly takes 62 and 25, saving four
 * registers at an entry and none at an exit before a ret (the return
 * value is in rax:rdx or a vector register, and the rest is dead
 * there).  The offsets it uses are checked against the structures
 * below; tests/fentry.py runs core.py's dispatcher checks (slots, thread
 * cache, a signal storm) on a build with these hooks.
 *
 * Note [Fentry light path]: the fast path misses where a context calls
 * more functions than the caches hold (SQLite's driver: 5.5 % of its
 * entries), and xsave and xrstor of the AVX-512 state took 16 % of the
 * profiled run.  Nearly all those misses find a transition the thread
 * has made before, in its table.  So __fentry__ tries that first with
 * xmm0-7 saved (movaps): at a function's entry only the arguments are
 * live, and the code it runs (rt_fentry_enter_known in hooks.c,
 * rt_transition_known in machine.c) is built with -mno-avx, so it
 * touches the low halves of xmm0-15 alone, with legacy SSE instructions
 * that leave the upper halves and the AVX-512 registers as they were,
 * and it calls no function of libc's (whose string functions use AVX).
 * tests/fentry.py checks both in the disassembly.  A transition to
 * make, frames to discard, the first call of a thread and clock=cycles
 * go on to the full save.
 *
 * Note [Fentry keys]: neither hook is told which function it is in.
 * __fentry__'s return address is in the function, just after the call,
 * and unique to it: the hooks key contexts and caches by it.  The cost
 * centre is the function's own address: the call (5 bytes, or 6 through
 * the GOT in PIC code) and an endbr64 before it (-fcf-protection) are
 * counted back, in the slow path only (rt_fentry_start).  A GNU C
 * nested function pushes its static chain before the call, so its
 * __fentry__ sees the stack 8 bytes lower than its __return__: its exit
 * does not match, and its entry goes when the next call or exit of its
 * caller finds its frame gone.  __return__'s
 * stack pointer is the function's at entry, the address of its return
 * address, which is also __fentry__'s; it and the call site found there
 * name the call an exit ends.
 */
#include <stddef.h>

#include "runtime.h"

#if defined(__x86_64__) && defined(__ELF__)

#include <cpuid.h>

/* Bytes rt_fentry_saved takes for the state (0 until measured, at the
 * first slow path), and the xsave mask (0: fxsave). */
RT_HIDDEN uint32_t rt_fentry_save_bytes;
RT_HIDDEN uint32_t rt_fentry_xsave_mask;

/* x87, SSE, AVX, and AVX-512's opmask, ZMM_Hi256 and Hi16_ZMM: the state
 * a program's arguments and return values can be in.  Not AMX's tiles,
 * which no call passes. */
#define XSAVE_WANTED 0xe7u

/* Measures the save area once per process (every thread finds the same;
 * a race writes the same values).  No vector register: it runs before
 * they are saved. */
RT_HIDDEN uint32_t rt_fentry_save_setup(void);
uint32_t rt_fentry_save_setup(void)
{
	unsigned a, b, c, d, i;
	uint32_t mask = 0, bytes = 512; /* fxsave */

	if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_OSXSAVE)) {
		uint32_t lo, hi;

		__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
		mask = lo & XSAVE_WANTED;
		bytes = 512 + 64; /* legacy area and header */
		for (i = 2; i < 8; i++)
			if ((mask >> i) & 1 && __get_cpuid_count(0xd, i, &a, &b, &c, &d) &&
			    a + b > bytes)
				bytes = a + b; /* size, offset */
	}
	RT_STORE(&rt_fentry_xsave_mask, mask);
	RT_PUBLISH(&rt_fentry_save_bytes, bytes + 64); /* and room to align to 64 */
	return bytes + 64;
}

/* Note [Fentry keys].  The call is `call *__fentry__@GOTPCREL(%rip)` (ff
 * 15, 6 bytes) in PIC code, which the linker makes `addr32 call` (67 e8)
 * where it defines __fentry__ itself (libccprof.a), or else `call` (e8,
 * 5 bytes).  A GNU C nested function saves its static chain around it
 * (push %r10: 41 52).  The bytes before the call are looked at only where
 * they are on the call's page: a function that begins a mapping would
 * have nothing readable before it.  Missed, the cost centre is a few
 * bytes into its function, which the tool's lookup still names. */
static int bytes_before(uintptr_t at, unsigned char a, unsigned char b)
{
	const unsigned char *p = (const unsigned char *)at;

	return (at & 4095) >= 2 && p[-2] == a && p[-1] == b;
}

uintptr_t rt_fentry_start(uintptr_t key)
{
	const unsigned char *k = (const unsigned char *)key;
	uintptr_t call = (k[-6] == 0xff && k[-5] == 0x15) || (k[-6] == 0x67 && k[-5] == 0xe8) ?
		key - 6 : key - 5;

	if (bytes_before(call, 0x41, 0x52))
		call -= 2;
	if (bytes_before(call, 0x1e, 0xfa) && bytes_before(call - 2, 0xf3, 0x0f))
		call -= 4; /* endbr64 */
	return call;
}

/*
 * The hooks.  At entry to either, rsp is 16-byte aligned: [rsp] is the
 * return address into the function, [rsp + 8] the function's own return
 * address (the call site), and rsp + 8 the function's stack pointer at
 * its entry.  The fast path of __fentry__ pushes four registers, the
 * paths that call C eight, which keeps the alignment; the call site is
 * then at 40(%rsp) or 72(%rsp).  __return__ followed by a ret saves only
 * rax and rdx, and only to call C.
 */

/* push(): the slot written, top moved past it, the slot written again
 * (Note [Shadow stack]); s in rcx, c in rdx, t in r11, the key and call
 * site at 32(%rsp) and 40(%rsp) */
#define PUSH_FRAME_SLOT \
	"mov %rdx, " OFF(S_CTX, "%rcx") "\n" \
	"lea 40(%rsp), %rax\n mov %rax, " OFF(S_SP, "%rcx") "\n" \
	"mov 32(%rsp), %rax\n mov %rax, " OFF(S_FN, "%rcx") "\n" \
	"mov 40(%rsp), %rax\n mov %rax, " OFF(S_CS, "%rcx") "\n"
#define PUSH_FRAME PUSH_FRAME_SLOT \
	"lea " STR(S_SIZE) "(%rcx), %rax\n mov %rax, " OFF(T_TOP, "%r11") "\n" \
	PUSH_FRAME_SLOT

#define SAVE_GPRS "push %rdi\n push %rsi\n push %rdx\n push %rcx\n" \
		  "push %r8\n push %r9\n push %rax\n push %r10\n"
#define RESTORE_GPRS "pop %r10\n pop %rax\n pop %r9\n pop %r8\n" \
		     "pop %rcx\n pop %rdx\n pop %rsi\n pop %rdi\n"

/* Offsets the hooks' assembly uses, checked against the structures. */
#define T_CUR 0
#define T_TOP 8
#define T_GEN 24
#define T_TCACHE 4096
#define S_CTX 0
#define S_SP 8
#define S_FN 16
#define S_CS 24
#define S_SIZE 32
#define C_FN 0
#define C_CACHE0 16
#define C_CACHE1 32
#define C_ENTRIES 48
#define C_RECURSIVE 56
#define E_FROM 0
#define E_TO 8
#define SEGMENT_MASK 0x1fffff /* RT_SEGMENT_BYTES - 1 */
#define TCACHE_MASK 0x1ff0 /* RT_TCACHE_SLOT's, times the entry's size */
_Static_assert(offsetof(struct rt_thread, cur) == T_CUR, "T_CUR");
_Static_assert(offsetof(struct rt_thread, top) == T_TOP, "T_TOP");
_Static_assert(offsetof(struct rt_thread, tcache_gen) == T_GEN, "T_GEN");
_Static_assert(offsetof(struct rt_thread, tcache) == T_TCACHE, "T_TCACHE");
_Static_assert(offsetof(struct rt_shadow, ctx) == S_CTX, "S_CTX");
_Static_assert(offsetof(struct rt_shadow, sp) == S_SP, "S_SP");
_Static_assert(offsetof(struct rt_shadow, fn) == S_FN, "S_FN");
_Static_assert(offsetof(struct rt_shadow, cs) == S_CS, "S_CS");
_Static_assert(sizeof(struct rt_shadow) == S_SIZE, "S_SIZE");
_Static_assert(offsetof(struct rt_ctx, fn) == C_FN, "C_FN");
_Static_assert(offsetof(struct rt_ctx, cache) == C_CACHE0, "C_CACHE0");
_Static_assert(offsetof(struct rt_ctx, cache[1]) == C_CACHE1, "C_CACHE1");
_Static_assert(offsetof(struct rt_ctx, entries) == C_ENTRIES, "C_ENTRIES");
_Static_assert(offsetof(struct rt_ctx, recursive) == C_RECURSIVE, "C_RECURSIVE");
_Static_assert(offsetof(struct rt_tcache, from) == E_FROM, "E_FROM");
_Static_assert(offsetof(struct rt_tcache, to) == E_TO, "E_TO");
_Static_assert(sizeof(struct rt_tcache) == 16 &&
	       RT_TCACHE_SLOT(0, ~(uintptr_t)0) * 16 == TCACHE_MASK, "TCACHE_MASK");
_Static_assert(RT_SEGMENT_BYTES - 1 == SEGMENT_MASK, "SEGMENT_MASK");
#define STR_(x) #x
#define STR(x) STR_(x)
#define OFF(field, reg) STR(field) "(" reg ")"
#define BELOW(field, reg) STR(field - S_SIZE) "(" reg ")"

/* exit_fast_at (hotpath.h) with the function's stack pointer at off(%rsp)
 * and its call site there: r9, r10 and r11 clobbered (dead at a ret in
 * either calling convention, ms_abi's too); on to fail for the slow
 * path, else on past the end. */
#define EXIT_FAST(off, fail, not_hot) \
	"mov rt_hot@gottpoff(%rip), %r11\n" \
	"mov %fs:(%r11), %r11\n" \
	"test %r11, %r11\n" \
	"jz " not_hot "\n" \
	"mov " OFF(T_TOP, "%r11") ", %r10\n" \
	"lea " off "(%rsp), %r9\n" \
	"cmp %r9, " BELOW(S_SP, "%r10") "\n" \
	"jne " fail "\n" \
	"mov " off "(%rsp), %r9\n" \
	"cmp %r9, " BELOW(S_CS, "%r10") "\n" \
	"jne " fail "\n" \
	"mov " BELOW(S_CTX, "%r10") ", %r9\n" \
	"mov %r9, " OFF(T_CUR, "%r11") "\n" /* cur first: rt_pop_to */ \
	"sub $" STR(S_SIZE) ", %r10\n" \
	"mov %r10, " OFF(T_TOP, "%r11") "\n"

/* No rt_hot (Note [The hooks' thread] in threads.c): on to slow where
 * the thread has a state (clock=cycles, calls past the end of the shadow
 * stack), else on past the end (no call of this thread's was seen). */
#define EXIT_NOT_HOT(slow) \
	"mov rt_self@gottpoff(%rip), %r11\n" \
	"mov %fs:(%r11), %r11\n" \
	"test %r11, %r11\n" \
	"jnz " slow "\n"

__asm__(".text\n"
	".globl __fentry__\n"
	".type __fentry__, @function\n"
	".p2align 6\n"
	"__fentry__:\n"
	"mov rt_hot@gottpoff(%rip), %r11\n"
	"mov %fs:(%r11), %r11\n"
	"test %r11, %r11\n"
	"jz 5f\n"
	/* enter_fast: t in r11; the key at 32(%rsp), the call site at 40 */
	"push %rax\n push %rcx\n push %rdx\n push %rsi\n"
	"mov " OFF(T_TOP, "%r11") ", %rcx\n"          /* s */
	"lea 40(%rsp), %rax\n"                          /* sp */
	"cmp %rax, " BELOW(S_SP, "%rcx") "\n"
	"jbe 7f\n"                                      /* s[-1].sp <= sp */
	"test $" STR(SEGMENT_MASK) ", %ecx\n"
	"jz 7f\n"                                       /* full: rt_shadow_full */
	"mov " OFF(T_CUR, "%r11") ", %rdx\n"          /* c */
	"mov 32(%rsp), %rax\n"                          /* fn */
	"cmp " OFF(C_FN, "%rdx") ", %rax\n"
	"je 8f\n"                                       /* A1 */
	/* cached_transition: a slot's pair in one load, through xmm15 */
	"movdqa " OFF(C_CACHE0, "%rdx") ", %xmm15\n"
	"movq %xmm15, %rsi\n"
	"cmp %rsi, %rax\n"
	"je 9f\n"
	"movdqa " OFF(C_CACHE1, "%rdx") ", %xmm15\n"
	"movq %xmm15, %rsi\n"
	"cmp %rsi, %rax\n"
	"je 9f\n"
	"mov " OFF(T_GEN, "%r11") ", %rsi\n"          /* gen */
	"xor %rdx, %rax\n"
	"and $" STR(TCACHE_MASK) ", %eax\n"
	"add %r11, %rax\n"                              /* e, less T_TCACHE */
	"cmp %rdx, " STR(T_TCACHE + E_FROM) "(%rax)\n"
	"jne 7f\n"
	"mov " STR(T_TCACHE + E_TO) "(%rax), %rax\n"  /* n */
	"cmp " OFF(T_GEN, "%r11") ", %rsi\n"
	"jne 7f\n"
	"mov 32(%rsp), %rsi\n"
	"cmp " OFF(C_FN, "%rax") ", %rsi\n"
	"jne 7f\n"
	"mov %rax, %rsi\n"
	"jmp 10f\n"
	"9:\n"
	"punpckhqdq %xmm15, %xmm15\n"
	"movq %xmm15, %rsi\n"                           /* n */
	"10:\n"
	PUSH_FRAME
	"addq $1, " OFF(C_ENTRIES, "%rsi") "\n"
	"mov %rsi, " OFF(T_CUR, "%r11") "\n"
	"pop %rsi\n pop %rdx\n pop %rcx\n pop %rax\n"
	"ret\n"
	"8:\n"
	PUSH_FRAME
	"addq $1, " OFF(C_RECURSIVE, "%rdx") "\n"
	"pop %rsi\n pop %rdx\n pop %rcx\n pop %rax\n"
	"ret\n"
	"7:\n"
	"pop %rsi\n pop %rdx\n pop %rcx\n pop %rax\n"
	SAVE_GPRS
	/* Note [Fentry light path]: xmm0-7 saved, the stack aligned (a
	 * nested function's push leaves it 8 off) */
	"push %rbp\n"
	"mov %rsp, %rbp\n"
	"and $-16, %rsp\n"
	"sub $128, %rsp\n"
	"movaps %xmm0, (%rsp)\n movaps %xmm1, 16(%rsp)\n"
	"movaps %xmm2, 32(%rsp)\n movaps %xmm3, 48(%rsp)\n"
	"movaps %xmm4, 64(%rsp)\n movaps %xmm5, 80(%rsp)\n"
	"movaps %xmm6, 96(%rsp)\n movaps %xmm7, 112(%rsp)\n"
	"mov 72(%rbp), %rdi\n"
	"lea 80(%rbp), %rsi\n"
	"mov 80(%rbp), %rdx\n"
	"call rt_fentry_enter_known\n"
	"movaps (%rsp), %xmm0\n movaps 16(%rsp), %xmm1\n"
	"movaps 32(%rsp), %xmm2\n movaps 48(%rsp), %xmm3\n"
	"movaps 64(%rsp), %xmm4\n movaps 80(%rsp), %xmm5\n"
	"movaps 96(%rsp), %xmm6\n movaps 112(%rsp), %xmm7\n"
	"mov %rbp, %rsp\n"
	"pop %rbp\n"
	"test %eax, %eax\n"
	"jnz 0f\n"
	"jmp 2f\n"
	"5:\n"                                          /* no rt_hot */
	"mov rt_stateless@gottpoff(%rip), %r11\n"
	"cmpl $0, %fs:(%r11)\n"
	"je 6f\n"                                       /* first call, cycles, overflow */
	"ret\n"                                         /* none to record */
	"6:\n"
	SAVE_GPRS
	"2:\n"
	"mov 64(%rsp), %rdi\n"          /* key */
	"lea 72(%rsp), %rsi\n"          /* sp */
	"mov 72(%rsp), %rdx\n"          /* call site */
	"lea rt_fentry_enter_slow(%rip), %rcx\n"
	"call rt_fentry_saved\n"
	"0:\n"
	RESTORE_GPRS
	"ret\n"
	".size __fentry__, .-__fentry__\n"

	".globl __return__\n"
	".type __return__, @function\n"
	".p2align 6\n"
	"__return__:\n"
	/* Before a ret, only the return registers are live; a sibling
	 * call's jmp has its arguments loaded: save those first. */
	"mov (%rsp), %r11\n"
	"cmpb $0xc3, (%r11)\n"
	"jne 2f\n"
	EXIT_FAST("8", "4f", "11f")
	"ret\n"
	"11:\n"
	EXIT_NOT_HOT("4f")
	"ret\n"
	"4:\n"
	"push %rax\n push %rdx\n"
	"lea 24(%rsp), %rdi\n"          /* sp */
	"mov 24(%rsp), %rsi\n"          /* call site */
	"lea rt_fentry_exit_slow(%rip), %rcx\n"
	"call rt_fentry_saved\n"
	"pop %rdx\n pop %rax\n"
	"ret\n"
	"2:\n"
	SAVE_GPRS
	EXIT_FAST("72", "3f", "12f")
	RESTORE_GPRS
	"ret\n"
	"12:\n"
	EXIT_NOT_HOT("3f")
	RESTORE_GPRS
	"ret\n"
	"3:\n"
	"lea 72(%rsp), %rdi\n"
	"mov 72(%rsp), %rsi\n"
	"lea rt_fentry_exit_slow(%rip), %rcx\n"
	"call rt_fentry_saved\n"
	RESTORE_GPRS
	"ret\n"
	".size __return__, .-__return__\n"

	/* (*rcx)(rdi, rsi, rdx) with the vector and x87 state saved on the
	 * stack: xsave's area 64-byte aligned, its header zeroed first
	 * (xrstor faults on a header xsave did not write). */
	".hidden rt_fentry_saved\n"
	".type rt_fentry_saved, @function\n"
	"rt_fentry_saved:\n"
	"push %rbp\n"
	"mov %rsp, %rbp\n"
	"push %r12\n push %r13\n push %r14\n push %r15\n"
	"mov %rdi, %r12\n mov %rsi, %r13\n mov %rdx, %r14\n mov %rcx, %r15\n"
	"mov rt_fentry_save_bytes(%rip), %eax\n"
	"test %eax, %eax\n"
	"jnz 1f\n"
	"call rt_fentry_save_setup\n"
	"1:\n"
	"sub %rax, %rsp\n"
	"and $-64, %rsp\n"
	"mov rt_fentry_xsave_mask(%rip), %eax\n"
	"test %eax, %eax\n"
	"jz 2f\n"
	"xor %edx, %edx\n"
	"movq %rdx, 512(%rsp)\n movq %rdx, 520(%rsp)\n movq %rdx, 528(%rsp)\n"
	"movq %rdx, 536(%rsp)\n movq %rdx, 544(%rsp)\n movq %rdx, 552(%rsp)\n"
	"movq %rdx, 560(%rsp)\n movq %rdx, 568(%rsp)\n"
	"xsave (%rsp)\n"
	"mov %r12, %rdi\n mov %r13, %rsi\n mov %r14, %rdx\n"
	"call *%r15\n"
	"mov rt_fentry_xsave_mask(%rip), %eax\n"
	"xor %edx, %edx\n"
	"xrstor (%rsp)\n"
	"jmp 3f\n"
	"2:\n"
	"fxsave (%rsp)\n"
	"mov %r12, %rdi\n mov %r13, %rsi\n mov %r14, %rdx\n"
	"call *%r15\n"
	"fxrstor (%rsp)\n"
	"3:\n"
	"lea -32(%rbp), %rsp\n"
	"pop %r15\n pop %r14\n pop %r13\n pop %r12\n"
	"pop %rbp\n"
	"ret\n"
	".size rt_fentry_saved, .-rt_fentry_saved\n");

#else /* not x86-64: gcc has no -minstrument-return there */

uintptr_t rt_fentry_start(uintptr_t key)
{
	return key;
}

#endif
