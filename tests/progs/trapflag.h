/* trapflag.h - the x86 trap flag, for the tests that single-step a call
 * and run instrumented code from the SIGTRAP handler at each instruction
 * (stepper.c, segstep.c).  x86-64 only. */
#ifndef CCPROF_TEST_TRAPFLAG_H
#define CCPROF_TEST_TRAPFLAG_H

#define TRAP_FLAG 0x100

/* Set or clear it: with it set, a SIGTRAP follows every instruction. */
__attribute__((no_instrument_function, always_inline)) static inline void trap_flag(int on)
{
	if (on)
		__asm__ volatile("pushfq; orq $0x100, (%%rsp); popfq" ::: "memory", "cc");
	else
		__asm__ volatile("pushfq; andq $~0x100, (%%rsp); popfq" ::: "memory", "cc");
}

#endif
