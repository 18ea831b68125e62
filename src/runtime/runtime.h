/*
 * runtime.h - the runtime's internal data: contexts, per-thread state, and
 * the interfaces between the hot path (hooks.c) and the slow paths.
 *
 * Note [Ownership]: a thread's contexts, shadow stack and tables are written
 * only by that thread.  Two other parties read them: the sampler (reads
 * `cur`, adds to `time` of the context it finds; it is the only writer of
 * `time` under the sampling clocks) and the profile writer (reads counters
 * and the context list).  Counters are therefore stored with relaxed atomic
 * stores (plain moves on x86) and pointers are published with release
 * stores, so the profile is exact and ThreadSanitizer stays quiet.
 *
 * Note [Shadow stack]: each entry holds the context to return to, the CC
 * entered, the call site the hook was given, and the stack pointer of the
 * instrumented function at its call of the hook.  An exit pops the newest
 * entry with its (fn, call site): the exit hook's stack pointer is not
 * reliable (at -O2 it is reached by a sibling call after the epilogue;
 * alloca lowers it).  Entries above that one are frames left without a
 * return (longjmp, exceptions, cancellation).  Failing that, the
 * innermost live entry if it is fn's: a split function's exit (Note
 * [Split functions] in hooks.c).  An enter discards entries
 * strictly below its stack pointer, and those at the same stack pointer
 * unless they come from the same call site with another fn: gcc hooks
 * inlined functions too, and their hooks run in the caller's frame with
 * the caller's call site (docs/semantics.md, "How the runtime keeps in
 * step"); with the same fn, a copy of it inlined into itself, told
 * from a new call by the hook's return address (Note [Self-inlined
 * copies] in machine.c).  Entry 0 is a sentinel with sp = UINTPTR_MAX,
 * so top[-1] always exists, and a data address for fn, so that no exit matches it,
 * even one given a null function.  Entries pushed by manual
 * regions have bit 0 of sp set: they belong to no frame of their own and
 * are closed by key.  A slot is written before `top` moves past it and
 * `cur` is restored before `top` moves back, so a signal handler that
 * runs instrumented code at any instruction of a hook nests correctly.
 */
#ifndef CCPROF_RUNTIME_H
#define CCPROF_RUNTIME_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stddef.h>
#include <time.h>
#include <sys/types.h>
#include <unistd.h> /* getpid: rt_pid_not_ours */

#include "common/buildid.h"
#include "format/profile.h"

#define RT_HIDDEN __attribute__((visibility("hidden")))
/* What the program calls: the hooks, the manual API and the interposed
 * libc functions.  Never instrumented, like the rest of the runtime. */
#define RT_API __attribute__((visibility("default"), no_instrument_function))

/* The interposed functions may run before a sanitizer's runtime is ready
 * (ThreadSanitizer installs its own handlers through sigaction, and its
 * alternate stack through sigaltstack, from its start-up): a build of
 * the runtime with -fsanitize=thread must put no call of the sanitizer's
 * on their way to libc. */
#if defined(__has_attribute) && __has_attribute(disable_sanitizer_instrumentation)
#define RT_UNSANITIZED __attribute__((disable_sanitizer_instrumentation)) /* clang */
#else
#define RT_UNSANITIZED __attribute__((no_sanitize("thread"))) /* gcc: all of it */
#endif

#define RT_LIKELY(x) __builtin_expect(!!(x), 1)
#define RT_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define RT_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define RT_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define RT_PUBLISH(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define RT_ACQUIRE(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)

#define RT_REGION_SP 1u /* Note [Shadow stack] */
#define RT_DROPPED_BITS 4 /* struct rt_thread's dropped[] has 16 slots */

/* dropped[]'s word for (fn, cs), its slot in the top bits: never 0, the
 * empty slot; one word, so that a signal handler's store never leaves
 * half a pair. */
static inline uintptr_t rt_dropped_key(uintptr_t fn, uintptr_t cs)
{
	const uintptr_t k = (uintptr_t)0x9e3779b97f4a7c15u;

	return ((fn * k) ^ cs) * k | 1;
}

#define RT_DROPPED_SLOT(key) ((key) >> (sizeof(uintptr_t) * 8 - RT_DROPPED_BITS))

/* A slot of a context's inline cache: a target and the function it runs,
 * read and written in one 16-byte access each (Note [Cache pairs] in
 * hooks.c). */
struct rt_pair {
	uintptr_t fn; /* to->fn as written; &rt_no_context's once to is retired */
	struct rt_ctx *to;
} __attribute__((aligned(16)));

struct rt_ctx {
	uintptr_t fn; /* key of the running CC: A1 compares against it */
	/* heap=1: the thread's list of contexts that ever held a block (Note
	 * [Contexts a heap sample reads] in heap.c).  In the word the
	 * adaptive slots' state had (Note [Slots without judgement] in
	 * machine.c): the slots stay 16-aligned and the contexts where they
	 * lay in the arena. */
	struct rt_ctx *heap_next;
	struct rt_pair cache[2]; /* the two latest transitions found from here */
	uint64_t entries;
	uint64_t recursive;
	uint64_t time;         /* clock=cpu: the hits' (Note [CPU time where it ran]) */
	uint64_t seen;         /* clock=cpu: the CPU of samples that found it current */
	uint32_t heap_listed; /* on heap_next's list; as heap_next's word, a spare */
	/* Where a hook entered it from last, as the slow path saw (Note
	 * [Self-inlined copies] in machine.c): the low 32 bits, 0 if not
	 * seen.  Here, not in a field more (a context of 160 bytes) or a
	 * word past the history: either moved the contexts in the arena and
	 * changed which pairs collide in the thread cache (Note [The thread
	 * cache's slots]; objdump -d made 161,081 slow lookups for 21,842). */
	uint32_t site;
	uint32_t id;  /* dense per thread, in creation order */
	uint32_t len; /* history length */
	uint32_t *hist; /* CCP_ENTRY(cc, mark) */
	struct rt_ctx *all_next; /* the thread's list of all contexts */
	uint64_t alloc_bytes;  /* allocation profiling (alloc.c): bytes */
	uint64_t alloc_blocks; /* and blocks allocated while current */
	uint64_t live_bytes;   /* heap.c: of those, not yet freed; any thread */
	uint64_t live_blocks;  /* frees them, so changed by atomic adds */
};

/* A cache pair as one 16-byte value: loaded and stored by one
 * instruction each, which no signal handler can come between (Note
 * [Cache pairs] in hooks.c). */
typedef uintptr_t rt_pair_bits __attribute__((vector_size(16)));

static inline rt_pair_bits rt_pair_load(const struct rt_pair *p)
{
	return *(const volatile rt_pair_bits *)p;
}

static inline void rt_pair_put(struct rt_pair *p, struct rt_ctx *to)
{
	rt_pair_bits v = { RT_LOAD(&to->fn), (uintptr_t)to };

	*(volatile rt_pair_bits *)p = v;
}

struct rt_shadow {
	union {
		struct rt_ctx *ctx;        /* context to return to */
		struct rt_shadow *next;    /* entry 0 of a segment: the next segment */
	};
	uintptr_t sp;
	uintptr_t fn;   /* the CC entered: exits match on (fn, cs) */
	uintptr_t cs;   /* call site: same real frame <=> same cs at equal sp */
};

