/*
 * hooks.c - the hot path: __cyg_profile_func_enter / _exit.
 *
 * Every call of an instrumented function runs these two, so they are kept
 * here alone and small.  A call whose transition is already memoised takes
 * no lock, makes no system call, allocates nothing and reads no clock
 * (under the default sampling clock): it pushes one shadow entry, looks at
 * the current context's inline cache and bumps one counter.  Everything
 * else is a slow path in machine.c.  See Note [Ownership] and
 * Note [Shadow stack] in runtime.h.
 */
#include "runtime.h"

extern const int rt_manual_anchor RT_HIDDEN;
__attribute__((used)) static const int *const pull_manual = &rt_manual_anchor;

#define HOOK __attribute__((visibility("default"), no_instrument_function))

/* The instrumented function's stack pointer when it called the hook: the
 * same for its enter and exit calls, lower for anything it calls. */
#define CALLER_SP() ((uintptr_t)__builtin_dwarf_cfa())

/* Push a frame and move to the context entered with `fn`. */
static inline __attribute__((always_inline)) void enter(struct rt_thread *t, uintptr_t fn,
							 uintptr_t sp, uintptr_t cs)
{
	struct rt_shadow *s = t->top;
	struct rt_ctx *c = t->cur;
	struct rt_ctx *n;

	if (RT_UNLIKELY(s == t->limit)) {
		if (rt_shadow_grow(t) != 0) {
			t->overflow++;
			t->lost_calls++;
			return;
		}
		s = t->top;
	}
	/* A handler that interrupts us before top moves pushes into *s and
	 * pops again: write the slot, publish it, then write it again. */
	s->ctx = c;
	s->sp = sp;
	s->fn = fn;
	s->cs = cs;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->top = s + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	s->ctx = c;
	s->sp = sp;
	s->fn = fn;
	s->cs = cs;
	if (c->fn == fn) { /* A1: direct recursion keeps the context */
		RT_STORE(&c->recursive, c->recursive + 1);
		return;
	}
	if (RT_LIKELY(c->cache_fn[0] == fn))
		n = c->cache_to[0];
	else if (c->cache_fn[1] == fn)
		n = c->cache_to[1];
	else if ((n = rt_transition(t, c, fn)) == NULL)
		return; /* not recorded: Note [Re-entry] in machine.c */
	RT_STORE(&n->entries, n->entries + 1);
	RT_PUBLISH(&t->cur, n);
}

void rt_enter(struct rt_thread *t, uintptr_t fn, uintptr_t sp, uintptr_t cs)
{
	enter(t, fn, sp, cs);
}

HOOK void __cyg_profile_func_enter(void *fn, void *call_site)
{
	struct rt_thread *t = rt_self;
	uintptr_t sp = CALLER_SP();

	if (RT_UNLIKELY(t == NULL)) {
		t = rt_thread_start();
		if (t == NULL)
			return;
	}
	if (RT_UNLIKELY(rt_cycles))
		rt_charge_ticks(t, rt_tick());
	if (RT_UNLIKELY(t->top[-1].sp <= sp))
		rt_discard_gone(t, sp, (uintptr_t)call_site, (uintptr_t)fn);
	enter(t, (uintptr_t)fn, sp, (uintptr_t)call_site);
}

HOOK void __cyg_profile_func_exit(void *fn, void *call_site)
{
	struct rt_thread *t = rt_self;
	uintptr_t sp = CALLER_SP();
	struct rt_shadow *s;
	struct rt_ctx *back;

	if (RT_UNLIKELY(t == NULL))
		return;
	if (RT_UNLIKELY(rt_cycles))
		rt_charge_ticks(t, rt_tick());
	if (RT_UNLIKELY(t->overflow)) {
		t->overflow--;
		return;
	}
	/* The newest entry of this (fn, call site).  The exit hook's sp is
	 * not the entry's: a sibling call after the epilogue (gcc/clang -O2)
	 * sees the function's CFA, alloca a lower sp.  Entries above it are
	 * frames gone without a return; an entry above sp that does not
	 * match is a live outer frame: this exit is unmatched. */
	for (s = t->top; s > t->base + 1; s--) {
		if (RT_LIKELY(s[-1].fn == (uintptr_t)fn && s[-1].cs == (uintptr_t)call_site))
			break;
		if (s[-1].sp > sp && !(s[-1].sp & RT_REGION_SP))
			return; /* unmatched */
	}
	if (RT_UNLIKELY(s == t->base + 1))
		return; /* unmatched */
	s--;
	back = s->ctx;
	RT_PUBLISH(&t->cur, back);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->top = s;
}
