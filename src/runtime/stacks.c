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
 * setcontext are interposed (ucontext.c; libccprof.a too, since session
 * 49), and each
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
 *   longjmp) changes no shadow stack.  setcontext's pops the entries of
 *   the frames it leaves, as a longjmp's (Note [Longjmp]); swapcontext's
 *   may be resumed, and the hooks follow it as they follow a jump.
 * - A coroutine that returns to a uc_link saved by getcontext (which no
 *   interposed call saved) is seen to have ended by the slow paths: a
 *   coroutine's sentinel has stack pointer 0, below every frame's, so
 *   the first call after its last return takes the slow path, which
 *   finds the stack pointer back on the thread's own stack (rt_stack_follow).
 *   Its callee's exit does too.  A longjmp from a coroutine to the
 *   thread's own stack ends the coroutine's shadow stack likewise
 *   (rt_stack_jump, from longjmp.c).
 * - A yield back to the resumer (the shadow stack left is rooted at the
 *   context it returns to) keeps the resumer's root: a generator that
 *   pulls from another is not re-rooted under the one it pulls from.
 *
 * A coroutine's shadow stack has a header in entry 0 of its first
 * segment (its machine stack's bounds, and an id), then the sentinel.
 * The id changes when the shadow stack is given back, so that a frame
 * holding it can tell it is not its own any more (Note [Coroutines
 * abandoned]).
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
#include <string.h>
#include <ucontext.h>

#include "hotpath.h"

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

/* A coroutine's shadow stack: its header and sentinel. */
static uint64_t chain_id(const struct rt_shadow *base)
{
	return __atomic_load_n(&base[0].cs, __ATOMIC_ACQUIRE);
}

/* The right to give a coroutine's shadow stack back, taken once: by
 * whoever changes its id from `id` to 0. */
static int chain_claim(struct rt_shadow *base, uint64_t id)
{
	return id != 0 && __atomic_compare_exchange_n(&base[0].cs, &id, 0, 0, __ATOMIC_ACQ_REL,
						       __ATOMIC_RELAXED);
}

/* A new id, never 0: from a block of them the thread takes at a time,
 * so that a switch makes no atomic change of memory another thread may
 * share. */
#define ID_BLOCK 4096u

static uint64_t new_id(struct rt_thread *t)
{
	static uint64_t last_block;

	if (t->stacks.ids_left == 0) {
		t->stacks.next_id = __atomic_add_fetch(&last_block, 1, __ATOMIC_RELAXED) * ID_BLOCK;
		t->stacks.ids_left = ID_BLOCK;
	}
	t->stacks.ids_left--;
	return t->stacks.next_id++;
}

/* base laid out as an empty coroutine shadow stack for the stack lo..hi
 * (0, UINTPTR_MAX: not known), whose coroutine returns to `link`, with a
 * new id; its top returned.  The sentinel's ctx, which nothing reads
 * (no pop goes to it), keeps link. */
static struct rt_shadow *chain_init(struct rt_thread *t, struct rt_shadow *base, uintptr_t lo,
				    uintptr_t hi, const ucontext_t *link)
{
	base[0].sp = lo;
	base[0].fn = hi;
	base[1].ctx = (struct rt_ctx *)(uintptr_t)link;
	base[1].sp = 0; /* below every frame: the first call takes the slow path */
	base[1].fn = (uintptr_t)&rt_no_context;
	base[1].cs = 0; /* 1 once the table has it */
	__atomic_store_n(&base[0].cs, new_id(t), __ATOMIC_RELEASE);
	return base + 2;
}

/*
 * Note [Coroutines abandoned]: a suspended coroutine's shadow stack is
 * held only by the frame of the swapcontext that left it, on the
 * coroutine's own stack.  A program that frees or reuses that stack
 * without letting the coroutine end (a generator not run to its end, a
 * pool of stacks whose tasks are cancelled) would leave the shadow stack
 * held by nothing: 2 MiB of address space and a page each, 205 GB and
 * 400 MB for 100,000 (helper-153).  So the runtime keeps a table of the
 * coroutine stacks that ran, by the stack's lowest address, with the
 * shadow stack and its id (one for the process: a thread that ends
 * leaves its coroutines' stacks to others, 40 GB of address space for
 * 20,000 threads each leaving one when the table was the thread's,
 * helper-154); when a coroutine first calls on a stack, a
 * shadow stack the table has for the same stack, still with its id, is
 * given back: that stack runs another coroutine now, so the one before
 * can never run again.  Whoever changes the id gives it back
 * (chain_claim): the thread that ends a coroutine, or the one that
 * finds its stack taken over, even on different threads.  A frame whose
 * shadow stack was given back meanwhile finds another id (rt_stack_back)
 * and starts from an empty one.  The table is looked at once per
 * coroutine, not per switch, under a lock that is only tried (a signal
 * handler must never wait for it): when another thread has it, the
 * coroutine is not put in (its shadow stack is then not given back if
 * it is abandoned).  A stack freed and never used again by a coroutine
 * keeps its shadow stack.
 */
struct co_slot {
	uintptr_t lo;
	struct rt_shadow *base;
	uint64_t id;
};

struct rt_co_table {
	size_t cap, used; /* cap a power of two */
	struct co_slot slot[];
};

static size_t table_bytes(size_t cap)
{
	return sizeof(struct rt_co_table) + cap * sizeof(struct co_slot);
}

static size_t slot_of(uintptr_t lo, size_t cap)
{
	return (size_t)(((lo >> 4) * 0x9e3779b97f4a7c15u) >> 32) & (cap - 1);
}

/* The slot for lo: its own, or the empty one where it would go. */
static struct co_slot *table_find(struct rt_co_table *tab, uintptr_t lo)
{
	size_t i = slot_of(lo, tab->cap);

	while (tab->slot[i].lo != 0 && tab->slot[i].lo != lo)
		i = (i + 1) & (tab->cap - 1);
	return &tab->slot[i];
}

/* The table with room for one more, those whose shadow stack has gone
 * (another id) left out; NULL if there is no memory. */
static struct rt_co_table *table_room(struct rt_co_table *tab)
{
	struct rt_co_table *bigger;
	size_t cap = tab ? tab->cap : 64, i, live = 0;

	if (tab != NULL && 2 * (tab->used + 1) <= tab->cap)
		return tab;
	for (i = 0; tab != NULL && i < tab->cap; i++)
		live += tab->slot[i].lo != 0 && chain_id(tab->slot[i].base) == tab->slot[i].id;
	while (4 * (live + 1) > cap) /* a quarter full at most, after */
		cap *= 2;
	if ((bigger = rt_map(table_bytes(cap))) == NULL)
		return NULL;
	bigger->cap = cap;
	for (i = 0; tab != NULL && i < tab->cap; i++)
		if (tab->slot[i].lo != 0 && chain_id(tab->slot[i].base) == tab->slot[i].id) {
			*table_find(bigger, tab->slot[i].lo) = tab->slot[i];
			bigger->used++;
		}
	if (tab != NULL)
		rt_unmap(tab, table_bytes(tab->cap));
	return bigger;
}

static struct rt_co_table *table;
static int table_taken; /* a lock only tried: a signal handler never waits */

/* A coroutine's first call on its stack (base: its shadow stack): the
 * one the table had for that stack given back, this one kept.  Skipped
 * while another thread (or a handler that interrupted this one) has the
 * table: at worst a shadow stack is not given back. */
static void chain_first_use(struct rt_shadow *base)
{
	struct rt_co_table *tab;
	struct co_slot *slot;
	uintptr_t lo = base[0].sp;

	base[1].cs = 1;
	if (lo == 0 || __atomic_exchange_n(&table_taken, 1, __ATOMIC_ACQUIRE))
		return; /* a stack not known, or the table busy: nothing to give back */
	if ((tab = table_room(table)) != NULL) {
		table = tab;
		slot = table_find(tab, lo);
		if (slot->lo == 0)
			tab->used++;
		else if (slot->base != base && chain_claim(slot->base, slot->id))
			rt_chain_give_back(slot->base);
		*slot = (struct co_slot){ lo, base, chain_id(base) };
	}
	__atomic_store_n(&table_taken, 0, __ATOMIC_RELEASE);
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
	s->id = s->own ? 0 : chain_id(s->base);
}

/* s's shadow stack becomes the running one, with `cur` current.  Signal
 * handlers may run between the stores (Note [One shadow stack a
 * stack]); on_other is clear while they are made, so that none of them
 * follows a stack (rt_stack_follow) half switched. */
static void install(struct rt_thread *t, const struct rt_stack_saved *s, struct rt_ctx *cur)
{
	t->stacks.on_other = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
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
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->stacks.on_other = !s->own;
}

/* An empty coroutine shadow stack for the stack lo..hi, rooted at root:
 * from the thread's spare, or new; 0 if there is no memory. */
static int empty_chain(struct rt_thread *t, struct rt_stack_saved *s, uintptr_t lo, uintptr_t hi,
		       const ucontext_t *link, struct rt_ctx *root)
{
	struct rt_shadow *base = t->stacks.spare;

	if (base == NULL && (base = rt_chain_new()) == NULL)
		return 0;
	t->stacks.spare = NULL;
	*s = (struct rt_stack_saved){ .owner = t, .base = base, .top = chain_init(t, base, lo, hi, link),
				      .cur = root, .root = root, .stack_lo = lo, .stack_hi = hi };
	s->id = chain_id(base);
	return 1;
}

/* A coroutine's shadow stack no stack holds any more (its coroutine
 * ended, or it was never used): the spare, or the pool's.  Not if
 * another thread found its stack taken over and gave it back first;
 * one no call ever ran on no other thread can know of (it is in no
 * table: chain_first_use), so it needs no atomic claim, the usual case
 * of a switch to a suspended coroutine. */
static void release_chain(struct rt_thread *t, struct rt_shadow *base)
{
	if (base[1].cs == 0)
		RT_STORE(&base[0].cs, 0);
	else if (!chain_claim(base, chain_id(base)))
		return;
	if (t->stacks.spare == NULL)
		t->stacks.spare = base;
	else
		rt_chain_give_back(base);
}

/* The thread's own stack runs again; the shadow stack that ran is
 * given back. */
static void back_to_own(struct rt_thread *t)
{
	struct rt_shadow *left = t->base;

	install(t, &t->stacks.own, t->stacks.own.cur);
	release_chain(t, left);
}

/* Under `busy`, as the slow path's changes are (Note [Re-entry] in
 * machine.c): a signal handler's calls meanwhile leave the stacks alone. */
/* An entry of a frame below the stack pointer a context resumes at. */
static int below_resumed(const struct rt_thread *t, const struct rt_shadow *e, uintptr_t sp)
{
	(void)t;
	return !(e->sp & RT_REGION_SP) && e->sp < sp;
}

/* The coroutine running has ended, unseen: returned to its uc_link,
 * which no interposed call saved (getcontext did).  The thread's own
 * shadow stack runs again, without the frames below where that context
 * resumes, as after a longjmp there (Note [Longjmp] in longjmp.c). */
static void ended_unseen(struct rt_thread *t)
{
	const ucontext_t *link = (const ucontext_t *)(uintptr_t)t->base[1].ctx;
	uintptr_t resumed = link != NULL ? resume_sp(link) : 0;

	back_to_own(t);
	if (resumed != 0 && rt_sp_on_stack(t, resumed))
		rt_pop_left(t, below_resumed, resumed);
}

void rt_stack_follow(struct rt_thread *t, uintptr_t sp)
{
	struct rt_shadow *base = t->base;

	if (rt_entry_top(t) != NULL || !rt_busy_take(t))
		return; /* calls of its own still running: nothing ended */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (within(sp, t->stack_lo, t->stack_hi)) {
		if (base[1].cs == 0)
			chain_first_use(base);
	} else if (within(sp, t->stacks.own.stack_lo, t->stacks.own.stack_hi)) {
		ended_unseen(t);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	RT_STORE(&t->busy, 0);
}

void rt_stack_jump(struct rt_thread *t, uintptr_t target)
{
	if (t->stacks.on_other && !within(target, t->stack_lo, t->stack_hi) &&
	    within(target, t->stacks.own.stack_lo, t->stacks.own.stack_hi))
		back_to_own(t); /* the coroutine's frames are all left */
}

/* The running shadow stack, left: the thread's own kept in t, a
 * coroutine's in `mine` (or released, `into` NULL: left for good). */
static void leave_running(struct rt_thread *t, struct rt_stack_saved *mine, const void *into)
{
	if (!t->stacks.on_other)
		save(t, &t->stacks.own);
	if (!t->stacks.on_other || into != NULL)
		save(t, mine);
	mine->into = into;
}

/* The thread's state, made if this is its first call into the runtime
 * and the process runs instrumented code (a coroutine may make the
 * thread's first call, after the switch: its stack is not the thread's).
 * A program with libccprof.a linked in (no instrumented.c) is taken to
 * run it, as the sampler takes it (rt_sampler_start_or_defer). */
static struct rt_thread *thread_here(void)
{
	struct rt_thread *t = rt_self;

	if (t == NULL && (rt_linked_in() || rt_loaded_code_calls_runtime()))
		t = rt_thread_start();
	return t;
}

void rt_stack_leave(struct rt_stack_saved *mine, const struct ucontext_t *to, const void *into)
{
	struct rt_thread *t;
	struct rt_stack_saved next;
	struct rt_shadow *left = NULL;
	uintptr_t sp, lo, hi;
	int saved = errno;

	mine->owner = NULL;
	if ((sp = resume_sp(to)) == 0 || (t = thread_here()) == NULL)
		goto out;
	if (t->stacks.on_other)
		rt_stack_follow(t, (uintptr_t)__builtin_frame_address(0));
	if (resumes_on(to, sp, t->stack_lo, t->stack_hi)) {
		/* The same stack: a jump.  setcontext's leaves the frames below
		 * for good, as a longjmp does (Note [Longjmp] in longjmp.c), and
		 * an entry left would take a new call from the same site for a
		 * copy inlined into it (Note [Self-inlined copies] in
		 * machine.c).  swapcontext's may be resumed: its frames stay,
		 * and the hooks follow it. */
		if (into == NULL && !t->stacks.on_other)
			rt_pop_left(t, rt_left_by_jump, sp);
		goto out;
	}
	if (rt_cycles && !t->busy)
		rt_charge_ticks(t, rt_tick());
	if (t->stacks.on_other && resumes_on(to, sp, t->stacks.own.stack_lo, t->stacks.own.stack_hi)) {
		next = t->stacks.own; /* back to the thread's own stack */
	} else {
		lo = (uintptr_t)to->uc_stack.ss_sp;
		hi = lo + to->uc_stack.ss_size;
		if (!(hi > lo && within(sp, lo, hi))) {
			lo = 0;
			hi = UINTPTR_MAX;
		}
		if (!empty_chain(t, &next, lo, hi, to->uc_link, t->cur))
			goto out; /* no memory: the hooks follow the stack pointer, as before */
	}
	if (t->stacks.on_other && into == NULL)
		left = t->base;
	t->stacks.switch_to = to;
	t->stacks.switch_from = t->cur;
	t->stacks.switch_from_root = t->stacks.on_other ? t->stacks.root : t->root;
	leave_running(t, mine, into);
	install(t, &next, next.cur);
	if (left != NULL)
		release_chain(t, left);
out:
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
	struct rt_ctx *n;

	if (c->fn == fn)
		return c;
	if ((n = cached_transition(t, c, fn)) != NULL)
		return n;
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

	for (e = seg + 2;; e = seg + 1) { /* the first segment's header and sentinel */
		end = seg == last ? s->top : seg + RT_SEGMENT_ENTRIES;
		for (; e < end; e++) {
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

/* The root a coroutine's frames continue from as it runs again: the
 * context of the switch that resumed it, unless that switch was a yield
 * back to it from a coroutine it resumed (rooted at its own top); its
 * root from before when it was not resumed by a switch (its uc_link's
 * return), or the thread's root on another thread. */
static struct rt_ctx *root_now(struct rt_thread *t, const struct rt_stack_saved *mine,
			       int switched)
{
	if (switched && t->stacks.switch_from_root != mine->cur)
		return t->stacks.switch_from;
	return mine->owner == t ? mine->root : t->root;
}

void rt_stack_back(struct rt_stack_saved *mine)
{
	struct rt_thread *t = rt_self;
	struct rt_shadow *left = NULL;
	struct rt_ctx *root, *cur;
	int saved = errno, switched;

	if (mine->owner == NULL || t == NULL)
		return;
	switched = mine->into != NULL && t->stacks.switch_to == mine->into;
	t->stacks.switch_to = NULL;
	if (rt_cycles && !t->busy)
		rt_charge_ticks(t, rt_tick());
	if (mine->own) {
		/* Another thread's own stack is not ours to follow. */
		if (mine->owner == t && t->stacks.on_other)
			back_to_own(t);
		errno = saved;
		return;
	}
	root = root_now(t, mine, switched);
	if (chain_id(mine->base) != mine->id) {
		/* given back meanwhile (Note [Coroutines abandoned]): its frames
		 * are not known any more */
		if (!empty_chain(t, mine, mine->stack_lo, mine->stack_hi, NULL, root))
			goto out;
		cur = root;
	} else {
		cur = mine->cur;
		/* Not in a slow path a handler interrupted (a preemptive
		 * scheduler's switch): its frames stay where they were. */
		if ((root != mine->root || mine->owner != t) && !t->busy)
			cur = replay(t, mine, root);
		else
			root = mine->root;
	}
	mine->root = root;
	mine->owner = t;
	if (t->stacks.on_other)
		left = t->base; /* a coroutine's that ended, or the switch's empty one */
	else
		save(t, &t->stacks.own);
	install(t, mine, cur);
	if (left != NULL)
		release_chain(t, left);
out:
	errno = saved;
}

/* A thread ends: its own stack's shadow stack is the one kept; the
 * spare and the table go (coroutines it left suspended keep theirs, for
 * a thread that resumes them). */
void rt_stacks_thread_exit(struct rt_thread *t)
{
	if (t->stacks.on_other)
		back_to_own(t);
	if (t->stacks.spare != NULL) {
		rt_chain_give_back(t->stacks.spare);
		t->stacks.spare = NULL;
	}
	/* a state reborn for a new thread (threads.c) starts with none */
	memset(&t->stacks, 0, sizeof t->stacks);
}