/*
 * Note [Shadow stack segments]: the shadow stack is a chain of segments
 * of RT_SEGMENT_ENTRIES entries, each aligned to its size (taken from a
 * pool: Note [Segment pool] in shadow.c), which never move.  It used to
 * be one mapping that doubled with mremap when full; mremap may move it,
 * and a signal handler whose instrumented code filled the stack while a
 * hook was interrupted moved it under the hook's pointer (SIGSEGV,
 * README's known limits until session 39).  Now the only state is `top`:
 * the segment is the one `top` points into (the aligned block below it:
 * top is one past an entry), and the stack is full when `top` is
 * aligned, which the fast paths test without a load.  Entry 0 of the
 * first segment is the sentinel; entry 0 of each later one is its link:
 * fn RT_LINK_FN, which no exit matches, cs the end of the segment below
 * (full, as it was when the push went on), and sp a copy of the sp of
 * that segment's last entry, which the enter fast path compares as if it
 * were the top entry.  Entry 0 of every segment keeps the next one's
 * address in `next`, set once.  A push onto a full stack writes the next
 * segment's link, then pushes into its entry 1 (rt_shadow_onward); the
 * top of a segment with only its link (a pop to its entry 1) and the end
 * of the full segment below are the same state, and a handler that
 * interrupted a hook holding the end may leave the top of the next
 * segment (the hook's next push at the end then goes on into that
 * segment too).  Scans walk entries down with rt_entry_below, across
 * links.
 */
#define RT_SEGMENT_ENTRIES (1u << 16)
#define RT_SEGMENT_BYTES ((uintptr_t)RT_SEGMENT_ENTRIES * 32u)
extern const char rt_segment_link RT_HIDDEN;
#define RT_LINK_FN ((uintptr_t)&rt_segment_link)

struct rt_table; /* open-addressing tables of the slow path (machine.c) */

/* A machine stack's shadow stack while another stack runs on the thread
 * (Note [One shadow stack a stack] in stacks.c). */
struct rt_stack_saved {
	struct rt_thread *owner; /* whose contexts these are; NULL: none saved */
	const void *into;        /* the ucontext the switch saved this stack into */
	struct rt_shadow *base, *top;
	struct rt_ctx *cur;
	struct rt_ctx *root;     /* the context its bottom frame was entered from */
	uintptr_t stack_lo, stack_hi;
	uint64_t id;             /* a coroutine's: its shadow stack's, while it is its */
	uint32_t overflow;
	int own;                 /* the thread's own stack: kept in rt_thread, not here */
};

/* A thread's switches between machine stacks (stacks.c). */
struct rt_stacks {
	int on_other;          /* the running shadow stack is not the thread's own stack's */
	struct rt_ctx *root;   /* then, the context its bottom frame was entered from */
	const void *switch_to; /* the ucontext the last switch went to */
	struct rt_ctx *switch_from; /* and the context it left */
	struct rt_ctx *switch_from_root; /* and the root of the shadow stack it left */
	struct rt_shadow *spare;    /* an empty shadow stack for the next switch */
	uint64_t next_id, ids_left; /* the shadow stacks' ids: stacks.c's new_id */
	struct rt_stack_saved own;  /* the thread's own stack's, while on_other */
};

/* Note [Transition cache] in machine.c */
struct rt_tcache {
	struct rt_ctx *from;
	struct rt_ctx *to; /* to->fn is the function entered */
};
/* Note [The thread cache's slots] in machine.c */
#define RT_TCACHE_BITS 9
#define RT_TCACHE_ALIGN 4096
#define RT_TCACHE_SLOT(c, fn) \
	((size_t)((((uintptr_t)(fn) ^ (uintptr_t)(c)) >> 4) & ((1u << RT_TCACHE_BITS) - 1)))

#define RT_BUSY 1        /* in the slow path */
#define RT_BUSY_MAKING 2 /* and making a transition, a context or a cost centre */

struct rt_thread {
	/* The thread's own fields, on the first page; an ended thread's
	 * record is these, copied elsewhere once another thread takes its
	 * state over (Note [States reborn] in threads.c). */
	union {
		struct {
			/* Hot: read on every call. */
			struct rt_ctx *cur;
			struct rt_shadow *top;  /* Note [Shadow stack segments] */
			/* calls past the end of the shadow stack: rt_overflow_set */
			uint32_t overflow;
			uint32_t busy;      /* in a slow path: Note [Re-entry] in machine.c;
					     * RT_BUSY_MAKING while it makes transitions,
					     * contexts and cost centres (the sampler reads
					     * it: Note [The profiler's own time]) */
			/* bumped by every write of tcache: Note [Cache reads] */
			uint64_t tcache_gen;
			/* Cycles clock (Note [Cycles clock] in clock.c). */
			uint64_t last_tick;   /* the previous hook's tick (dump.c reads it) */
			int64_t carry;        /* RT_FX units: overhead owed (< 0), or a fraction */
			uint64_t overhead_fx; /* this thread's overhead per hook, RT_FX units */
			uint32_t probe_left;  /* hooks until the next probe */
			uint32_t probe_every;
			uint64_t probe_sum, probe_n; /* the current batch of probes */
			/* the batch's shortest intervals, ticks, by rt_hook_kind */
			uint64_t probe_shortest[2];
			uint64_t probe_avg_fx;       /* recent probes' mean, RT_FX units */
			uint64_t probe_total, probes; /* all probes kept */
			/* last_tick at start (or fork): the span's start */
			uint64_t first_tick;

			/* Slow path (owner only). */
			/* the first segment: the sentinel, then the bottom entries */
			struct rt_shadow *base;
			/* a segment's size; 0 once another thread took them (threads.c) */
			size_t shadow_bytes;
			uintptr_t stack_lo, stack_hi; /* this thread's stack, for discards */
			struct rt_ctx *root;
			struct rt_ctx *all; /* newest first; published with release */
			uint32_t ncontexts;
			/* In a forked child, the contexts it had at the fork (ids below
			 * this), which a write leaves out unless the child used them: Note
			 * [A forked child's profile] in forkprune.c.  0 elsewhere. */
			uint32_t inherited;
			uint64_t transitions;
			uint64_t deepest_history;
			uint64_t max_depth;
			uint64_t lost_calls;
			uint64_t memory_bytes;
			int over_budget; /* Note [Context budget] in machine.c */
			unsigned char *arena_next, *arena_end;
			struct rt_table *transitions_tab;
			struct rt_table *contexts_tab;
			/* Note [Cost centres a thread remembers] in machine.c */
			struct rt_cc_memo *cc_memo;
			/* (fn, call site) of entries rt_discard_gone dropped, hashed into
			 * one word each, direct-mapped: Note [Split functions] in hooks.c. */
			uintptr_t dropped[1u << RT_DROPPED_BITS];

			/* Sampler (under the registry lock). */
			clockid_t cpu_clock;
			uint64_t last_sample;
			/* clock=cpu (Note [CPU time where it ran] in sampler.c): the clock's
			 * reading its charges count from, the wall time of its previous
			 * sample, the samples that found it on a CPU, what those that found
			 * it making charged (not yet in own_ticks), the root's time charged
			 * apart, and a second look's due: the span and clock reading. */
			uint64_t cpu_from;
			uint64_t last_wall;
			uint64_t hits;
			uint64_t took_samples; /* samples that found it had taken CPU */
			/* its voluntary switches as it ended, or RT_BLOCKS_UNKNOWN */
			uint64_t blocks;
			uint64_t own_hits, own_seen; /* the making's, for own_ticks */
			uint64_t root_exact;
			uint64_t root_first; /* Note [The end of a thread] in sampler.c */
			int at_root;
			uint64_t look_span, look_clock;
			int look_again;
			/* Ticks of the slow path's making charged to no context: the owner's
			 * under clock=cycles, the sampler's otherwise (Note [The profiler's
			 * own time] in machine.c); the profile writer reads it. */
			uint64_t own_ticks;
			int alive;

