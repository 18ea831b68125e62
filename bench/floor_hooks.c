/*
 * floor_hooks.c - the least a profiler with per-thread state can do in
 * the -finstrument-functions hooks: a floor under ccprof's R, measured
 * beside it by make bench (docs/performance.md, session 44).
 *
 * Two ways to build it, each preloaded as libccprof.so is:
 *   -DFLOOR_PUSH   (floor_push.so, which bench/bench.py builds and runs)
 *                  the enter hook reads its thread's state (a
 *                  thread-local pointer, initial-exec as the runtime's
 *                  rt_hot) and pushes a shadow entry (the caller's
 *                  context, stack pointer, function, call site: ccprof's
 *                  32 bytes); the exit hook pops it if it is the call's,
 *                  putting the context back;
 *   without it     each hook reads its thread's state and one field of
 *                  it, and returns: about the empty hooks' cost (R 1.00
 *                  to 1.11 on objdump, measured with bench/ab.py), so
 *                  make bench leaves it out.
 * No calling context is computed, nothing counted, no frames-gone test,
 * no signal safety: whatever ccprof does beyond this is its own cost.
 * With FLOOR_REPORT set in the environment, floor_push.so prints at exit
 * the first thread's deepest entry (found in its stack's memory, not
 * kept by the hooks) and its exits that matched no entry, so that a test
 * can tell it really pushes (tests/bench_stats.py).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HOOK __attribute__((visibility("default"), no_instrument_function, used))

struct entry {
	void *ctx;
	uintptr_t sp, fn, cs;
};

#define ENTRIES (1u << 20) /* 32 MiB of address space a thread, touched as deep as it goes */

struct state {
	struct entry *top, *end;
	void *cur;
	uintptr_t unmatched;
	struct entry base[];
};

static __thread struct state *self __attribute__((tls_model("initial-exec")));
static struct state *first; /* the first thread's, for the report */

HOOK void __cyg_profile_func_enter(void *fn, void *call_site);
HOOK void __cyg_profile_func_exit(void *fn, void *call_site);

/* The thread's first hook: its state, or NULL (it then stays stateless). */
static __attribute__((noinline, cold)) struct state *state_new(void)
{
	size_t bytes = sizeof(struct state) + ENTRIES * sizeof(struct entry);
	struct state *t = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (t == MAP_FAILED)
		return NULL;
	t->top = t->base + 1; /* base[0]: a sentinel no exit matches */
	t->end = t->base + ENTRIES;
	t->cur = t;
	self = t;
	__atomic_compare_exchange_n(&first, &(struct state *){NULL}, t, 0, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	return t;
}

static inline __attribute__((always_inline)) void enter(struct state *t, void *fn,
							void *call_site, uintptr_t sp)
{
	struct entry *s = t->top;

#ifdef FLOOR_PUSH
	if (__builtin_expect(s == t->end, 0))
		return;
	s->ctx = t->cur;
	s->sp = sp;
	s->fn = (uintptr_t)fn;
	s->cs = (uintptr_t)call_site;
	t->top = s + 1;
	t->cur = s;
#else
	(void)fn;
	(void)call_site;
	(void)sp;
	__asm__ __volatile__("" : : "r"(s));
#endif
}

/* The thread's first call: a tail call from the hook, which then needs
 * no frame of its own. */
static __attribute__((noinline, cold)) void enter_first(void *fn, void *call_site, uintptr_t sp)
{
	struct state *t = state_new();

	if (t != NULL)
		enter(t, fn, call_site, sp);
}

HOOK void __cyg_profile_func_enter(void *fn, void *call_site)
{
	struct state *t = self;
	uintptr_t sp = (uintptr_t)__builtin_dwarf_cfa();

	if (__builtin_expect(t == NULL, 0))
		enter_first(fn, call_site, sp);
	else
		enter(t, fn, call_site, sp);
}

HOOK void __cyg_profile_func_exit(void *fn, void *call_site)
{
	struct state *t = self;
	struct entry *s;

	if (__builtin_expect(t == NULL, 0))
		return;
	s = t->top;
#ifdef FLOOR_PUSH
	s--;
	if (__builtin_expect(s->fn != (uintptr_t)fn || s->cs != (uintptr_t)call_site, 0)) {
		t->unmatched++;
		return;
	}
	t->cur = s->ctx;
	t->top = s;
#else
	(void)fn;
	(void)call_site;
	__asm__ __volatile__("" : : "r"(s));
#endif
}

/* Entries are written from base[1] up, and the memory was zero. */
__attribute__((destructor, no_instrument_function)) static void report(void)
{
	struct state *t = __atomic_load_n(&first, __ATOMIC_RELAXED);
	const struct entry *e;

	if (t == NULL || getenv("FLOOR_REPORT") == NULL)
		return;
	for (e = t->base + 1; e < t->end && e->fn != 0; e++)
		;
	fprintf(stderr, "floor: deepest %lu unmatched %lu\n", (unsigned long)(e - t->base - 1),
		(unsigned long)t->unmatched);
}
