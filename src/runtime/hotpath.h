/*
 * hotpath.h - the hooks' fast paths, inline, for hooks.c's
 * -finstrument-functions hooks and the light path of fentry.c's.
 * fentry.c's own fast paths are this code written out in assembly
 * (Note [Fentry fast paths] there): a change here is a change there.  The
 * reasons for each step are the Notes in hooks.c.
 */
#ifndef CCPROF_RUNTIME_HOTPATH_H
#define CCPROF_RUNTIME_HOTPATH_H

#include "runtime.h"

/* Push a frame: write the slot, move top past it, write it again.  A
 * handler that interrupts us before top moves pushes into the same slot
 * and pops again (Note [Shadow stack]). */
static inline __attribute__((always_inline)) void push(struct rt_thread *t, struct rt_shadow *s,
							struct rt_ctx *c, uintptr_t fn,
							uintptr_t sp, uintptr_t cs)
{
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
}

/* A pair's target: never NULL (an empty slot holds rt_no_context), which
 * the compiler is told, so that the hooks test for NULL only after the
 * thread cache. */
static inline __attribute__((always_inline)) struct rt_ctx *pair_target(rt_pair_bits p)
{
	struct rt_ctx *to = (struct rt_ctx *)p[1];

	if (to == NULL)
		__builtin_unreachable();
	return to;
}

/* The memoised transition from c on fn, or NULL: the context's inline
 * cache, then the thread's direct-mapped cache (Note [Transition cache]
 * in machine.c); nothing written (Note [Slots without judgement]). */
static inline __attribute__((always_inline)) struct rt_ctx *
cached_transition(struct rt_thread *t, struct rt_ctx *c, uintptr_t fn)
{
	rt_pair_bits p = rt_pair_load(&c->cache[0]); /* one load: Note [Cache pairs] in hooks.c */
	const struct rt_tcache *e;
	struct rt_ctx *n;
	uint64_t gen;

	if (RT_LIKELY(p[0] == fn))
		return pair_target(p);
	p = rt_pair_load(&c->cache[1]);
	if (p[0] == fn)
		return pair_target(p);
	/* Atomic loads, so that the fences order them (a compiler may move
	 * plain loads across a signal fence). */
	gen = RT_LOAD(&t->tcache_gen);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	e = &t->tcache[RT_TCACHE_SLOT(c, fn)];
	if (RT_LOAD(&e->from) != c)
		return NULL;
	n = RT_LOAD(&e->to);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (n->fn != fn || RT_LOAD(&t->tcache_gen) != gen)
		return NULL;
	return n;
}

/*
 * Note [Frames gone, one branch]: the entry below this call's is not
 * gone if its frame lies above, or if it is this very frame, from the
 * same call site, of another function: one inlined into it (gcc hooks
 * those too, at their caller's sp).  In gcc builds the second case is
 * common (SQLite: 45 % of entries; objdump -d: 26 %), so a test that
 * branched on the stack pointers first went one way or the other at
 * random, and took the slow lane out of line each time.  The whole
 * condition is computed without branches (the three fields share the
 * entry's 32 bytes) and forced into a register (the empty asm: gcc
 * split it into two branches again otherwise), so that the one branch
 * left is taken only for frames really gone.  gcc's SQLite 0.970 of
 * the run's CPU time (0.945-0.990, 11 of 11 rounds), vm 0.927, tiny
 * 0.937 (9 of 9 each); clang's SQLite, recurse and dispatch unchanged
 * (bench/ab.py, docs/performance.md, session 44).  Linked statically
 * it cost vm, whose entries are nearly all inlined copies (the old
 * branch went one way), 2-11 % in five code layouts, while tiny gained
 * 4-16 % and SQLite nothing.  The -mfentry fast path tests the stack
 * pointers alone: it hooks no inlined copies.
 */
static inline __attribute__((always_inline)) int below_is_live(const struct rt_shadow *e,
							       uintptr_t sp, uintptr_t cs,
							       uintptr_t fn)
{
	uintptr_t at = e->sp;
	int live = (at > sp) | ((at == sp) & (e->cs == cs) & (e->fn != fn));

	__asm__("" : "+r"(live));
	return live;
}

/*
 * The enter fast path of both clocks: a memoised transition, nothing to
 * discard, room on the shadow stack.  Returns 0, before anything has
 * changed, for every other case.  known: also a transition the thread
 * has made before, which the caches missed (fentry.c's light path, Note
 * [Fentry light path]; a call of machine.c's).
 */
static inline __attribute__((always_inline)) int enter_cached(struct rt_thread *t, uintptr_t fn,
							      uintptr_t sp, uintptr_t cs, int known)
{
	struct rt_shadow *s = t->top;
	struct rt_ctx *c, *n;

	if (RT_UNLIKELY(!below_is_live(&s[-1], sp, cs, fn)))
		return 0;
	if (RT_UNLIKELY(rt_shadow_full(s)))
		return 0;
	c = t->cur;
	if (c->fn == fn) { /* A1 */
		push(t, s, c, fn, sp, cs);
		rt_count(&c->recursive);
		return 1;
	}
	n = cached_transition(t, c, fn);
	if (known && n == NULL)
		n = rt_transition_known(t, c, fn);
	if (RT_UNLIKELY(n == NULL))
		return 0;
	push(t, s, c, fn, sp, cs);
	rt_count(&n->entries);
	RT_PUBLISH(&t->cur, n);
	return 1;
}

#define enter_fast(t, fn, sp, cs) enter_cached(t, fn, sp, cs, 0)

/* The exit fast path of both clocks, for a thread with no calls past the
 * end of its shadow stack (t->overflow: a thread found by rt_hot has
 * none, Note [The hooks' thread] in threads.c): the top entry is this
 * call's (the sentinel's fn is a data address, so it never matches).
 * `cur` is restored before `top` moves back. */
static inline __attribute__((always_inline)) int exit_fast(struct rt_thread *t, uintptr_t fn,
							   uintptr_t cs)
{
	struct rt_shadow *s = t->top - 1;

	if (RT_UNLIKELY(s->fn != fn || s->cs != cs))
		return 0;
	rt_pop_to(t, s);
	return 1;
}

/* The same for gcc's -minstrument-return (fentry.c): the top entry is
 * the frame at sp from call site cs (the sentinel's sp is above every
 * frame's; a link's sp is a frame's, but its cs a data address). */
static inline __attribute__((always_inline)) int exit_fast_at(struct rt_thread *t, uintptr_t sp,
							      uintptr_t cs)
{
	struct rt_shadow *s = t->top - 1;

	if (RT_UNLIKELY(s->sp != sp || s->cs != cs))
		return 0;
	rt_pop_to(t, s);
	return 1;
}

#endif