			uint64_t tid;
			pthread_t handle; /* pthread_self() of its thread */
			char name[32];
			/* registry list (prev: under its lock only) */
			struct rt_thread *next, *prev;
			struct rt_thread *live_next, *live_prev; /* running threads */
			uint32_t live_index; /* its place in the array of them */
			/* Its last look found it had taken no CPU, and where it was then:
			 * Note [Idle threads in turn] in sampler.c.  Beside seq, which
			 * the sampler reads too for each idle thread: one cache line
			 * (Note [Running threads in an array] in threads.c). */
			const struct rt_ctx *idle_cur;
			int idle;
			uint32_t seq; /* start order: the thread's index in the profile */
			/* Transitions made before that the hooks' caches missed, found
			 * in the table (STATS key 15, docs/format.md).  Here, after seq,
			 * so that the three above stay on one line. */
			uint64_t slow_finds;
			/* heap=1: its contexts that ever held a block, newest first
			 * (Note [Contexts a heap sample reads] in heap.c); in an
			 * ended thread's record */
			struct rt_ctx *heap_list;
			/* Note [Ended threads' reserve] in threads.c */
			struct rt_thread *spare_next;
			/* Note [States reborn] in threads.c: room in its arena for
			 * its record, and whether it ended with its thread cache's
			 * pages kept. */
			struct rt_thread *record;
			int warm;
			/* Note [One shadow stack a stack] in stacks.c */
			struct rt_stacks stacks;
			/* Note [A vfork child's calls] in vfork.c: while its child
			 * runs, the context vfork was called in (the sampler reads
			 * it: rt_charged_ctx), and the rest of the state as it was. */
			struct rt_ctx *vfork_cur;
			struct rt_shadow *vfork_top;
			uint32_t vfork_overflow;
			uint64_t vfork_mask; /* the signal mask */
		};
		char first_page[RT_TCACHE_ALIGN];
	};

	/* Last, on pages of its own, which an ended thread gives back
	 * (rt_release_lookups in machine.c) or keeps for the next (Note
	 * [States reborn]). */
	struct rt_tcache tcache[1u << RT_TCACHE_BITS];
};

_Static_assert(offsetof(struct rt_thread, idle_cur) / 64 ==
		       (offsetof(struct rt_thread, seq) + sizeof(uint32_t) - 1) / 64,
	       "idle_cur, idle and seq on one cache line (Note [Running threads in an array])");

/* Room for the longest CCPROF_OPTIONS read, with its NUL: a longer one is
 * ignored whole (a cut output= path would write elsewhere).  `ccprof
 * record` refuses to run past it (RUNTIME_OPTIONS_MAX in cmd_record.c).
 * An output= path as long as a path may be fits, with room for the rest. */
#define RT_OPTIONS_MAX (4096 + 64)

/* Runtime-wide settings, fixed after start-up (options.c, init.c). */
struct rt_config {
	int disabled;            /* AT_SECURE or enabled=0: hooks do nothing */
	uint32_t clock;          /* enum ccp_clock */
	uint64_t interval_ns;
	char output[4096];       /* path template, %p = pid */
	int verbose;
	uint64_t overhead_fx;    /* cycles clock: per-hook cost, calibrated, RT_FX units */
	uint64_t probe_base_fx;  /* the calibration's probed in-hook time, RT_FX units */
	uint64_t tick_cost;      /* two back-to-back clock reads differ by this */
	uint64_t overhead_milliticks;
	char options[RT_OPTIONS_MAX]; /* CCPROF_OPTIONS as given, whole: it holds an
					 absolute output= (ccprof record's) */
	int crash_stack;         /* print the cost-centre stack on a crash */
	int handle_signals;      /* install the handlers of signals.c */
	int dump_signal;         /* write the profile on this signal (0: none) */
	uint64_t max_contexts;   /* per thread; past it, overflow contexts */
	int heap;                /* heap=1: follow blocks to their free (heap.c) */
	uint64_t heap_interval_ns; /* between heap samples */
	uint64_t run_start_ns;   /* run_start=: when ccprof record's run began
				    (Note [One OUT per run] in dump.c), or 0 */
	int helper;              /* enum rt_helper: how the sampling helper is made */
	int names;               /* 0: the profile names no function (Note [Profiles without names]) */
};

enum rt_helper {
	RT_HELPER_CLONE,   /* a thread glibc does not count, where it can be (rawthread.c) */
	RT_HELPER_PTHREAD, /* a POSIX thread */
};

extern struct rt_config rt_config RT_HIDDEN;
extern int rt_cycles RT_HIDDEN; /* clock == cycles: the hooks read the TSC */
extern pid_t rt_pid RT_HIDDEN;  /* our pid: changes at fork, not at vfork */

/* A child no fork handler of ours ran in (vfork, clone, _Fork): its pid
 * is not ours.  Not a process before the runtime started (rt_pid 0). */
static inline int rt_pid_not_ours(void)
{
	return rt_pid != 0 && getpid() != rt_pid;
}
extern __thread struct rt_thread *rt_self
	__attribute__((tls_model("initial-exec"))) RT_HIDDEN;
/* rt_self where the hooks' fast paths may use it, else NULL: under
 * clock=cycles, where every hook reads the clock in its slow path, or
 * while calls overflow the shadow stack.  So the fast paths test one
 * word, not three (Note [The hooks' thread] in threads.c). */
extern __thread struct rt_thread *rt_hot
	__attribute__((tls_model("initial-exec"))) RT_HIDDEN;
/* A thread the runtime records nothing of, its hooks returning at once:
 * the runtime is disabled, or had no memory for its state (threads.c). */
extern __thread int rt_stateless __attribute__((tls_model("initial-exec"))) RT_HIDDEN;
/* The calling thread's alternate signal stack as the program set it,
 * none if alt_size is 0: Note [An alternate stack on the thread's stack]
 * in signals.c. */
extern __thread uintptr_t rt_alt_lo __attribute__((tls_model("initial-exec"))) RT_HIDDEN;
extern __thread uintptr_t rt_alt_size __attribute__((tls_model("initial-exec"))) RT_HIDDEN;

/* init.c */
RT_HIDDEN void rt_init(void);
RT_HIDDEN int rt_initialising(void);
RT_HIDDEN struct rt_thread *rt_thread_start(void);
RT_HIDDEN int rt_short_of_stack(void);
RT_HIDDEN void rt_on_own_stack(void (*fn)(void *), void *arg);
RT_HIDDEN struct rt_thread *rt_thread_private(void);
RT_HIDDEN void rt_set_self(struct rt_thread *t); /* and rt_hot */
RT_HIDDEN void rt_overflow_set(struct rt_thread *t, uint32_t calls); /* and rt_hot */

/* hooks.c */
void __cyg_profile_func_enter(void *fn, void *call_site) __attribute__((no_instrument_function));
void __cyg_profile_func_exit(void *fn, void *call_site) __attribute__((no_instrument_function));

/* machine.c: the context machine's slow path. */
RT_HIDDEN struct rt_ctx *rt_transition(struct rt_thread *t, struct rt_ctx *c, uintptr_t fn,
				       uintptr_t start);
RT_HIDDEN struct rt_ctx *rt_transition_known(struct rt_thread *t, struct rt_ctx *c, uintptr_t fn);
RT_HIDDEN struct rt_ctx *rt_root_context(struct rt_thread *t);
RT_HIDDEN struct rt_ctx *rt_context_alloc(struct rt_thread *t, uintptr_t fn);
extern struct rt_ctx rt_no_context RT_HIDDEN; /* what an empty cache slot holds */
RT_HIDDEN void *rt_thread_alloc(struct rt_thread *t, size_t n);
RT_HIDDEN void rt_release_lookups(struct rt_thread *t, int warm);
RT_HIDDEN uint64_t rt_lookups_bytes(const struct rt_thread *t);
RT_HIDDEN void rt_lookups_reborn(struct rt_thread *t);
RT_HIDDEN void rt_lookups_give_back(struct rt_thread *t);

