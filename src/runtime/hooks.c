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
#include "hotpath.h"

extern const int rt_manual_anchor RT_HIDDEN;
__attribute__((used)) static const int *const pull_manual = &rt_manual_anchor;

/* The instrumented function's stack pointer when it called the hook: the
 * same for its enter and exit calls, lower for anything it calls. */
#define CALLER_SP() ((uintptr_t)__builtin_dwarf_cfa())

/*
 * Note [Cache reads]: a signal handler that runs instrumented code can
 * interrupt this thread between any two instructions of a hook and take
 * the slow path, which writes the very caches the hook was reading
 * (only the hash tables are guarded by `busy`).  A lookup that read a
 * key and then, in a second load, a target could pair the key with the
 * handler's target and charge the call to the handler's callee.  So an
 * inline cache slot, function and target, is read in one 16-byte load
 * (Note [Cache pairs]); the thread cache's two words are read between
 * two loads of tcache_gen, which every write of it bumps first, and a
 * change means a miss (the slow path then looks the transition up under
 * `busy`).  Likewise a handler entering the same context between the
 * load and the store of a counter would lose its increment: rt_count
 * adds in one instruction.  tests/progs/stepper.c runs a handler at
 * every instruction of a call to check all this.
 *
 * One 16-byte load of a thread cache entry would need no count, 4
 * instructions fewer, but its target reaches a register some cycles
 * later, through the vector unit: with rt_hot, no faster on dispatch,
 * and 5 % slower on tiny built by gcc (session 37).
 */

/*
 * Note [Cache pairs]: a context's two inline cache slots hold each a
 * target and the function it runs, 16 bytes aligned, read by the hooks
 * in one load (movdqa) and written in one store: a signal handler runs
 * between two instructions, never inside one, so it sees a slot before
 * or after a write, whole.  The slots held targets only, tested by the
 * target's own fn: three loads one after another (the context, its
 * slot, the target's fn) before the hook knew it had a hit, now two,
 * and the hit path saves no register: 1-3 % of a run's CPU time on
 * objdump -d, dispatch, vm and tiny, at the edge of a 2-CPU VM's noise
 * (faster in 103 of 186 rounds; docs/performance.md, session 30).  The
 * function half is a copy: the one thing that changes a target's fn,
 * its library's unloading, changes the halves that name it too
 * (retire_pair in machine.c), by an 8-byte store of that half alone,
 * which a 16-byte load sees before or after, beside the same target.  A
 * context is 16 bytes larger for it.
 */

/* Push a frame and move to the context entered with `fn`, the cost
 * centre at `start` (fn itself but under -mfentry: Note [Fentry keys] in
 * fentry.c): the general path, also for manual regions. */
void rt_enter(struct rt_thread *t, uintptr_t fn, uintptr_t start, uintptr_t sp, uintptr_t cs)
{
	struct rt_shadow *s = t->top;
	struct rt_ctx *c = t->cur;
	struct rt_ctx *n;

	if (RT_UNLIKELY(rt_shadow_full(s))) {
		/* Not while calls past the end run: they are deeper than the
		 * top, and entries pushed above it would be taken for theirs
		 * (Note [Calls past the end left] in machine.c). */
		if (t->overflow || (s = rt_shadow_onward(s)) == NULL) {
			rt_overflow_set(t, t->overflow + 1);
			t->lost_calls++;
			return;
		}
	}
	push(t, s, c, fn, sp, cs);
	if (c->fn == fn) { /* A1: direct recursion keeps the context */
		rt_count(&c->recursive);
		return;
	}
	n = cached_transition(t, c, fn);
	if (n == NULL && (n = rt_transition(t, c, fn, start)) == NULL)
		return; /* not recorded: Note [Re-entry] in machine.c */
	rt_count(&n->entries);
	RT_PUBLISH(&t->cur, n);
}

/*
 * The slow paths take the cost centre's address (`start`) beside fn
 * (Note [Fentry keys] in fentry.c); the -finstrument-functions hooks
 * call them through the wrappers below, which pass fn as start, so that
 * the hooks' own code (their registers, their tail calls) stays what it
 * was before fentry.c came: with the extra argument gcc allocated the
 * enter hook's registers differently.
 */

/* Everything the fast path leaves out: frames to discard, a full shadow
 * stack, a transition not cached. */
static __attribute__((noinline)) void enter_general_at(struct rt_thread *t, uintptr_t fn,
						       uintptr_t start, uintptr_t sp, uintptr_t cs)
{
	int copy = 0;

	if (RT_UNLIKELY(t->stacks.on_other)) /* Note [One shadow stack a stack] in stacks.c */
		rt_stack_follow(t, sp);
	/* start is fn but for -mfentry's hooks (Note [Fentry keys]), which
	 * hook no inlined copies. */
	if (t->top[-1].sp <= sp)
		copy = rt_discard_gone(t, sp, cs, fn, start == fn);
	rt_enter(t, fn, start, sp, cs);
	if (start == fn && !copy)
		rt_note_site(t, sp, fn);
}

