/* clock_stubs.h - what src/runtime/clock.c, compiled into a unit test,
 * refers to elsewhere in the runtime: the calibration's and the writer's
 * parts, which the unit tests of the clock do not run. */
#ifndef CCPROF_TEST_CLOCK_STUBS_H
#define CCPROF_TEST_CLOCK_STUBS_H

#include "runtime/clock.c"

struct rt_config rt_config;
int rt_cycles = 1;
__thread struct rt_thread *rt_self;
struct rt_thread *rt_thread_private(void) { return NULL; }
struct rt_ctx *rt_context_alloc(struct rt_thread *t, uintptr_t fn) { (void)t; (void)fn; return NULL; }
struct rt_thread *rt_registry_first(void) { return NULL; }
void rt_calib_instrumented(void) {}
void rt_calib_bare(void) {}
void rt_unmap(void *p, size_t n) { (void)p; (void)n; }

#endif
