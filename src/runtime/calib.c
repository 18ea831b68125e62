/*
 * calib.c - the calibration fixture: the only code in the runtime that is
 * compiled with -finstrument-functions (see the Makefile).  It is never
 * profiled: it runs once per process, when the first thread state is made
 * (Note [Calibration at the first hook] in clock.c), on a private thread
 * state, so that clock.c can measure what instrumentation really adds to
 * a call (the instrumented prologue and epilogue, the calls through the
 * PLT, both hooks) by comparing it with the same empty function
 * uninstrumented.
 */
#include "runtime.h"

__attribute__((noinline)) void rt_calib_instrumented(void)
{
	__asm__ __volatile__("");
}

__attribute__((noinline, no_instrument_function)) void rt_calib_bare(void)
{
	__asm__ __volatile__("");
}