/* The thread's first call. */
static __attribute__((noinline, cold)) void enter_first_at(uintptr_t fn, uintptr_t start,
							   uintptr_t sp, uintptr_t cs)
{
	struct rt_thread *t = rt_thread_start();

	if (t == NULL)
		return;
	if (rt_cycles)
		rt_charge_ticks(t, rt_tick());
	enter_general_at(t, fn, start, sp, cs);
}

/* clock=cycles: one clock read, at the start, then the same paths
 * (Note [Cycles clock] in clock.c). */
static __attribute__((noinline)) void enter_cycles_at(struct rt_thread *t, uintptr_t fn,
						      uintptr_t start, uintptr_t sp, uintptr_t cs)
{
	uint64_t now = rt_tick(), interval = now - t->last_tick;

	rt_charge_ticks(t, now);
	if (RT_UNLIKELY(!enter_fast(t, fn, sp, cs)))
		enter_general_at(t, fn, start, sp, cs);
	if (RT_UNLIKELY(--t->probe_left == 0))
		rt_probe_overhead(t, now, interval, RT_AT_ENTER);
}

static __attribute__((noinline)) void enter_general(struct rt_thread *t, uintptr_t fn,
						    uintptr_t sp, uintptr_t cs)
{
	enter_general_at(t, fn, fn, sp, cs);
}

/* Every entry the fast paths leave but a miss of the caches: the
 * thread's first call, clock=cycles, the general path. */
static inline void enter_slow_at(uintptr_t fn, uintptr_t start, uintptr_t sp, uintptr_t cs)
{
	struct rt_thread *t = rt_self;

	if (t == NULL)
		enter_first_at(fn, start, sp, cs);
	else if (rt_cycles)
		enter_cycles_at(t, fn, start, sp, cs);
	else
		enter_general_at(t, fn, start, sp, cs);
}

/*
 * The fast path makes no call: every case it does not handle is one tail
 * call before anything has changed, so it needs no saved registers and no
 * frame of its own.
 *
 * Both hooks start on a cache line of their own (HOOK_ALIGN): where the
 * linker put them followed the size of the code before them, and a change
 * to clock=cycles' enter_cycles alone moved them by 144 bytes and cost
 * clock=cpu 5 % on dispatch and vm (bench/ab.py, 7-9 rounds: R 2.05
 * against 1.94, 2.15 against 2.04); aligned, 1.97 and 1.94, and recurse
 * 1.41 against 1.45 (docs/performance.md, session 28).
 */
#define HOOK_ALIGN __attribute__((aligned(64)))

/* No rt_hot (Note [The hooks' thread] in threads.c): the thread's first
 * call, clock=cycles, calls past the end of the shadow stack, or a state
 * being set as a signal handler calls. */
static __attribute__((noinline)) void enter_not_hot(uintptr_t fn, uintptr_t sp, uintptr_t cs)
{
	enter_slow_at(fn, fn, sp, cs);
}

RT_API HOOK_ALIGN void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
	struct rt_thread *t = rt_hot;
	uintptr_t sp = CALLER_SP(), fn = (uintptr_t)this_fn, cs = (uintptr_t)call_site;

	if (RT_UNLIKELY(t == NULL)) {
		enter_not_hot(fn, sp, cs);
		return;
	}
	if (RT_UNLIKELY(!enter_fast(t, fn, sp, cs)))
		enter_general(t, fn, sp, cs);
}

/* Whether an enter dropped an entry of this (fn, call site)
 * (rt_discard_gone): an exit of it is then a real call's, whose entry
 * went missing (Note [Split functions]). */
static int was_dropped(const struct rt_thread *t, uintptr_t fn, uintptr_t cs)
{
	uintptr_t key = rt_dropped_key(fn, cs);

	return t->dropped[RT_DROPPED_SLOT(key)] == key;
}

/* The newest entry of this (fn, call site), or of fn at the exit's own
 * sp, or NULL.  The exit hook's sp is not the entry's: a sibling call
 * after the epilogue (gcc/clang -O2) sees the function's CFA, alloca a
 * lower sp.  Entries above it are frames gone without a return; an
 * entry above sp that does not match is a live outer frame: this exit
 * is not its.  An entry of fn at exactly sp, met first, is this call's
 * even from another call site (at_sp): a split function's (Note [Split
 * functions]), whose call site an ancestor's entry may have; not if an
 * enter dropped an entry of this (fn, call site), whose exit this is. */