/* hooks.c: shared by the manual API. */
RT_HIDDEN void rt_enter(struct rt_thread *t, uintptr_t fn, uintptr_t start, uintptr_t sp,
		       uintptr_t cs);
/* The -mfentry hooks' slow paths (Note [Fentry registers] in fentry.c). */
RT_HIDDEN int rt_fentry_enter_known(uintptr_t key, uintptr_t sp, uintptr_t cs);
RT_HIDDEN void rt_fentry_enter_slow(uintptr_t key, uintptr_t sp, uintptr_t cs);
RT_HIDDEN void rt_fentry_exit_slow(uintptr_t sp, uintptr_t cs);
/* fentry.c: the function whose __fentry__ call returns to key. */
RT_HIDDEN uintptr_t rt_fentry_start(uintptr_t key);
/* machine.c: pop the entries of frames gone before a call of fn from cs
 * at sp; inlined: the call may be an inlined copy's (the
 * -finstrument-functions hooks).  1 if it is a self-inlined copy, which
 * nests in the entry on top (Note [Self-inlined copies]). */
RT_HIDDEN int rt_discard_gone(struct rt_thread *t, uintptr_t sp, uintptr_t cs, uintptr_t fn,
			      int inlined);
/* The runtime on x86-64, preloaded or linked in (longjmp.c; a weak 0 in
 * machine.c). */
extern int rt_jumps_followed RT_HIDDEN;

/* Where the -finstrument-functions hook whose caller's stack pointer is
 * sp was called from: its return address, pushed just below sp. */
static inline uintptr_t rt_hook_site(uintptr_t sp)
{
#if defined(__x86_64__)
	return ((const uintptr_t *)sp)[-1];
#else
	(void)sp;
	return 0;
#endif
}

/* After the slow path entered fn at sp, other than as a self-inlined
 * copy: the hook's site kept in the context entered (Note
 * [Self-inlined copies] in machine.c).  Not where nothing was pushed or
 * no context entered (the shadow stack full, no memory). */
static inline void rt_note_site(struct rt_thread *t, uintptr_t sp, uintptr_t fn)
{
	struct rt_ctx *c = t->cur;

	if (rt_jumps_followed && c->fn == fn && t->top[-1].sp == sp && t->top[-1].fn == fn)
		RT_STORE(&c->site, (uint32_t)rt_hook_site(sp));
}
RT_HIDDEN void rt_pop_gone(struct rt_thread *t, struct rt_shadow *s); /* and calls past the end */

/* machine.c: pop the newest entries for which left(t, entry, sp) holds,
 * frames gone all at once (a longjmp's, an exception's). */
typedef int rt_left_fn(const struct rt_thread *t, const struct rt_shadow *e, uintptr_t sp);
/* How far below its frame's stack pointer an inlined copy's entry may
 * lie, its arguments still pushed: Note [Arguments not yet popped] in
 * machine.c. */
#define RT_PUSHED_MAX 31
/* catch.c: symbol name of the object at `from` or its dependencies, not
 * `ours` (Note [A catch in a library of its own]). */
RT_HIDDEN void *rt_symbol_beside(const void *from, const char *name, void *ours);
RT_HIDDEN void rt_pop_left(struct rt_thread *t, rt_left_fn *left, uintptr_t sp);
/* machine.c: an entry a jump to the frame whose stack pointer is sp leaves. */
RT_HIDDEN rt_left_fn rt_left_by_jump;

/* cctable.c: process-wide cost-centre numbering. */
RT_HIDDEN uint32_t rt_cc_intern(uintptr_t key, uint32_t kind, const char *name);
RT_HIDDEN uint32_t rt_cc_generation(void); /* changes when keys may name other numbers */
RT_HIDDEN void rt_cc_lock(void);
RT_HIDDEN int rt_cc_trylock(void); /* 1 if acquired */
RT_HIDDEN void rt_cc_unlock(void);
RT_HIDDEN void rt_cc_after_fork(void);
struct rt_cc_info {
	uintptr_t key;
	uint32_t kind;
	const char *name;  /* manual regions */
	int32_t module;    /* functions: index in the module table, or -1 */
	int retired;       /* its module was unloaded: the key may be reused */
};
RT_HIDDEN uint32_t rt_cc_count(void);
RT_HIDDEN const struct rt_cc_info *rt_cc_get(uint32_t id);
RT_HIDDEN uintptr_t rt_cc_key(uint32_t id);

/* modules.c: where each function lives (module + offset), names. */
struct rt_module {
	char *path;
	char build_id[BUILDID_HEX_SIZE];
	uintptr_t base;
	uintptr_t lo, hi; /* mapped address range */
	int retired;      /* unloaded: its range may hold another module now */
	int main;         /* the program itself (named from /proc/self/exe) */
	/* Without a build-id, the file at path when the module was recorded,
	 * so that names come from that file only (Note [Names from the
	 * loaded file] in dump.c). */
	int stat_ok;
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec;
};
RT_HIDDEN int32_t rt_module_of(uintptr_t addr); /* under the cc lock */
/* Whether a loaded object's PT_LOAD segments hold [p, p + n). */
struct dl_phdr_info;
RT_HIDDEN int rt_object_holds(const struct dl_phdr_info *info, uintptr_t p, uint64_t n);
RT_HIDDEN int32_t rt_module_retire(uintptr_t base); /* under the cc lock */
RT_HIDDEN void rt_cc_retire_module(int32_t module); /* under the cc lock */
RT_HIDDEN int rt_cc_rebase_module(int32_t module, uintptr_t from, uintptr_t to); /* cc lock */
RT_HIDDEN void rt_retire_contexts(uintptr_t lo, uintptr_t hi);
RT_HIDDEN void rt_dlclose_init(void);
RT_HIDDEN uint32_t rt_module_count(void);
RT_HIDDEN const struct rt_module *rt_module_get(uint32_t i);
/* The /proc/self/map_files path of the mapping that holds addr, into
 * link (RT_MAP_FILES_LEN bytes): 1, or 0 if none or no /proc.  Takes the
 * cc lock. */
#define RT_MAP_FILES_LEN 64
RT_HIDDEN int rt_map_files_path(uintptr_t addr, char *link);

/* threads.c: the registry of every thread that ever ran a hook. */
RT_HIDDEN void rt_registry_lock(void);
RT_HIDDEN int rt_registry_trylock(void);
RT_HIDDEN int rt_registry_trylock_until(uint64_t deadline); /* 1 if acquired */
RT_HIDDEN void rt_registry_unlock(void);
RT_HIDDEN void rt_registry_mask_at_fork(sigset_t *mask); /* in a fork child */
RT_HIDDEN struct rt_thread *rt_registry_first(void); /* under the lock */
RT_HIDDEN int rt_registry_empty(void);
RT_HIDDEN struct rt_thread *rt_live_first(void);     /* under the lock */
RT_HIDDEN int rt_threads_listed(void);
RT_HIDDEN struct rt_thread *const *rt_live_array(uint32_t *n); /* under the lock; or NULL */
RT_HIDDEN void rt_registry_add(struct rt_thread *t);
RT_HIDDEN void rt_thread_used_after_end(struct rt_thread *t);
RT_HIDDEN void rt_registry_walk_unlocked(int begin); /* Note [States reborn] */
RT_HIDDEN void rt_registry_after_fork(struct rt_thread *survivor);
RT_HIDDEN void rt_thread_refresh_name(struct rt_thread *t);
RT_HIDDEN int rt_anything_recorded(void);

