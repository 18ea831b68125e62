/*
 * stacks.c - a shadow stack for each machine stack a thread runs on.
 *
 * Note [One shadow stack a stack]: the hooks tell frames left without a
 * return from live ones by their stack pointers (Note [Shadow stack] in
 * runtime.h), which takes the calls on a thread's shadow stack to lie on
 * one machine stack.  Coroutines made with makecontext and switched by
 * swapcontext break that: a coroutine's calls and its resumer's lie on
 * two stacks, and whichever lay lower had its entries taken for frames
 * gone, or pushed on top of the other's (a coroutine's callees under the
 * function that resumed it one time and its own calls under a function
 * long returned the next; the counts stayed exact).  So swapcontext and
 * setcontext are interposed (ucontext.c, shared runtime only), and each
 * machine stack has a shadow stack of its own:
 *
 * - The thread's own stack's is kept in rt_thread (stacks.own) while
 *   another runs.  A coroutine's is kept in the frame of the interposed
 *   swapcontext that left it (struct rt_stack_saved), on the coroutine's
 *   own stack, until that call returns: no table, no lock, and a
 *   coroutine resumed on another thread takes its shadow stack along.
 * - A switch to a context that has none yet (a coroutine's first) gets an
 *   empty one, from a spare the thread keeps: in the usual back and forth
 *   no switch allocates.  The one running is given back when the stack
 *   it belonged to is left for good: by setcontext, or by the coroutine's
 *   function returning to uc_link (glibc makes that switch inside libc,
 *   unseen; the swapcontext it returns into finds the shadow stack and
 *   takes it).
 * - A coroutine's calls continue the context of whoever resumes it: its
 *   bottom frame's caller is the context the switch to it left, each
 *   time, as a Python generator's frames continue its resumer's stack.
 *   So a coroutine's time is charged under the function that resumed it
 *   while it ran, and a resumer's inclusive time is what it really took.
 *   When the resumer's context is not the one the coroutine's entries
 *   were made under, they are made again from it (replay), from the
 *   thread's own transitions (also for a coroutine another thread ran
 *   before); no call is counted again.  The thread's own stack's bottom
 *   is its root, always.  A coroutine resumed by its uc_link's return
 *   (not by a switch) keeps the context it had.
 * - A switch to the same stack (a context from getcontext, like a
 *   longjmp) changes nothing: the hooks follow it as they follow a jump.
 *
 * Which stack a context resumes on comes from its saved stack pointer
 * (x86-64 and AArch64), and the stack's bounds from uc_stack, which
 * makecontext needs set (a stack in a buffer inside the thread's own
 * stack is a stack of its own); a stack whose bounds are not known is
 * taken as the thread's own.  Signal handlers may run between the stores
 * of a switch: what they push they pop, on whichever shadow stack they
 * find, and a walk down a shadow stack stops at its own sentinel, known
 * by its contents (rt_entry_below).
 */
#include <errno.h>
#include <ucontext.h>

#include "runtime.h"

/* The stack pointer a context resumes at, or 0 where its layout is not
 * known. */
static uintptr_t resume_sp(const ucontext_t *to)
{
#if defined(__x86_64__)
	return (uintptr_t)to->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
	return (uintptr_t)to->uc_mcontext.sp;
#else
	(void)to;
	return 0;
#endif
}

static int within(uintptr_t p, uintptr_t lo, uintptr_t hi)
{
	return p >= lo && p < hi;
}

/* Whether `to` resumes on the stack lo..hi: its stack pointer is there,
 * and not on a smaller stack of its own inside it (a coroutine's, in a
 * buffer on the thread's stack). */
static int resumes_on(const ucontext_t *to, uintptr_t sp, uintptr_t lo, uintptr_t hi)
{
	uintptr_t own_lo = (uintptr_t)to->uc_stack.ss_sp, own_hi = own_lo + to->uc_stack.ss_size;

	if (!within(sp, lo, hi))
		return 0;
	return !(own_hi > own_lo && within(sp, own_lo, own_hi) && (own_lo > lo || own_hi < hi));
}

static void save(struct rt_thread *t, struct rt_stack_saved *s)
{
	s->owner = t;
	s->base = t->base;
	s->top = t->top;
	s->cur = t->cur;
	s->root = t->stacks.on_other ? t->stacks.root : t->root;
	s->stack_lo = t->stack_lo;
	s->stack_hi = t->stack_hi;
	s->overflow = t->overflow;
	s->own = !t->stacks.on_other;
}

/* s's shadow stack becomes the running one, with `cur` current. */
static void install(struct rt_thread *t, const struct rt_stack_saved *s, struct rt_ctx *cur)
{
	t->stacks.on_other = !s->own;
	t->stacks.root = s->root;
	RT_STORE(&t->stack_lo, s->stack_lo);
	RT_STORE(&t->stack_hi, s->stack_hi);
	RT_STORE(&t->base, s->base);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->top = s->top;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	RT_PUBLISH(&t->cur, cur);
	if (t->overflow != s->overflow)
		rt_overflow_set(t, s->overflow);
}

/* An empty shadow stack: the thread's spare, a new one, or NULL. */
static struct rt_shadow *empty_chain(struct rt_thread *t)
{
	struct rt_shadow *base = t->stacks.spare;

	if (base == NULL)
		return rt_chain_new();
	t->stacks.spare = NULL;
	return base;
}

/* A shadow stack no stack holds any more: the spare, or the pool's. */
static void release_chain(struct rt_thread *t, struct rt_shadow *base)
{
	if (t->stacks.spare == NULL) {
		rt_chain_reset(base);
		t->stacks.spare = base;
	} else {
		rt_chain_give_back(base);
	}
}