static struct rt_shadow *entry_of_call(struct rt_thread *t, uintptr_t fn, uintptr_t sp,
				       uintptr_t cs, int at_sp)
{
	struct rt_shadow *s;

	for (s = rt_entry_top(t); s != NULL; s = rt_entry_below(s)) {
		if (s->fn == fn && (s->cs == cs || (at_sp && s->sp == sp)))
			return s;
		if (s->sp > sp && !(s->sp & RT_REGION_SP))
			return NULL;
	}
	return NULL;
}

/*
 * Note [Split functions]: gcc's partial inlining (-fpartial-inlining, on
 * at -O2) cuts a function F into a head, inlined into F's callers, and a
 * clone F.part.N with the rest of the body, exit hook included.  The
 * head's enter hook passes the caller frame's return address, as inlined
 * hooks do; the clone's exit hook passes the clone's own return address,
 * an address inside the caller.  So no entry has the exit's (F, call
 * site).  Left unmatched, F's entry stayed on the shadow stack until the
 * caller returned, and everything the caller called after F was charged
 * to F: Lua's luaV_concat, split so, became the caller of most of what
 * luaV_execute called (tests/progs/split.c).  The clone runs in a frame
 * just below the one F's entry recorded (or in it, when the exit hook is
 * reached by a sibling call), so entries below the exit's stack pointer
 * are frames gone without a return, and if the first entry at or above
 * it is F's, that entry is this call's.  An exit whose function is not
 * that entry's stays unmatched, as before.  So does an exit whose (F,
 * call site) an entry had that an enter dropped (rt_discard_gone): a
 * clone has no enter hook, so that exit is a real call's, whose entry
 * went missing, and the F entry above it is its caller's.  That is what
 * a recursive function inlined into itself does (gcc -O2, -O3) where
 * its copies are taken for calls after a jump (Note [Self-inlined
 * copies] in machine.c: off x86-64, and libccprof.a before session 49):
 * the real recursive call's entry is replaced by its own inlined copy's,
 * and its exit would end the outer copy's call (tests/progs/selfinline.c,
 * also "onesite").
 *
 * A split function that is recursive (tests/progs/splitrec.c): its
 * head is inlined into the clone too, so at each level the head's entry
 * has the call site of the frame it runs in (the clone's return
 * address), and the clone's exit, jumped to, its own, which is the call
 * site the head's entry one level up has.  entry_of_call found that
 * ancestor's entry by (F, call site) and ended it with every frame
 * above: at gcc -O2, 1,550 of 13,219 of leaf's calls went to main, and
 * visit was entered 1,650 times for 100.  But the jumped-to exit hook
 * sees the clone's CFA, the stack pointer of the frame the head ran in:
 * an entry of F at exactly the exit's sp, met before the match, is this
 * call's.  Before an exact match only: a function's own entry, at its
 * frame's sp, is the exit's whatever the sp it sees.  And not for an
 * exit whose (F, call site) an enter dropped: where self-inlined copies
 * replace their outer calls (off x86-64), the real recursive call's
 * exit, jumped to, sees the sp of the copy's frame and would end the
 * outer copy (helper-157: selfrec.c at -O3 linked with libccprof.a,
 * 9,200-10,900 of leaf's 20,460 calls under main, 2,300-3,300 without
 * the rule).
 */
static struct rt_shadow *entry_of_split(struct rt_thread *t, uintptr_t fn, uintptr_t sp)
{
	struct rt_shadow *s = rt_entry_top(t);

	while (s != NULL && (s->sp < sp || (s->sp & RT_REGION_SP)))
		s = rt_entry_below(s);
	return s != NULL && s->fn == fn ? s : NULL;
}

/*
 * While calls go past the end of the shadow stack, whether an exit is
 * one of theirs (and counted off) or theirs are gone (and the count
 * cleared: Note [Calls past the end left] in machine.c).  Theirs are
 * deeper than the top entry, on this thread's stack but for a handler's
 * on an alternate one: an exit from above the top entry's frame is not
 * theirs.  frame_sp: sp is the frame's own (the -mfentry exits), and an
 * exit at the top entry's sp is the top entry's.  The
 * -finstrument-functions hooks' sp is a function's stack pointer, which
 * its callee's exit can show too, after a sibling call (entry_of_call),
 * and a function inlined into the top entry's frame shares it: only an
 * exit from strictly above counts.  The top entry's own exit is then
 * taken for a call past the end (as is the exit of the function it is
 * inlined into, or the head of), and its caller's ends both.  Under a
 * manual region's entry every exit counts off, as before.
 */
static int exit_past_end(struct rt_thread *t, uintptr_t sp, int frame_sp)
{
	uintptr_t top = t->top[-1].sp;

	if (!rt_sp_on_stack(t, sp) || (top & RT_REGION_SP) ||
	    (frame_sp ? sp < top : sp <= top)) {
		rt_overflow_set(t, t->overflow - 1);
		return 1;
	}
	rt_overflow_set(t, 0);
	return 0;
}