/* shadow.c: the shadow stack's segments (Note [Shadow stack segments]) */
RT_HIDDEN int rt_shadow_new(struct rt_thread *t); /* t->base kept if set */
RT_HIDDEN struct rt_shadow *rt_shadow_onward(struct rt_shadow *s);
RT_HIDDEN void rt_shadow_start(void); /* the limits, before a program's seccomp filter */
RT_HIDDEN void rt_shadow_give_back(struct rt_thread *t);
/* without the lock too (signal handlers) */
RT_HIDDEN void rt_shadow_measure(const struct rt_thread *t, uint64_t *in_use, uint64_t *deepest);
RT_HIDDEN int rt_shadow_pool_resident(uint64_t *bytes);
RT_HIDDEN void rt_shadow_after_fork(void);
RT_HIDDEN void rt_shadow_trim(struct rt_thread *t);
RT_HIDDEN uint64_t rt_shadow_clear(struct rt_thread *t);
RT_HIDDEN int rt_reserve_none(void);
RT_HIDDEN struct rt_shadow *rt_chain_new(void);
RT_HIDDEN void rt_chain_give_back(struct rt_shadow *base);

/* stacks.c: one shadow stack for each machine stack (Note [One shadow
 * stack a stack]).  rt_stack_leave before a switch to `to` (`into`: the
 * ucontext this stack is saved into, or NULL when it is left for good),
 * rt_stack_back once this stack runs again. */
struct ucontext_t;
RT_HIDDEN void rt_stack_leave(struct rt_stack_saved *mine, const struct ucontext_t *to,
			      const void *into);
RT_HIDDEN void rt_stack_back(struct rt_stack_saved *mine);
/* The slow paths, on another stack's shadow stack (t->stacks.on_other),
 * with the caller's stack pointer; a longjmp there, with its target's. */
RT_HIDDEN void rt_stack_follow(struct rt_thread *t, uintptr_t sp);
RT_HIDDEN void rt_stack_jump(struct rt_thread *t, uintptr_t target);
RT_HIDDEN void rt_stacks_thread_exit(struct rt_thread *t);
/* ucontext.c: libc's swapcontext, never ours. */
RT_HIDDEN int rt_plain_swapcontext(struct ucontext_t *from, const struct ucontext_t *to);

/* calib.c: an empty function with and without instrumentation */
RT_HIDDEN void rt_calib_instrumented(void);
RT_HIDDEN void rt_calib_bare(void);

/* clock.c */
static inline uint64_t rt_tick(void); /* cycles clock, below */
RT_HIDDEN uint64_t rt_now_ns(clockid_t id);
RT_HIDDEN void rt_clock_start(void);
RT_HIDDEN int rt_clock_calibrate_once(uint64_t *own, sigset_t *mask);
RT_HIDDEN uint64_t rt_ticks_per_sec(void);
RT_HIDDEN void rt_charge_sample(struct rt_thread *t, uint64_t now);
RT_HIDDEN void rt_charge_current(struct rt_thread *t, uint64_t ns);
enum rt_hook_kind { RT_AT_ENTER, RT_AT_EXIT };
RT_HIDDEN void rt_probe_overhead(struct rt_thread *t, uint64_t start, uint64_t interval,
				 enum rt_hook_kind kind);
RT_HIDDEN void rt_overhead_thread_init(struct rt_thread *t);
RT_HIDDEN uint64_t rt_overhead_milliticks(void); /* under the registry lock */

/* sampler.c.  start where no other thread can be opening files (the
 * constructor, a fork child), restart elsewhere (Note [Sandboxed]);
 * start_or_defer at start-up (Note [A helper for code that calls the
 * hooks] in instrumented.c). */
RT_HIDDEN void rt_sampler_start(void);
RT_HIDDEN void rt_sampler_start_or_defer(void);
RT_HIDDEN void rt_sampler_restart(void);
/* The program's credentials change (credentials.c; Note [Credentials by
 * request] in sampler.c): hold, the program's call, and if it succeeded
 * rt_sampler_credentials, the helper's call of system call `call` with
 * a0..a2 (or a helper made anew), then release, which keeps errno. */
RT_HIDDEN int rt_credentials_hold(void);
RT_HIDDEN void rt_sampler_credentials(long call, long a0, long a1, long a2);
RT_HIDDEN void rt_credentials_release(int held);
/* The first thread state exists: the helper starts sampling (Note [The
 * sampler waits for the first call] in sampler.c).  Async-signal-safe,
 * but where the helper was deferred (Note [A helper for code that calls
 * the hooks] in instrumented.c): it is made now. */
RT_HIDDEN void rt_sampler_go(void);
/* instrumented.c, shared runtime only (NULL in libccprof.a): whether an
 * object loaded now, other than the runtime, calls the hooks or the
 * region API. */
RT_HIDDEN int rt_loaded_code_calls_runtime(void) __attribute__((weak));

/* Whether this runtime is libccprof.a, linked into the program, not the
 * shared one: the archive leaves instrumented.c out (the Makefile's
 * RT_SHARED_ONLY). */
static inline int rt_linked_in(void)
{
	return rt_loaded_code_calls_runtime == NULL;
}
RT_HIDDEN void rt_own_time_since(struct rt_thread *t, uint64_t from);
RT_HIDDEN int rt_fork_interposed_begin(void);
RT_HIDDEN void rt_fork_interposed_end(int outer);
RT_HIDDEN void rt_sampler_stop(void);
RT_HIDDEN void rt_sampler_finish(void); /* at exit: no restart after it */
/* The time since each thread's last sample, charged by a write that ends
 * the process from a signal handler or _exit (Note [The last interval of a
 * write that ends the process] in sampler.c) */
RT_HIDDEN void rt_sampler_last_async(void);
/* clock=cpu: a thread's first sample and its last (Note [CPU time where
 * it ran]), under the registry lock; and what the profile says of its
 * time: its contexts' and its own, shared out as its clock says it took
 * (async-signal-safe, reads only). */
RT_HIDDEN void rt_sampler_thread_begins(struct rt_thread *t, uint64_t from);
RT_HIDDEN void rt_sampler_thread_ends(struct rt_thread *t, uint64_t blocks, uint64_t now);
struct rt_cpu_split {
	double per_hit, per_seen; /* ns for each ns of a context's hits, seen */
	uint64_t contexts;        /* what the contexts are to add up to */
	uint64_t root_exact;
	const struct rt_ctx *root;
};
#define RT_BLOCKS_UNKNOWN UINT64_MAX
RT_HIDDEN uint64_t rt_cpu_split_begin(const struct rt_thread *t, struct rt_cpu_split *s);
RT_HIDDEN uint64_t rt_cpu_split_time(const struct rt_cpu_split *s, const struct rt_ctx *c);
RT_HIDDEN uint64_t rt_sampler_samples(void);
RT_HIDDEN uint64_t rt_sampler_looks(void);
/* Whether the calling thread may be under a seccomp filter; the filters
 * the image starts under; whether the calling thread has put itself
 * under more since (Note [Sandboxed] in sandbox.c).  Keep errno. */
RT_HIDDEN int rt_thread_sandboxed(void);
RT_HIDDEN void rt_sandbox_start(void);
RT_HIDDEN int rt_sandbox_forbids_write(void); /* says why, if it does */
/* The program is putting itself under a filter (seccomp.c); whether the
 * process is under none: Note [Calls as a thread ends] in threads.c. */
