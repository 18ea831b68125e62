/*
 * manual.c - the public API of ccprof.h: named regions and ccprof_dump.
 *
 * A region is a cost centre keyed by the address of its handle, so it
 * takes part in the context machine exactly like a function.  Its shadow
 * entry carries RT_REGION_SP (Note [Shadow stack]): it has no frame of its
 * own, so it is closed by key, and by the return of the function that
 * opened it if it is never closed.
 */
#include <errno.h>
#include <string.h>

#define CCPROF_BUILDING_RUNTIME
#include "ccprof.h"
#include "runtime.h"

struct ccprof_cc {
	struct ccprof_cc *next;
	char name[];
};

/* Referenced by hooks.c, so that a static link that pulls in the hooks
 * pulls in this API too (the header's references to it are weak). */
const int rt_manual_anchor = 1;

static struct ccprof_cc *regions;
static pthread_mutex_t regions_lock = PTHREAD_MUTEX_INITIALIZER;

/* In a forked child: the lock may have been held by a thread that is gone
 * (a region it was adding is at worst missing from the list, and gets
 * added again on its next ccprof_cc). */
void rt_manual_after_fork(void)
{
	pthread_mutex_init(&regions_lock, NULL);
}

/* Just below the caller's stack pointer: under its frame, above any frame
 * it calls. */
#define REGION_SP() (((uintptr_t)__builtin_frame_address(0) + sizeof(void *)) | RT_REGION_SP)

RT_API ccprof_cc_t ccprof__cc(const char *name)
{
	struct ccprof_cc *r;
	size_t n;

	rt_init();
	if (rt_config.disabled)
		return NULL;
	if (name == NULL)
		name = "(null)";
	pthread_mutex_lock(&regions_lock);
	for (r = regions; r; r = r->next)
		if (strcmp(r->name, name) == 0)
			break;
	if (r == NULL) {
		n = strlen(name) + 1;
		r = rt_map(sizeof *r + n);
		if (r) {
			memcpy(r->name, name, n);
			r->next = regions;
			regions = r;
			if (rt_cc_intern((uintptr_t)r, CCP_CC_MANUAL, r->name) == UINT32_MAX)
				r = NULL;
		}
	}
	pthread_mutex_unlock(&regions_lock);
	return r;
}

RT_API void ccprof__enter(ccprof_cc_t cc)
{
	struct rt_thread *t = rt_self;

	if (cc == NULL)
		return;
	if (t == NULL && (t = rt_thread_start()) == NULL)
		return;
	if (rt_cycles) /* the time so far belongs to the context we leave */
		rt_charge_ticks(t, rt_tick());
	/* Frames left by longjmp since the last hook: strictly below the
	 * caller's stack pointer (its own entry stays). */
	if (t->top[-1].sp < REGION_SP())
		rt_discard_gone(t, REGION_SP() - 1, 0, 0);
	rt_enter(t, (uintptr_t)cc, REGION_SP(), 0);
}

/* Pop back to the context that was current before `cc` was entered: the
 * newest shadow entry whose following context runs `cc`. */
RT_API void ccprof__leave(ccprof_cc_t cc)
{
	struct rt_thread *t = rt_self;
	struct rt_ctx *after;
	struct rt_shadow *s;

	if (cc == NULL || t == NULL)
		return;
	if (rt_cycles)
		rt_charge_ticks(t, rt_tick());
	if (t->overflow) {
		t->overflow--;
		return;
	}
	after = t->cur;
	for (s = t->top - 1; s > t->base; s--) {
		if (after->fn == (uintptr_t)cc && (s->sp & RT_REGION_SP)) {
			rt_pop_to(t, s);
			return;
		}
		after = s->ctx;
	}
}

RT_API int ccprof__dump(void)
{
	rt_init();
	if (rt_config.disabled) {
		errno = EPERM;
		return -1;
	}
	return rt_dump();
}