/* Pop to the entry of this call: the general path. */
static __attribute__((noinline)) void exit_general(struct rt_thread *t, uintptr_t fn,
						   uintptr_t sp, uintptr_t cs)
{
	struct rt_shadow *s;
	int dropped;

	if (RT_UNLIKELY(t->stacks.on_other))
		rt_stack_follow(t, sp);
	if (t->overflow && exit_past_end(t, sp, 0))
		return;
	dropped = was_dropped(t, fn, cs);
	s = entry_of_call(t, fn, sp, cs, !dropped);
	if (s == NULL && !dropped)
		s = entry_of_split(t, fn, sp);
	if (s != NULL)
		rt_pop_to(t, s);
}

static __attribute__((noinline)) void exit_cycles(struct rt_thread *t, uintptr_t fn, uintptr_t sp,
						  uintptr_t cs)
{
	uint64_t now = rt_tick(), interval = now - t->last_tick;

	rt_charge_ticks(t, now);
	if (RT_UNLIKELY(t->overflow || !exit_fast(t, fn, cs)))
		exit_general(t, fn, sp, cs);
	if (RT_UNLIKELY(--t->probe_left == 0))
		rt_probe_overhead(t, now, interval, RT_AT_EXIT);
}

static __attribute__((noinline)) void exit_not_hot(uintptr_t fn, uintptr_t sp, uintptr_t cs)
{
	struct rt_thread *t = rt_self;

	if (t == NULL)
		return;
	if (rt_cycles)
		exit_cycles(t, fn, sp, cs);
	else
		exit_general(t, fn, sp, cs);
}

RT_API HOOK_ALIGN void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
	struct rt_thread *t = rt_hot;
	uintptr_t fn = (uintptr_t)this_fn, cs = (uintptr_t)call_site;

	if (RT_UNLIKELY(t == NULL)) {
		exit_not_hot(fn, CALLER_SP(), cs);
		return;
	}
	if (RT_UNLIKELY(!exit_fast(t, fn, cs)))
		exit_general(t, fn, CALLER_SP(), cs);
}

/* fentry.c's light path (Note [Fentry light path]): a transition the
 * thread has made before, which the caches missed.  1 if done; 0, with
 * nothing changed, for anything else. */
int rt_fentry_enter_known(uintptr_t key, uintptr_t sp, uintptr_t cs)
{
	struct rt_thread *t = rt_hot;

	if (t == NULL)
		return 0;
	return enter_cached(t, key, sp, cs, 1);
}

/*
 * gcc's -pg -mfentry -minstrument-return=call (fentry.c): what its fast
 * paths leave, with the program's vector and x87 registers saved.  An
 * exit knows no function: it ends the newest call whose frame began at
 * sp from call site cs.  Entries above that are frames gone without a
 * return (a longjmp, an exception); an entry above sp that does not match
 * is a live outer frame, and the exit is not its.
 */
void rt_fentry_enter_slow(uintptr_t key, uintptr_t sp, uintptr_t cs)
{
	enter_slow_at(key, rt_fentry_start(key), sp, cs);
}

static struct rt_shadow *entry_of_frame(struct rt_thread *t, uintptr_t sp, uintptr_t cs)
{
	struct rt_shadow *s;

	for (s = rt_entry_top(t); s != NULL; s = rt_entry_below(s)) {
		if (s->sp == sp && s->cs == cs)
			return s;
		if (s->sp > sp && !(s->sp & RT_REGION_SP))
			return NULL;
	}
	return NULL;
}

static void exit_frame_general(struct rt_thread *t, uintptr_t sp, uintptr_t cs)
{
	struct rt_shadow *s;

	if (RT_UNLIKELY(t->stacks.on_other))
		rt_stack_follow(t, sp);
	if (t->overflow && exit_past_end(t, sp, 1))
		return;
	s = entry_of_frame(t, sp, cs);
	if (s != NULL)
		rt_pop_to(t, s);
}

void rt_fentry_exit_slow(uintptr_t sp, uintptr_t cs)
{
	struct rt_thread *t = rt_self;

	if (t == NULL)
		return;
	if (rt_cycles) {
		uint64_t now = rt_tick(), interval = now - t->last_tick;

		rt_charge_ticks(t, now);
		if (t->overflow || !exit_fast_at(t, sp, cs))
			exit_frame_general(t, sp, cs);
		if (RT_UNLIKELY(--t->probe_left == 0))
			rt_probe_overhead(t, now, interval, RT_AT_EXIT);
		return;
	}
	exit_frame_general(t, sp, cs);
}