RT_HIDDEN void rt_sandbox_installing(void);
RT_HIDDEN int rt_sandbox_none(void);
RT_HIDDEN int rt_sandbox_added(void);
/* threads.c: a thread's name as the program gives it, and the calling
 * thread's, kept before a filter comes (Note [Calls as a thread ends]). */
RT_HIDDEN void rt_thread_named(pthread_t handle, const char *name);
RT_HIDDEN void rt_thread_keep_own_name(void);
RT_HIDDEN void rt_sampler_after_fork(void);

/* dispositions.c: Note [Handlers under a filter] in seccomp.c. */
RT_HIDDEN void rt_dispositions_step_aside(void);
RT_HIDDEN int rt_dispositions_stepped_aside(void);
RT_HIDDEN void rt_give_back_signal(int sig);

/* pagepool.c: Note [Pages for the next thread]. */
#define RT_POOL_PAGE 4096u
RT_HIDDEN void *rt_slot_take(void **slots, int n);
RT_HIDDEN int rt_slot_give(void **slots, int n, void *p);
RT_HIDDEN void *rt_page_take(void);
RT_HIDDEN void rt_page_give(void *p);
RT_HIDDEN void *rt_pages_take(size_t bytes);
RT_HIDDEN void rt_pages_give(void *p, size_t bytes);
RT_HIDDEN size_t rt_pages_bytes(size_t bytes);

/* preexec.c: Note [Pre-exec profile], Note [A reused pid]. */
RT_HIDDEN void rt_keep_earlier_profile(const char *path, uint64_t image_start_ns, int others);
RT_HIDDEN int rt_other_of_this_run(uint64_t pid, uint64_t started, uint64_t image_start_ns);

/* procstat.c: a /proc stat file's fields from the third on (NULL if it
 * cannot be read), and one of them by its number in proc(5). */
RT_HIDDEN const char *rt_proc_stat_read(const char *path, char *buf, size_t size);
RT_HIDDEN const char *rt_proc_stat_field(const char *third, int field);

/* lastthread.c: Note [Last thread].  watch: from the thread that starts
 * the helper in a new image or a fork child; ends: a thread of the
 * registry ends; alone: whether the helper should return, for glibc to
 * end the process; it does not come back if it ends the process itself
 * (Note [A leader that died alone]). */
RT_HIDDEN void rt_last_thread_watch(void);
RT_HIDDEN void rt_last_thread_ends(void);
RT_HIDDEN int rt_helper_alone(void);
/* The program's file, as found at the start (dump.c); "" if unknown. */
RT_HIDDEN const char *rt_program_path(void);

/* options.c */
RT_HIDDEN void rt_options_parse(const char *s, struct rt_config *cfg);
RT_HIDDEN int rt_options_escape(char *out, size_t size, const char *s);

/* dump.c */
RT_HIDDEN int rt_dump(void); /* the normal write: at exit, before exec, ccprof_dump */
RT_HIDDEN int rt_dump_sandbox_asked(void); /* rt_dump, rt_sandbox_forbids_write asked already */
RT_HIDDEN void rt_dump_set_args(int argc, char **argv);
RT_HIDDEN void rt_dump_before_fork(void);
RT_HIDDEN void rt_dump_after_fork(void);
RT_HIDDEN void rt_dump_fork_time(void);
/* output= for the image a forked child execs, or a child posix_spawn
 * makes (Note [Exec in a forked child] in exec.c); 0, or -1 if it needs
 * none. */
RT_HIDDEN int rt_dump_exec_output(char *out, size_t size);
RT_HIDDEN int rt_dump_spawn_output(char *out, size_t size);
RT_HIDDEN void rt_dump_init(void);
RT_HIDDEN void rt_dump_keep_room(void);
RT_HIDDEN void rt_manual_after_fork(void);

/* forkprune.c: a forked child's profile without what it only inherited
 * (Note [A forked child's profile]).  Memory comes from the write's
 * (Note [Memory for a write] in dump.c): `alloc` gives zeroed memory or
 * NULL, `release` gives it back (a no-op for the write's mapping). */
struct rt_scratch {
	void *(*alloc)(void *ctx, size_t n);
	void (*release)(void *ctx, void *p);
	void *ctx;
};
RT_HIDDEN int rt_ctx_used(const struct ccp_context *c);
RT_HIDDEN int rt_prune_contexts(struct ccp_profile *p, const uint32_t *inherited,
				const struct rt_scratch *s);
RT_HIDDEN int rt_prune_ccs(struct ccp_profile *p, uint32_t first_own, const struct rt_scratch *s,
			   uint32_t **hists);

/* alloc.c: allocation profiling (libccprof-alloc.so) */
RT_HIDDEN int rt_alloc_measured(void);
RT_HIDDEN void rt_alloc_note(void *p, size_t bytes);
RT_HIDDEN void rt_alloc_own_begin(void);
RT_HIDDEN void rt_alloc_own_end(void);
RT_HIDDEN void rt_alloc_gather(struct ccp_alloc *out);
RT_HIDDEN void rt_alloc_after_fork(void);
RT_HIDDEN int rt_dump_async(void);

/* heap.c: live-heap profiling (heap=1, with alloc.c) */
struct rt_heap_block {
	struct rt_ctx *ctx;
	uint64_t size;
};
extern int rt_heap_active RT_HIDDEN; /* read with RT_LOAD */
/* Note [Blocks from before the start] */
extern int rt_heap_early_open RT_HIDDEN; /* read with RT_LOAD */
extern unsigned rt_heap_early_held RT_HIDDEN;
RT_HIDDEN void rt_heap_configure(void);
/* c is t's current context, or NULL (t too) */
RT_HIDDEN void rt_heap_alloc(void *p, struct rt_thread *t, struct rt_ctx *c, size_t bytes);
RT_HIDDEN void rt_heap_early_alloc(void *p, size_t bytes);
RT_HIDDEN int rt_heap_take(void *p, struct rt_heap_block *out);
RT_HIDDEN void rt_heap_put_back(void *p, const struct rt_heap_block *b);
RT_HIDDEN void rt_heap_sample(uint64_t now); /* under the registry lock */
RT_HIDDEN void rt_heap_final_sample(int async);
RT_HIDDEN uint64_t rt_heap_mark(void);
RT_HIDDEN int rt_heap_gather(struct ccp_profile *p, void *(*alloc)(void *, size_t), void *m,
			    int async, uint64_t mark);
RT_HIDDEN void rt_heap_before_fork(void);
RT_HIDDEN void rt_heap_after_fork_parent(void);
RT_HIDDEN void rt_heap_after_fork_child(struct rt_thread *survivor);

/* Whether a free must look for its block: heap=1, or blocks kept from
 * before the start (the table's count first: its last decrement comes
 * after heap=1 is on). */
static inline int rt_heap_following(void)
{
	return __atomic_load_n(&rt_heap_early_held, __ATOMIC_ACQUIRE) || RT_LOAD(&rt_heap_active);
}

/* init.c: wait for the write at exit (Note [Concurrent exit] in
 * exitgate.c): at most EXIT_START_WAIT_MS for it to begin, EXIT_WAIT_S
 * for it to end */
#define EXIT_START_WAIT_MS 200
#define EXIT_WAIT_S 10
RT_HIDDEN void rt_exit_wait(void);
RT_HIDDEN int rt_exit_wrote(void); /* Note [A signal after the write at exit] in init.c */
/* init.c: the write at exit, now, and the process's handlers registered
 * again; exitgate.c: whether a vfork child's exit dropped them since the
 * last ask (Note [exit in a vfork child] in exitgate.c) */
RT_HIDDEN void rt_exit_write(void);
RT_HIDDEN void rt_process_handlers_again(void);
RT_HIDDEN int rt_exit_child_dropped_handlers(void);
RT_HIDDEN void rt_exit_child_finalized(void);