/* The running shadow stack, left: the thread's own kept in t, a
 * coroutine's in `mine` (or released, `into` NULL: left for good). */
static void leave_running(struct rt_thread *t, struct rt_stack_saved *mine, const void *into)
{
	if (!t->stacks.on_other) {
		save(t, &t->stacks.own);
		mine->owner = t;
		mine->own = 1;
	} else if (into != NULL) {
		save(t, mine);
	}
	mine->into = into;
}

void rt_stack_leave(struct rt_stack_saved *mine, const struct ucontext_t *to, const void *into)
{
	struct rt_thread *t = rt_self;
	struct rt_stack_saved next;
	struct rt_shadow *left = NULL;
	uintptr_t sp, lo, hi;
	int saved = errno;

	mine->owner = NULL;
	if (t == NULL || t->busy || (sp = resume_sp(to)) == 0 ||
	    resumes_on(to, sp, t->stack_lo, t->stack_hi))
		return;
	if (rt_cycles)
		rt_charge_ticks(t, rt_tick());
	if (t->stacks.on_other && resumes_on(to, sp, t->stacks.own.stack_lo, t->stacks.own.stack_hi)) {
		next = t->stacks.own; /* back to the thread's own stack */
	} else {
		next = (struct rt_stack_saved){ .owner = t, .cur = t->cur, .root = t->cur,
						 .stack_lo = 0, .stack_hi = UINTPTR_MAX };
		if ((next.base = empty_chain(t)) == NULL) {
			errno = saved;
			return; /* no memory: the hooks follow the stack pointer, as before */
		}
		next.top = next.base + 1;
		lo = (uintptr_t)to->uc_stack.ss_sp;
		hi = lo + to->uc_stack.ss_size;
		if (hi > lo && within(sp, lo, hi)) {
			next.stack_lo = lo;
			next.stack_hi = hi;
		}
	}
	if (t->stacks.on_other && into == NULL)
		left = t->base;
	t->stacks.switch_to = to;
	t->stacks.switch_from = t->cur;
	leave_running(t, mine, into);
	install(t, &next, next.cur);
	if (left != NULL)
		release_chain(t, left);
	errno = saved;
}

/* The address the cost centre `old` runs was made with (a function's
 * start, a region's handle): a context entered from another. */
static uintptr_t running_start(const struct rt_ctx *old)
{
	return old->len ? rt_cc_key(CCP_ENTRY_CC(old->hist[old->len - 1])) : 0;
}

/* The context a call of fn from c enters, for a frame that ran in `old`
 * before: A1's, or the transition's (made if new), or NULL. */
static struct rt_ctx *step(struct rt_thread *t, struct rt_ctx *c, uintptr_t fn,
			   const struct rt_ctx *old)
{
	uintptr_t start;

	if (c->fn == fn)
		return c;
	start = running_start(old);
	return start != 0 ? rt_transition(t, c, fn, start) : NULL;
}

/* s's entries made again from root, bottom up, as their calls would have
 * made them from there; the context of its top frame returned.  Where a
 * transition cannot be made (no memory), the frames above stay in the
 * last context made: never one of another thread's. */
static struct rt_ctx *replay(struct rt_thread *t, struct rt_stack_saved *s, struct rt_ctx *root)
{
	struct rt_shadow *seg = s->base, *last = rt_segment_of(s->top), *e, *end, *prev = NULL;
	struct rt_ctx *c = root, *n;

	for (;;) {
		end = seg == last ? s->top : seg + RT_SEGMENT_ENTRIES;
		for (e = seg + 1; e < end; e++) {
			if (prev != NULL && (n = step(t, c, prev->fn, e->ctx)) != NULL)
				c = n;
			e->ctx = c;
			prev = e;
		}
		if (seg == last)
			break;
		seg = seg->next;
	}
	if (prev != NULL && (n = step(t, c, prev->fn, s->cur)) != NULL)
		c = n;
	return c;
}

/* The thread's own stack runs again. */
static void back_to_own(struct rt_thread *t)
{
	struct rt_shadow *left = t->base;

	install(t, &t->stacks.own, t->stacks.own.cur);
	release_chain(t, left);
}

void rt_stack_back(struct rt_stack_saved *mine)
{
	struct rt_thread *t = rt_self;
	struct rt_shadow *left = NULL;
	struct rt_ctx *root, *cur;
	int saved = errno, switched;

	if (mine->owner == NULL || t == NULL || t->busy)
		return;
	switched = mine->into != NULL && t->stacks.switch_to == mine->into;
	t->stacks.switch_to = NULL;
	if (rt_cycles)
		rt_charge_ticks(t, rt_tick());
	if (mine->own) {
		/* Another thread's own stack is not ours to follow. */
		if (mine->owner == t && t->stacks.on_other)
			back_to_own(t);
		errno = saved;
		return;
	}
	root = switched ? t->stacks.switch_from : mine->owner == t ? mine->root : t->root;
	cur = mine->cur;
	if (root != mine->root || mine->owner != t)
		cur = replay(t, mine, root);
	mine->root = root;
	mine->owner = t;
	if (t->stacks.on_other)
		left = t->base; /* a coroutine's that ended, or the switch's empty one */
	else
		save(t, &t->stacks.own);
	install(t, mine, cur);
	if (left != NULL)
		release_chain(t, left);
	errno = saved;
}

/* A thread ends: its own stack's shadow stack is the one kept, the rest
 * go back to the pool (those of coroutines it left suspended stay with
 * them, for a thread that resumes them). */
void rt_stacks_thread_exit(struct rt_thread *t)
{
	if (t->stacks.on_other)
		back_to_own(t);
	if (t->stacks.spare != NULL) {
		rt_chain_give_back(t->stacks.spare);
		t->stacks.spare = NULL;
	}
}