/* exec.c */
RT_HIDDEN void rt_exec_init(void);
RT_HIDDEN int rt_own_memory(void); /* a child's memory: its own 1, its parent's 0, unknown -1 */
/* exec.c: a child image's CCPROF_OPTIONS entry, RT_OPTIONS_VAR value sep
 * "output=" out, of `bytes` with the NUL (Note [Exec in a forked child]);
 * shellspawn.c makes them too. */
#define RT_OPTIONS_VAR "CCPROF_OPTIONS="
#define RT_OPTIONS_VAR_LEN (sizeof RT_OPTIONS_VAR - 1)
struct rt_child_entry {
	const char *value, *sep, *out;
	size_t bytes;
};
RT_HIDDEN int rt_is_options_entry(const char *entry);
/* 0, or -1 when the value would be longer than the runtime reads. */
RT_HIDDEN int rt_child_entry(struct rt_child_entry *c, const char *value, const char *out);
RT_HIDDEN void rt_child_entry_write(const struct rt_child_entry *c, char *to);
/* shellspawn.c: its state reset in a fork child (Note [Shell children]). */
RT_HIDDEN void rt_shell_after_fork(void);
/* ownsystem.c: glibc's system, for -static (Note [system in a static program]) */
RT_HIDDEN int rt_own_system(const char *command);
extern void (*rt_lend_altstack)(void) RT_HIDDEN; /* altstack.c */
extern void (*rt_lend_thread_altstack)(void) RT_HIDDEN;
extern void (*rt_take_back_thread_altstack)(void) RT_HIDDEN;
/* exitgate.c's, for init.c's write at exit (Note [After the libraries'
 * destructors]): 1 in exit() */
extern int (*rt_exiting)(void) RT_HIDDEN;
RT_HIDDEN void rt_namespaces_init(void);

/* execsys.c: the exec family of a static program (exec.c) */
RT_HIDDEN int rt_sys_execve(const char *path, char *const argv[], char *const envp[]);
RT_HIDDEN int rt_sys_execveat(int dirfd, const char *path, char *const argv[],
			      char *const envp[], int flags);
RT_HIDDEN int rt_sys_fexecve(int fd, char *const argv[], char *const envp[]);
RT_HIDDEN int rt_sys_execvpe(const char *file, char *const argv[], char *const envp[]);

/* rawexit.c: the process ends as libc's _exit ends it, no profile written */
RT_HIDDEN _Noreturn void rt_sys_exit_group(int status);

/* signals.c */
RT_HIDDEN void rt_signals_install(void);
RT_HIDDEN void rt_signals_after_fork_child(void); /* Note [A namespace's init] */
/* The write of a deadly signal, for _exit (rawexit.c): once, async-signal-
 * safe, not in a vfork child nor after the write at exit, on a stack with
 * room, the terminating signals held from then on. */
RT_HIDDEN void rt_write_before_exit(void);
/* That write, then the end of the process's last thread with wait status
 * `status` (Note [A leader that died alone] in lastthread.c). */
RT_HIDDEN _Noreturn void rt_end_as_last_thread(int status);

/* dispositions.c: the program's view of its signal actions */
typedef void (*rt_handler)(int, siginfo_t *, void *);
/* glibc's sigaction under the name it exports for this (GLIBC_2.2.5), in
 * libc.so and libc.a alike: the program's calls reach the interposed
 * sigaction, the runtime's must not. */
extern int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);
RT_HIDDEN void rt_dispositions_init(void);
RT_HIDDEN void rt_take_signal(int sig, rt_handler fn, int always);
RT_HIDDEN const struct sigaction *rt_program_action(int sig);
RT_HIDDEN void rt_program_action_to_run(int sig, struct sigaction *run);
RT_HIDDEN void rt_dispositions_before_fork(void);
RT_HIDDEN void rt_dispositions_after_fork(void);

/* sys.c: memory and messages straight from the kernel (the slow path may
 * run inside malloc or a signal handler, so it never calls malloc). */
RT_HIDDEN void *rt_map(size_t n);
RT_HIDDEN void rt_unmap(void *p, size_t n);
/* Note [Pages written first] in sys.c */
RT_HIDDEN void *rt_map_written(size_t n);
RT_HIDDEN void rt_touch_pages(void *p, size_t n);
RT_HIDDEN void rt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
RT_HIDDEN ssize_t rt_write_quietly(int fd, const void *buf, size_t len);
RT_HIDDEN const char *rt_getenv(const char *name);

/* interposed.c: whether *real, libc's function behind an interposed one,
 * is there, `lookup` called to find it if not yet. */
RT_HIDDEN int rt_real_ready(void *const *real, void (*lookup)(void));
/* dlsym(RTLD_NEXT, name), or fallback where it finds none (a static
 * program). */
RT_HIDDEN void *rt_next_or(const char *name, void *fallback);

/* cancel.c: the runtime's work on a thread's behalf runs with cancellation
 * held off (Note [Cancellation]).  rt_nocancel_begin returns the state to
 * give rt_nocancel_end; rt_deferred_begin/_end keep a thread that enabled
 * asynchronous cancellation from being cancelled in the middle of a slow
 * path that reaches no cancellation point. */
RT_HIDDEN int rt_nocancel_begin(void);
RT_HIDDEN void rt_nocancel_end(int old);
RT_HIDDEN int rt_deferred_begin(void);
RT_HIDDEN void rt_deferred_end(int old);

/* quietlock.c: the runtime's locks, held with all signals blocked (Note
 * [Locks and signals]).  `kept` is the holder's mask from before, put
 * back as the lock is given back; written and read by the holder only.
 * Given back in the reverse order of their taking. */
struct rt_quiet_mutex {
	int word; /* a futex: Note [Locks of our own] */
	sigset_t kept;
};
#define RT_QUIET_MUTEX_INIT { .word = 0 }
RT_HIDDEN void rt_quiet_lock(struct rt_quiet_mutex *q);
RT_HIDDEN int rt_quiet_trylock(struct rt_quiet_mutex *q); /* 1 if acquired */
/* 1 if acquired before deadline (CLOCK_MONOTONIC ns; 0: one try) */
RT_HIDDEN int rt_quiet_trylock_until(struct rt_quiet_mutex *q, uint64_t deadline);
RT_HIDDEN void rt_quiet_unlock(struct rt_quiet_mutex *q);
/* In a fork child: free again (its holder was the forking thread, or a
 * thread the child does not have); `kept` stays for the child to read. */
RT_HIDDEN void rt_quiet_after_fork(struct rt_quiet_mutex *q);
RT_HIDDEN void rt_quiet_thread(int on);

/* rawthread.c: the sampling helper as a thread glibc does not count
 * (Note [A helper glibc does not count]).  prepare: at start-up, what
 * every start copies.  start: 1 if made, else the
 * caller makes a POSIX thread; join waits for its end and frees its
 * memory; forget frees it in a fork child, which has no helper. */
struct rt_raw_thread {
	void *map;        /* guard page, stack, static TLS and control block */
	size_t size;
	pid_t tid;        /* the kernel clears it as the thread ends */
	pthread_t self;   /* what pthread_self() says in the thread */
};
RT_HIDDEN void rt_raw_thread_prepare(void);
RT_HIDDEN int rt_raw_thread_start(struct rt_raw_thread *t, void (*fn)(void *), void *arg);
RT_HIDDEN int rt_raw_thread_start_own_files(struct rt_raw_thread *t, void (*fn)(void *),
					    void *arg);
RT_HIDDEN void rt_raw_thread_join(struct rt_raw_thread *t);
RT_HIDDEN void rt_raw_thread_forget(struct rt_raw_thread *t);

/* waitflag.c: wait, in steps of 1 ms, until *flag is set, or the thread
 * `owner` of this process has gone (0: none to watch), or max_ms have
 * passed; returns *flag.  Async-signal-safe.  The waits for another
 * thread's write (init.c, signals.c). */
#define RT_WAIT_UNBOUNDED UINT32_MAX
RT_HIDDEN int rt_wait_for(const int *flag, long owner, uint32_t max_ms);

/* Whether sp is on the calling thread's own stack (t is its state):
 * off it, a handler runs on an alternate signal stack (Note [Shadow
 * stack]), which may lie inside it (Note [An alternate stack on the
 * thread's stack] in signals.c). */
static inline int rt_sp_on_stack(const struct rt_thread *t, uintptr_t sp)
{
	return sp >= t->stack_lo && sp < t->stack_hi && sp - rt_alt_lo >= rt_alt_size;
}

/* Whether a push at s (top) needs the next segment. */
static inline __attribute__((always_inline)) int rt_shadow_full(const struct rt_shadow *s)
{
	return ((uintptr_t)s & (RT_SEGMENT_BYTES - 1)) == 0;
}

/* The segment that top (one past its newest entry, or its link) is in. */
static inline struct rt_shadow *rt_segment_of(const struct rt_shadow *top)
{
	return (struct rt_shadow *)(((uintptr_t)top - 1) & ~(RT_SEGMENT_BYTES - 1));
}

/* The entry below e (or below top, passed as e), across links, or NULL
 * at the sentinel (Note [Shadow stack segments]).  The sentinel is known
 * by its fn, not by t->base: a switch of machine stacks changes top and
 * base in two stores, and a signal handler may walk between them (Note
 * [One shadow stack a stack] in stacks.c). */
static inline struct rt_shadow *rt_entry_below(const struct rt_shadow *e)
{
	struct rt_shadow *b = (struct rt_shadow *)e - 1;

	if (b->fn == RT_LINK_FN)
		b = (struct rt_shadow *)b->cs - 1;
	return b->fn == (uintptr_t)&rt_no_context ? NULL : b;
}

/* How many entries there are below top (one past an entry, or a link). */
static inline uint64_t rt_shadow_depth(const struct rt_shadow *top)
{
	const struct rt_shadow *seg = rt_segment_of(top);
	uint64_t depth = (uint64_t)(top - seg) - 1;

	for (; seg->fn == RT_LINK_FN; seg = rt_segment_of((const struct rt_shadow *)seg->cs))
		depth += RT_SEGMENT_ENTRIES - 1;
	return depth;
}

/* The newest entry, or NULL. */
static inline struct rt_shadow *rt_entry_top(const struct rt_thread *t)
{
	return rt_entry_below(t->top);
}

/* The context t is in, as the sampler sees it: while a vfork child runs
 * on t's state, the context t called vfork in, where it waits (Note [A
 * vfork child's calls] in vfork.c). */
static inline struct rt_ctx *rt_sampled_cur(const struct rt_thread *t)
{
	struct rt_ctx *c = RT_ACQUIRE(&t->vfork_cur);

	return c != NULL ? c : RT_ACQUIRE(&t->cur);
}

/* The context a sample of t charges, or NULL for the runtime's own time
 * (t is making a transition there: Note [The profiler's own time] in
 * machine.c; not while it waits in vfork).  Under the registry lock. */
static inline struct rt_ctx *rt_charged_ctx(const struct rt_thread *t)
{
	if (RT_ACQUIRE(&t->vfork_cur) == NULL && RT_LOAD(&t->busy) == RT_BUSY_MAKING)
		return NULL;
	return rt_sampled_cur(t);
}

/* Pop the shadow stack down to entry s, which becomes the free slot:
 * `cur` is restored before `top` moves back, so a handler that pushes
 * into the freed slot finds the context we return to (Note [Shadow
 * stack]). */
static inline __attribute__((always_inline)) void rt_pop_to(struct rt_thread *t,
							    struct rt_shadow *s)
{
	RT_PUBLISH(&t->cur, s->ctx);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->top = s;
}

/*
 * Take `busy` (Note [Re-entry] in machine.c) if it is free: 1 if taken.
 * The test and the store are one instruction (cmpxchg, not locked: only
 * this thread and its signal handlers write it), so that no handler
 * comes between them.  One that did, and switched to another task (a
 * preemptive scheduler's swapcontext from a timer's handler), let that
 * task's slow path and ours run at once on the thread's tables: one grew
 * a table the other was copying from (helper-154's green3.c, a crash in
 * table_insert in 1 run of 16, 8 of 16 before session 46).
 */
static inline int rt_busy_take(struct rt_thread *t)
{
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
	uint32_t old = 0;

	__asm__ volatile("cmpxchgl %2, %1"
			 : "+a"(old), "+m"(t->busy)
			 : "r"((uint32_t)RT_BUSY)
			 : "cc", "memory");
	return old == 0;
#else
	uint32_t expected = 0;

	return __atomic_compare_exchange_n(&t->busy, &expected, RT_BUSY, 0, __ATOMIC_RELAXED,
					   __ATOMIC_RELAXED);
#endif
}

/* Add one to a call counter in one instruction, so that a signal handler
 * which runs hooks between our load and our store cannot have its own
 * increment overwritten (Note [Cache reads] in hooks.c).  Only this thread
 * writes the counter; the profile writer reads it, so no lock is needed. */
static inline __attribute__((always_inline)) void rt_count(uint64_t *p)
{
#if defined(__x86_64__)
	__asm__("addq $1, %0" : "+m"(*p));
#else
	RT_STORE(p, *p + 1); /* a load and a store: the window stays open here */
#endif
}

/* The same for a sum, such as the bytes a context allocated (alloc.c). */
static inline __attribute__((always_inline)) void rt_count_add(uint64_t *p, uint64_t n)
{
#if defined(__x86_64__)
	__asm__("addq %1, %0" : "+m"(*p) : "r"(n));
#else
	RT_STORE(p, *p + n); /* as rt_count's */
#endif
}

/* Cycles clock: charge the ticks since the previous hook to the context
 * that ran them, less the monitor's estimated cost per hook.  An interval
 * shorter than the estimate leaves a debt for the next one, and fractions
 * of a tick carry over, so the total stays unbiased. */
#define RT_FX 8 /* fixed point: overhead in 1/256 ticks */
static inline void rt_charge_ticks(struct rt_thread *t, uint64_t now)
{
	int64_t bal = t->carry + (int64_t)((now - t->last_tick) << RT_FX) - (int64_t)t->overhead_fx;
	struct rt_ctx *c = t->cur;

	if (bal > 0) {
		RT_STORE(&c->time, c->time + ((uint64_t)bal >> RT_FX));
		bal &= (1 << RT_FX) - 1;
	}
	t->carry = bal;
	RT_STORE(&t->last_tick, now); /* a plain mov, as before */
}

/* What a thread's hooks took off as the monitor's cost, given what they
 * charged (the sum of its contexts' times): its span from the first hook
 * to the last, less that.  It is the estimate per hook times the hooks
 * only while the intervals could pay it: a debt still owed at the end was
 * never taken.  The profile writer reads it for other threads too. */
static inline uint64_t rt_subtracted_ticks(const struct rt_thread *t, uint64_t charged)
{
	uint64_t span = RT_LOAD(&t->last_tick) - t->first_tick;

	charged += RT_LOAD(&t->own_ticks); /* measured apart: not the estimate's */
	return span > charged ? span - charged : 0;
}

static inline uint64_t rt_tick(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#else
	return rt_now_ns(CLOCK_MONOTONIC);
#endif
}

#endif
