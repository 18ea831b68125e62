/*
 * machine.c - the context machine's slow path (docs/semantics.md, "Cost
 * centres and contexts").
 *
 * A transition that the current context's inline cache does not know lands
 * here: look it up in the thread's transition table (B1); on a miss compute
 * the new history with steps A2-A5, find or create the context with that
 * history (B2) and memoise the transition (B3).
 *
 * Note [Re-entry]: a signal handler may run instrumented code while this
 * thread is inside the slow path.  The tables are then half-updated, so
 * such a nested call does not transition: rt_transition returns NULL, the
 * hook keeps the current context (its shadow entry keeps returns matched)
 * and the call is counted as lost.  Memory comes from mmap, never malloc,
 * so a slow path inside malloc cannot deadlock.
 */
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime.h"

/* Chunks grow from 64 KiB to 1 MiB: small programs stay small. */
#define ARENA_FIRST_CHUNK (1u << 16)
#define ARENA_CHUNK (1u << 20)

void *rt_thread_alloc(struct rt_thread *t, size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if ((size_t)(t->arena_end - t->arena_next) < n) {
		/* as much again as the thread has, within the bounds */
		size_t chunk = t->memory_bytes;
		unsigned char *m;

		if (chunk < ARENA_FIRST_CHUNK)
			chunk = ARENA_FIRST_CHUNK;
		if (chunk > ARENA_CHUNK)
			chunk = ARENA_CHUNK;
		if (chunk < n)
			chunk = n;
		m = rt_map(chunk);
		if (m == NULL)
			return NULL;
		t->arena_next = m;
		t->arena_end = m + chunk;
	}
	p = t->arena_next;
	t->arena_next += n;
	t->memory_bytes += n; /* what is used: the chunk is only reserved */
	return p;
}

/* ---- Open-addressing tables, owned by one thread ---------------------- */

struct rt_slot {
	uintptr_t key;      /* transitions: fn;  contexts: history hash */
	struct rt_ctx *from; /* transitions only */
	struct rt_ctx *ctx;
};

struct rt_table {
	size_t cap; /* power of two */
	size_t used;
	struct rt_slot slots[];
};

static size_t table_bytes(size_t cap)
{
	return sizeof(struct rt_table) + cap * sizeof(struct rt_slot);
}

static struct rt_table *table_new(struct rt_thread *t, size_t cap)
{
	size_t bytes = table_bytes(cap);
	/* Note [Pages for the next thread] in pagepool.c; Note [Pages
	 * written first] in sys.c */
	struct rt_table *tab = rt_pages_take(bytes);

	if (tab == NULL)
		return NULL;
	tab->cap = cap;
	t->memory_bytes += rt_pages_bytes(bytes); /* what it holds */
	return tab;
}

static void table_free(struct rt_thread *t, struct rt_table *tab)
{
	size_t bytes = table_bytes(tab->cap);

	t->memory_bytes -= rt_pages_bytes(bytes);
	rt_pages_give(tab, bytes);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static size_t slot_hash(const struct rt_slot *s)
{
	return mix(s->key ^ ((uintptr_t)s->from * 0x9e3779b97f4a7c15ULL));
}

/* Insert without checking for duplicates; grows at half full.  Returns 0,
 * or -1 when memory ran out (the table is then unchanged). */
static int table_insert(struct rt_thread *t, struct rt_table **tabp, struct rt_slot s)
{
	struct rt_table *tab = *tabp;
	size_t i;

	/* Code after the thread's end: its end once more, for what this
	 * code uses (rt_thread_used_after_end); a warm thread kept its
	 * tables (Note [States reborn] in threads.c). */
	if (!t->alive)
		rt_thread_used_after_end(t);
	if (tab == NULL || 2 * (tab->used + 1) > tab->cap) {
		struct rt_table *bigger = table_new(t, tab ? 2 * tab->cap : 64);

		if (bigger == NULL)
			return -1;
		for (i = 0; tab && i < tab->cap; i++) {
			struct rt_slot *o = &tab->slots[i];
			size_t j = slot_hash(o) & (bigger->cap - 1);

			if (o->ctx == NULL)
				continue;
			while (bigger->slots[j].ctx)
				j = (j + 1) & (bigger->cap - 1);
			bigger->slots[j] = *o;
			bigger->used++;
		}
		if (tab)
			table_free(t, tab);
		*tabp = tab = bigger;
	}
	i = slot_hash(&s) & (tab->cap - 1);
	while (tab->slots[i].ctx)
		i = (i + 1) & (tab->cap - 1);
	tab->slots[i] = s;
	tab->used++;
	return 0;
}

static struct rt_ctx *transition_lookup(struct rt_table *tab, struct rt_ctx *from, uintptr_t fn)
{
	struct rt_slot probe = { fn, from, NULL };
	size_t i;

	if (tab == NULL)
		return NULL;
	/* A slot whose target no longer runs fn is a transition into an
	 * unloaded library's function (rt_retire_contexts): passed over. */
	for (i = slot_hash(&probe) & (tab->cap - 1); tab->slots[i].ctx; i = (i + 1) & (tab->cap - 1))
		if (tab->slots[i].key == fn && tab->slots[i].from == from &&
		    RT_LOAD(&tab->slots[i].ctx->fn) == fn)
			return tab->slots[i].ctx;
	return NULL;
}

static uintptr_t history_hash(const uint32_t *h, uint32_t len)
{
	uint64_t x = 0x243f6a8885a308d3ULL ^ len;
	uint32_t i;

	for (i = 0; i < len; i++)
		x = mix(x ^ h[i]) + i;
	return (uintptr_t)x;
}

static struct rt_ctx *context_lookup(struct rt_table *tab, const uint32_t *h, uint32_t len,
				     uintptr_t hash)
{
	struct rt_slot probe = { hash, NULL, NULL };
	size_t i;

	if (tab == NULL)
		return NULL;
	for (i = slot_hash(&probe) & (tab->cap - 1); tab->slots[i].ctx; i = (i + 1) & (tab->cap - 1)) {
		struct rt_ctx *c = tab->slots[i].ctx;

		if (tab->slots[i].key == hash && c->len == len &&
		    memcmp(c->hist, h, len * sizeof *h) == 0)
			return c;
	}
	return NULL;
}

/* ---- Steps A2-A5 -------------------------------------------------------- */

static int unmarked(uint32_t e)
{
	return !CCP_ENTRY_MARKED(e);
}

/* A4: delete interior unmarked entries whose neighbours are unmarked. */
static int squeeze_isolated(uint32_t *h, uint32_t *len)
{
	uint32_t i, n = *len, out = 0;
	int changed = 0;

	for (i = 0; i < n; i++) {
		int interior = i > 0 && i + 1 < n;

		if (interior && unmarked(h[i]) && unmarked(h[out - 1]) && unmarked(h[i + 1])) {
			changed = 1;
			continue;
		}
		h[out++] = h[i];
	}
	*len = out;
	return changed;
}

/* A5: of two equal adjacent unmarked entries, keep one. */
static int squeeze_repeats(uint32_t *h, uint32_t *len)
{
	uint32_t i, n = *len, out = 0;
	int changed = 0;

	for (i = 0; i < n; i++) {
		if (out > 0 && h[i] == h[out - 1] && unmarked(h[i])) {
			changed = 1;
			continue;
		}
		h[out++] = h[i];
	}
	*len = out;
	return changed;
}

/*
 * The history after entering `cc` from history `h` (A2-A5).  `out` has room
 * for len + 1 entries.  Example (Spivey): from [main] P R [P] [Q] [R],
 * entering P gives [main] P R P [Q] [R] [P] (A2, A3); A4 drops the R between
 * two unmarked Ps; A5 merges the two Ps: [main] P [Q] [R] [P].
 */
static uint32_t next_history(const uint32_t *h, uint32_t len, uint32_t cc, uint32_t *out)
{
	uint32_t i, n = len;

	for (i = 0; i < len; i++) /* A3 */
		out[i] = CCP_ENTRY_CC(h[i]) == cc ? CCP_ENTRY(cc, 0) : h[i];
	out[n++] = CCP_ENTRY(cc, 1); /* A2 */
	for (;;) { /* A4 and A5, until neither applies */
		while (squeeze_isolated(out, &n))
			;
		if (!squeeze_repeats(out, &n))
			break;
		while (squeeze_repeats(out, &n))
			;
	}
	return n;
}

/* ---- Contexts ------------------------------------------------------------ */

/* What an empty cache slot holds, so that the hooks need no NULL test: it
 * runs its own (data) address, which no hook is ever given, and its slots
 * point back at it. */
struct rt_ctx rt_no_context = {
	.fn = (uintptr_t)&rt_no_context,
	.cache = { { (uintptr_t)&rt_no_context, &rt_no_context },
		   { (uintptr_t)&rt_no_context, &rt_no_context } },
};

/* A context running `fn` with empty caches, not yet part of the machine. */
struct rt_ctx *rt_context_alloc(struct rt_thread *t, uintptr_t fn)
{
	struct rt_ctx *c = rt_thread_alloc(t, sizeof *c);

	if (c == NULL)
		return NULL;
	c->fn = fn;
	rt_pair_put(&c->cache[0], &rt_no_context);
	rt_pair_put(&c->cache[1], &rt_no_context);
	return c;
}

static struct rt_ctx *context_new(struct rt_thread *t, uintptr_t fn, const uint32_t *h,
				  uint32_t len)
{
	struct rt_ctx *c = rt_context_alloc(t, fn);
	uint32_t *copy = len ? rt_thread_alloc(t, len * sizeof *h) : NULL;

	if (c == NULL || (len && copy == NULL))
		return NULL;
	if (len)
		memcpy(copy, h, len * sizeof *h);
	c->hist = copy;
	c->len = len;
	c->id = t->ncontexts++;
	if (len > t->deepest_history)
		t->deepest_history = len;
	c->all_next = t->all;
	RT_PUBLISH(&t->all, c);
	return c;
}

struct rt_ctx *rt_root_context(struct rt_thread *t)
{
	return context_new(t, 0, NULL, 0);
}

/*
 * Note [Transition cache]: a context remembers the targets of two recent
 * transitions (cache), which covers straight-line code.  A dispatch loop
 * or an interpreter leaves one context for many callees, so each thread
 * also has a direct-mapped cache of (context, fn) -> context, checked by
 * the hook before it falls to the slow path and its hash table (and
 * Note [Slots without judgement] below).  Neither
 * stores fn: a transition's target runs fn, so `to->fn == fn` is the
 * test, and the target of (c, fn) is unique.  Filled here; how the hooks
 * read them safely while a signal handler may be filling them is Note
 * [Cache reads] in hooks.c.
 *
 * Note [The thread cache's slots]: a (context, fn) pair's slot was
 * (fn >> 2) ^ (context >> 5), of 512.  Functions start 16 bytes apart
 * at least (gcc and clang align them so), and contexts, allocated one
 * after another, crowd together too, so the pairs of a real program
 * piled into few of the slots: GNU objdump's -d made 170,000 to 760,000
 * lookups in the slow path's hash table (the count varies with the
 * addresses a run gets) for 17 million calls, SQLite's driver 316,000.
 * Now both addresses are shifted by four: 70,000 and 90,000-100,000,
 * and the bench's other workloads as before (13 to 521); objdump ran
 * 1.53 times bare against 1.67 (docs/performance.md, session 29).
 * 1,024 slots cut the lookups further (1,948 and 46,000) but ran no
 * faster (1.53), and would have cost each ended thread 8 KB more
 * address space.  A multiplicative hash spread the pairs at random, and
 * some runs then thrashed on two hot pairs in one slot (vm.c: 532,000
 * lookups in 3 runs of 5, 24 in the others).
 */
static void tcache_put(struct rt_thread *t, struct rt_ctx *c, struct rt_ctx *n)
{
	struct rt_tcache *e = &t->tcache[RT_TCACHE_SLOT(c, n->fn)];

	t->tcache_gen++; /* under busy: no handler writes meanwhile */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	e->from = NULL; /* a handler that interrupts us sees a miss */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	e->to = n;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	e->from = c;
}

/*
 * Note [Slots without judgement]: a context's two slots hold the two
 * latest transitions from it that the slow path found or made (a
 * transition the caches missed, one made anew, or one that collided in
 * the thread cache with another), the newer first.  Nothing else moves
 * them, and the hooks write nothing to the calling context to look them
 * up.  From the fourth session to the fiftieth the slots judged
 * themselves instead: each context counted the lookups that went past
 * them, a store to it at every thread-cache hit, and every 1,024 of
 * those the slow path weighed what the slots had caught, bypassed slots
 * that caught under half, refilled them later and gave the colder slot
 * to the latest miss, for contexts that dispatch among many callees
 * (an interpreter's loop, a table of function pointers), whose slot
 * compares mispredict.  Measured again in session 51 with fresh copies
 * of each library for each run (Note [Where a file's pages lie] in
 * bench/copies.py), 15 rounds each, the runtime without it ran SQLite's
 * gcc build in 0.943-0.949 of the time (15 of 15 rounds), objdump -d
 * 0.975, tiny 0.965, the interpreter (vm) 0.953 and dispatch 0.985,
 * the cases it was made for among them; recurse and clang's SQLite
 * alike (docs/performance.md, session 51).  Windows of 4,096 or 16,384
 * lookups changed nothing: the count's store cost about 2.4 % of
 * SQLite's run and the judgements 3.3 % more.  rt_ctx keeps the room
 * its state took, so that contexts lie in the arena where they did and
 * the same pairs share a thread-cache slot (Note [The thread cache's
 * slots]).
 */

/* n, the transition from c just found or made, takes the newer slot. */
static void cache_put(struct rt_ctx *c, struct rt_ctx *n)
{
	rt_pair_put(&c->cache[1], c->cache[0].to);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rt_pair_put(&c->cache[0], n);
}

/*
 * Note [Context budget]: a thread creates at most max_contexts contexts.
 * Past that, entering F goes to F's overflow context, history
 * [<overflow>] [F]: calls and self time of F stay exact, only the calling
 * context is lost, and `ccprof info` reports the time charged there.  There
 * is one per function, so memory stays bounded; such transitions are not
 * memoised in the table (only in the inline cache).
 */
#define OVERFLOW_KEY ((uintptr_t)1) /* no function lives at address 1 */

/* A context found by its history runs fn: the history ends with fn's cost
 * centre.  Its fn differs only if it was retired (Note [Unloaded
 * functions]) and its library has been loaded again at the same place:
 * its owner, this thread, gives it back. */
static struct rt_ctx *runs(struct rt_ctx *n, uintptr_t fn)
{
	if (n && RT_LOAD(&n->fn) != fn)
		RT_STORE(&n->fn, fn);
	return n;
}

/*
 * Note [Cost centres a thread remembers]: every context made asks the
 * process-wide table for its function's number, under the cc lock, whose
 * two sigprocmask calls (Note [Locks and signals] in quietlock.c) were the
 * largest part of what the runtime cost a short process: bash -c 'echo
 * hi' makes 740 contexts and made 1,589 of those calls, git rev-parse
 * 2,174 (helper-120).  So each thread remembers the numbers it was given,
 * direct-mapped by key, and asks again only for a key it does not hold,
 * or once the table's generation has changed: a module unloaded, or
 * loaded again elsewhere, may give a key another number.  Read and
 * written in the slow path only, under busy, so no handler of the
 * thread's sees one half-written.
 */
#define RT_CC_MEMO_BITS 8
struct rt_cc_memo {
	uintptr_t key;
	uint32_t cc;
	uint32_t generation; /* 0 in a zeroed entry: never the table's */
};
#define RT_CC_MEMO_BYTES (sizeof(struct rt_cc_memo) << RT_CC_MEMO_BITS) /* one page */
_Static_assert(RT_CC_MEMO_BYTES == RT_POOL_PAGE, "the memo is one pool page");

/* A page of its own, not from the arena: an ended thread gives it back
 * with its other lookups (rt_release_lookups), 4 KB each (helper-121),
 * to the pool (Note [Pages for the next thread] in pagepool.c), or,
 * warm, leaves it whole to the thread that takes its state over (Note
 * [States reborn] in threads.c). */
static struct rt_cc_memo *cc_memo(struct rt_thread *t)
{
	if (t->cc_memo == NULL && (t->cc_memo = rt_page_take()) != NULL)
		t->memory_bytes += RT_CC_MEMO_BYTES;
	return t->cc_memo;
}

/* The cost centre at address `at`, memoised under `key`: the same but
 * for -mfentry's functions, known to the hooks by their __fentry__
 * call's return address (Note [Fentry keys] in fentry.c). */
static uint32_t cc_of(struct rt_thread *t, uintptr_t key, uintptr_t at, uint32_t kind,
		      const char *name)
{
	uint32_t generation = rt_cc_generation(), cc;
	struct rt_cc_memo *m;

	if (cc_memo(t) == NULL)
		return rt_cc_intern(at, kind, name);
	m = &t->cc_memo[(key * 0x9e3779b97f4a7c15ULL) >> (64 - RT_CC_MEMO_BITS)];
	if (m->key == key && m->generation == generation)
		return m->cc;
	cc = rt_cc_intern(at, kind, name);
	if (cc != UINT32_MAX)
		*m = (struct rt_cc_memo){ key, cc, generation };
	return cc;
}

static struct rt_ctx *overflow_context(struct rt_thread *t, uint32_t cc, uintptr_t fn)
{
	uint32_t ovf = cc_of(t, OVERFLOW_KEY, OVERFLOW_KEY, CCP_CC_OVERFLOW, "<overflow>");
	uint32_t h[2];
	uintptr_t hash;
	struct rt_ctx *n;

	if (ovf == UINT32_MAX)
		return NULL;
	h[0] = CCP_ENTRY(ovf, 1);
	h[1] = CCP_ENTRY(cc, 1);
	hash = history_hash(h, 2);
	n = context_lookup(t->contexts_tab, h, 2, hash);
	if (n == NULL) {
		n = context_new(t, fn, h, 2);
		if (n == NULL || table_insert(t, &t->contexts_tab, (struct rt_slot){ hash, NULL, n }))
			return NULL;
	}
	return runs(n, fn);
}

static struct rt_ctx *find_or_create(struct rt_thread *t, struct rt_ctx *c, uintptr_t fn,
				     uintptr_t start)
{
	uint32_t cc = cc_of(t, fn, start, CCP_CC_FUNCTION, NULL);
	uint32_t stackbuf[256];
	uint32_t *h = stackbuf;
	uint32_t len;
	uintptr_t hash;
	struct rt_ctx *n;

	if (cc == UINT32_MAX)
		return NULL;
	if (c->len + 1 > sizeof stackbuf / sizeof *stackbuf) {
		h = rt_thread_alloc(t, (c->len + 1) * sizeof *h); /* rare: long history */
		if (h == NULL)
			return NULL;
	}
	len = next_history(c->hist, c->len, cc, h);
	hash = history_hash(h, len);
	n = context_lookup(t->contexts_tab, h, len, hash);
	if (n == NULL && t->ncontexts >= rt_config.max_contexts) {
		t->over_budget = 1;
		return overflow_context(t, cc, fn);
	}
	if (n == NULL) {
		n = context_new(t, fn, h, len);
		if (n == NULL || table_insert(t, &t->contexts_tab, (struct rt_slot){ hash, NULL, n }))
			return NULL;
	}
	return runs(n, fn);
}

/* A pair's function half alone, in one 8-byte store: a hook's 16-byte
 * load sees it before or after, with its target either way (Note [Cache
 * pairs] in hooks.c). */
static void retire_pair(struct rt_pair *p, uintptr_t lo, uintptr_t hi)
{
	uintptr_t fn = RT_LOAD(&p->fn);

	if (fn >= lo && fn < hi)
		RT_STORE(&p->fn, (uintptr_t)&rt_no_context);
}

/*
 * Note [Unloaded functions]: contexts, caches and tables know a function
 * by its address, and after dlclose another library may be loaded at the
 * same addresses.  So when a library is unloaded (dlclose.c), every
 * thread's contexts of its functions (fn in [lo, hi)) get fn =
 * &rt_no_context, a data address no call has: the hooks' caches and the
 * transition table then miss on them, and a call to a new function there
 * makes a new context, under the new cost-centre number cctable.c gives
 * it.  The old contexts keep their histories and counts for the profile.
 * The same library loaded again at the same place is the same module, its
 * functions get their old numbers back, and a thread that enters one
 * finds its old context by the history and restores its fn (runs(),
 * above): a plugin opened and closed in a loop keeps one set of cost
 * centres and contexts, as before dlclose was interposed.  Retiring is
 * the one write of another thread's fn, and of the copies of it in its
 * inline cache slots (Note [Cache pairs] in hooks.c); a call racing with
 * it would be a call into a library being unloaded.
 */
void rt_retire_contexts(uintptr_t lo, uintptr_t hi)
{
	struct rt_thread *t;
	struct rt_ctx *c;

	rt_registry_lock();
	for (t = rt_registry_first(); t; t = t->next)
		for (c = RT_ACQUIRE(&t->all); c; c = c->all_next) {
			if (RT_LOAD(&c->fn) >= lo && RT_LOAD(&c->fn) < hi) /* owners write it too: runs() */
				RT_STORE(&c->fn, (uintptr_t)&rt_no_context);
			retire_pair(&c->cache[0], lo, hi);
			retire_pair(&c->cache[1], lo, hi);
		}
	rt_registry_unlock();
}

_Static_assert(offsetof(struct rt_thread, tcache) == RT_TCACHE_ALIGN,
	       "the thread cache starts the thread state's second page");

/* A table that a warm ended thread keeps for the next (Note [States
 * reborn] in threads.c): a first one, of one page.  One that grew is
 * given back, so that what ended threads keep stays small. */
static int table_kept(const struct rt_table *tab, int warm)
{
	return warm && rt_pages_bytes(table_bytes(tab->cap)) == RT_POOL_PAGE;
}

static void table_release(struct rt_thread *t, struct rt_table **tabp, int warm)
{
	if (*tabp != NULL && !table_kept(*tabp, warm)) {
		table_free(t, *tabp);
		*tabp = NULL;
	}
}

/* The lookups given back, but for what a warm thread keeps. */
static void lookups_release(struct rt_thread *t, int warm)
{
	table_release(t, &t->transitions_tab, warm);
	table_release(t, &t->contexts_tab, warm);
	if (t->cc_memo && !warm) {
		rt_page_give(t->cc_memo);
		t->memory_bytes -= RT_CC_MEMO_BYTES;
		t->cc_memo = NULL;
	}
}

/*
 * A thread has ended: give back what only finds transitions, and keep
 * what is written at exit (contexts, counters).  The hash tables are
 * freed (small ones to the pool: Note [Pages for the next thread] in
 * pagepool.c) and the thread cache's pages returned to the kernel, which
 * makes them read as zeros, an empty cache: 27 KB resident per ended
 * thread become 12.  A warm thread (Note [States reborn] in threads.c)
 * keeps its thread cache's pages, its first tables and its memo of cost
 * centres for the thread that takes its state over (rt_lookups_reborn).
 * Instrumented code that still runs on the thread (another key's
 * destructor) uses the tables it kept, or finds every transition anew,
 * in tables that are given back again (rt_thread_used_after_end), and a
 * history it enters again gets a second context, which ccprof merges
 * when it reads the file (docs/fuzzing.md, repeated histories).  Under
 * busy: a signal handler meanwhile takes no slow path.
 */
void rt_release_lookups(struct rt_thread *t, int warm)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)t->tcache, hi = lo + sizeof t->tcache;

	RT_STORE(&t->busy, RT_BUSY);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	lookups_release(t, warm);
	t->tcache_gen++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (page > 0 && !warm) {
		lo = (lo + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
		hi &= ~((uintptr_t)page - 1);
		if (lo < hi)
			madvise((void *)lo, hi - lo, MADV_DONTNEED);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	RT_STORE(&t->busy, 0);
}

/* What a state's lookups hold: an ended thread's record leaves them to
 * the thread that takes its state over (Note [States reborn]). */
uint64_t rt_lookups_bytes(const struct rt_thread *t)
{
	uint64_t bytes = t->cc_memo ? RT_CC_MEMO_BYTES : 0;

	if (t->transitions_tab)
		bytes += rt_pages_bytes(table_bytes(t->transitions_tab->cap));
	if (t->contexts_tab)
		bytes += rt_pages_bytes(table_bytes(t->contexts_tab->cap));
	return bytes;
}

static void table_empty(struct rt_table *tab)
{
	memset(tab->slots, 0, tab->cap * sizeof tab->slots[0]);
	tab->used = 0;
}

/* A state's lookups, all given back: a state that could not be made. */
void rt_lookups_give_back(struct rt_thread *t)
{
	lookups_release(t, 0);
}

/* A reborn state's lookups, as its ended thread kept them: the tables
 * emptied (their contexts are the ended thread's), the memo of cost
 * centres kept whole, for cost centres are the process's and each entry
 * carries the generation it holds for. */
void rt_lookups_reborn(struct rt_thread *t)
{
	/* Only what the rule keeps, even if code after the end grew them. */
	lookups_release(t, 1);
	if (t->transitions_tab)
		table_empty(t->transitions_tab);
	if (t->contexts_tab)
		table_empty(t->contexts_tab);
	t->memory_bytes = rt_lookups_bytes(t); /* the state's first bytes */
}

/*
 * Note [The profiler's own time]: making a transition is the runtime's
 * work, not the program's: a new context, its cost centre the first time
 * a function is seen, and now and then a table that doubles (at 16,384
 * contexts, milliseconds).  Charged to the context current then, it made
 * one-off spikes on whatever function happened to run: in a program
 * that enters 20,000 functions once each, the one at 16,383 took 23 % of
 * the run under clock=cycles, and in Lua's parser a leaf called 7 times
 * took 20 % (helper-100).  So that time is charged to no context and
 * counted apart, as the profile's own_time (docs/format.md 3.6):
 * under clock=cycles the owner reads the counter around the making and
 * moves its interval's start past it; under the sampling clocks a sample
 * that finds the thread making (busy == RT_BUSY_MAKING) puts its
 * interval there.  Finding a transition that exists stays charged as
 * before: it is as short as a hook's miss, and common.  A forked child's
 * start is the runtime's too (rt_own_time_since, Note [A forked child's
 * start] in init.c).
 */
struct making {
	uint64_t start;      /* clock=cycles: the counter as the making began */
	uint64_t last_tick;  /* and the interval's start then */
};

static struct making making_begin(struct rt_thread *t)
{
	struct making m = { 0, t->last_tick };

	RT_STORE(&t->busy, RT_BUSY_MAKING);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (rt_cycles)
		m.start = rt_tick();
	return m;
}

/* Under clock=cycles the making's ticks are skipped: the interval's start
 * moves past them.  An instrumented signal handler that ran meanwhile
 * charged its own hooks' intervals and moved the start itself: then
 * only the making after its last hook is skipped. */
static void making_end(struct rt_thread *t, struct making m)
{
	if (rt_cycles) {
		uint64_t now = rt_tick(), from = t->last_tick == m.last_tick ? m.start : t->last_tick;
		uint64_t took = now > from ? now - from : 0;

		RT_STORE(&t->last_tick, t->last_tick + took);
		RT_STORE(&t->own_ticks, t->own_ticks + took);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	RT_STORE(&t->busy, RT_BUSY);
}

/* Under clock=cycles, the runtime's work since the counter read `from`
 * (no hook of the thread's ran meanwhile) is skipped as a making's is,
 * and counted as its own time. */
void rt_own_time_since(struct rt_thread *t, uint64_t from)
{
	uint64_t now = rt_tick(), took = now > from ? now - from : 0;

	RT_STORE(&t->last_tick, t->last_tick + took);
	RT_STORE(&t->own_ticks, t->own_ticks + took);
}

/* Not found in the tables: make it. */
static struct rt_ctx *make_transition(struct rt_thread *t, struct rt_ctx *c, uintptr_t fn,
				      uintptr_t start)
{
	struct making m = making_begin(t);
	struct rt_ctx *n = find_or_create(t, c, fn, start);

	if (n && !t->over_budget && table_insert(t, &t->transitions_tab, (struct rt_slot){ fn, c, n }))
		n = NULL;
	if (n && !t->over_budget)
		t->transitions++;
	making_end(t, m);
	return n;
}

/* n, the transition from c just found or made, into the caches. */
static void remember(struct rt_thread *t, struct rt_ctx *c, struct rt_ctx *n)
{
	cache_put(c, n);
	tcache_put(t, c, n);
}

/* The deepest the shadow stack has been, with `coming` frames about to
 * be pushed. */
static void note_depth(struct rt_thread *t, int coming)
{
	uint64_t depth = rt_shadow_depth(t->top) + (uint64_t)coming;

	if (depth > t->max_depth)
		t->max_depth = depth;
}

/* The transition from c on fn if the thread made it before, counted as
 * a slow find (the caches missed it: STATS key 15), or NULL.  Under
 * busy. */
static struct rt_ctx *found_before(struct rt_thread *t, struct rt_ctx *c, uintptr_t fn)
{
	struct rt_ctx *n = transition_lookup(t->transitions_tab, c, fn);

	if (n != NULL)
		t->slow_finds++;
	return n;
}

/* A thread that enabled asynchronous cancellation is not cancelled in
 * here, with the cost-centre lock or a table half-built: Note
 * [Cancellation] in cancel.c. */
struct rt_ctx *rt_transition(struct rt_thread *t, struct rt_ctx *c, uintptr_t fn, uintptr_t start)
{
	struct rt_ctx *n;
	int cancel;

	cancel = rt_deferred_begin();
	if (!rt_busy_take(t)) { /* Note [Re-entry] */
		rt_deferred_end(cancel);
		t->lost_calls++;
		return NULL;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	n = found_before(t, c, fn);
	if (n == NULL)
		n = make_transition(t, c, fn, start);
	if (n)
		remember(t, c, n);
	else
		t->lost_calls++;
	note_depth(t, 0);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	RT_STORE(&t->busy, 0);
	rt_deferred_end(cancel);
	return n;
}

/*
 * The transition from c on fn if the thread has made it before, else
 * NULL, changing nothing: fentry.c's light path (Note [Fentry light
 * path]), which saved only the SSE registers, so this calls no function
 * of libc's (nor its cancellation switch: like the fast path it takes no
 * lock and frees nothing, and a thread cancelled in it dies with `busy`
 * set, which only loses the calls its cleanup makes).
 */
struct rt_ctx *rt_transition_known(struct rt_thread *t, struct rt_ctx *c, uintptr_t fn)
{
	struct rt_ctx *n;

	if (!rt_busy_take(t))
		return NULL; /* the slow path counts it lost */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	n = found_before(t, c, fn);
	if (n) {
		remember(t, c, n);
		note_depth(t, 1); /* its caller pushes the frame after */
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	RT_STORE(&t->busy, 0);
	return n;
}

/*
 * Frames left without a return (Note [Shadow stack]): an entry whose
 * stack pointer is at or below the one now entering belongs to a frame
 * that is gone.  Popping it returns to the context it saved.  A stack
 * pointer outside this thread's stack is a handler on an alternate signal
 * stack: nothing is gone then.  Region entries are closed by key instead.
 * The (fn, call site) of each entry dropped is remembered: an exit of it
 * that still comes is a real call's, not a split function's (Note [Split
 * functions] in hooks.c).
 */
/*
 * Note [A jump to the top entry's frame]: a jump or an exception from
 * calls past the end of a full shadow stack to the frame of its top
 * entry leaves no entry, but every call past the end (Note [Calls past
 * the end left]): the count is cleared.  It was left up, and the top
 * entry's own exit, at its sp, was taken for a lost call's, so that
 * the time its caller spent after it went to it until the next call
 * found its frame gone (tests/progs/shadowfull.c "top": a 30 ms burn
 * charged to land()).  Known by the target's stack pointer, equal to
 * the entry's (that of the function's calls: setjmp's, a catch's);
 * one below it may be the top entry's frame or a call's past the end,
 * and the count stays.
 */
/* Newest first, up to the first entry still live; under clock=cycles the
 * time so far is charged to them first.  They are not remembered as
 * dropped: no exit of theirs will come (Note [Longjmp] in longjmp.c, Note
 * [Caught exceptions] in catch.c). */
void rt_pop_left(struct rt_thread *t, rt_left_fn *left, uintptr_t sp)
{
	struct rt_shadow *s = rt_entry_top(t), *below;

	if (s == NULL || !left(t, s, sp)) {
		if (s != NULL && s->sp == sp && t->overflow)
			rt_overflow_set(t, 0); /* Note [A jump to the top entry's frame] */
		return;
	}
	if (rt_cycles)
		rt_charge_ticks(t, rt_tick());
	while ((below = rt_entry_below(s)) != NULL && left(t, below, sp))
		s = below;
	rt_pop_gone(t, s);
}

/* Whether entry e belongs to a frame the jump to target leaves: one below
 * the target; one off the thread's stack (a handler's frames on an
 * alternate stack, which may lie above the thread's stack as well as
 * below it, or inside it: Note [An alternate stack on the thread's
 * stack] in signals.c); or, at the target's own stack pointer, a
 * function inlined into the frame that called setjmp and entered after
 * it (gcc hooks inlined copies with their frame's stack pointer): all
 * but the lowest entry there, which is that frame's own function.
 * setjmp itself is never inside an inlined copy: neither gcc nor clang
 * inlines a function that calls it.  For longjmp.c, and for setcontext
 * to a context on the same stack (stacks.c). */
int rt_left_by_jump(const struct rt_thread *t, const struct rt_shadow *e, uintptr_t target)
{
	if (e->sp & RT_REGION_SP)
		return 0; /* a region: closed by key (Note [Shadow stack]) */
	if (e->sp < target || !rt_sp_on_stack(t, e->sp))
		return 1;
	if (e->sp != target)
		return 0;
	e = rt_entry_below(e);
	return e != NULL && e->sp == target;
}

/*
 * Note [Calls past the end left]: the calls past the end of a full
 * shadow stack (t->overflow) are deeper than its top entry (the stack
 * takes no new segment while they run: rt_enter), so when that entry's
 * frame is gone, theirs are too: a longjmp or an exception out of them,
 * and no exit of theirs will come.  The count used to stay, and the next
 * exits, each taken for one of theirs, ended nothing: a function's
 * caller's time went to it until the count ran out (all of main's burn
 * after a jump out of an 80,000-deep recursion, in
 * tests/progs/shadowfull.c).  So whatever pops entries as gone clears
 * the count, after the pop (before session 39 the stack could move when
 * it grew, and a handler's call between a clear and the pop, finding
 * the stack full and no count, could move it under the pop's pointer).
 * A handler's call in between finds the count and room on the stack:
 * it pushes, and its exit may be taken for a call past the end (its
 * entry then goes as gone later).  A jump
 * out of some of the calls past the end alone leaves the count too
 * high; an exit from above the top entry's frame clears it then
 * (exit_past_end in hooks.c), or the next pop of gone frames.  The
 * count is set even when it is 0, for rt_hot's sake: a handler that
 * jumped out from between rt_overflow_set's two stores left rt_hot
 * NULL with no call past the end (every call slow) or set with one.
 */
void rt_pop_gone(struct rt_thread *t, struct rt_shadow *s)
{
	rt_pop_to(t, s);
	rt_overflow_set(t, 0);
}

/*
 * Note [Self-inlined copies]: gcc inlines a recursive function into
 * itself (-O3, and -O2 for some), and hooks the copy with its frame's
 * stack pointer and call site, so the copy's entry is the outer call's
 * again: same sp, call site and function.  So is a new call of the
 * function from the same site, in a frame of the same size, after a
 * jump or an exception out of it that left its entry: one the runtime
 * does not follow (a jump inside libc, __builtin_longjmp;
 * clang's exception out of a function inlined into the frame that
 * catches it).  Before, such an
 * entry was always taken for gone: the copy replaced its outer call,
 * which then showed as called by its caller, and so did what the outer
 * call did after the copy (README's known limits).
 *
 * What tells them apart is where the hook was called from, its return
 * address (the word below sp on x86-64).  A copy's hook is called from
 * inside the function's body, at a place that runs only inside the
 * outer call, with that entry on top: the place a copy is inlined at
 * fixes what encloses it.  A new call's hook is called from where the
 * stale entry's own was: the function's start, or where it is inlined
 * into another function.  The hooks keep no return address (one more
 * word for the fast path to store), but a context keeps the site of the
 * last hook that entered it in the slow path other than as a copy
 * (rt_note_site; its low 32 bits, in rt_ctx.site: two sites of one
 * function's 4 GB apart are not met), and the first entry of every
 * context takes the slow path.  So an entry of the same sp, call site
 * and function is an outer copy, and the copy nests in it as a
 * recursive call (A1), as the calls it stands for did at -O0, unless
 * the hook's site is the one its context keeps.  That is a new call,
 * and the entry is gone, as before.
 * Missed: a context entered from two sites keeps only the last that
 * took the slow path (the fast path records none).  A function inlined
 * at two places of one caller, whose first copy a jump the runtime does
 * not see leaves (__builtin_longjmp, or clang's exception out of it
 * into that caller), nests the second in the stale entry, and what the
 * caller calls after it with a larger frame is charged to it until the
 * caller returns (helper-157).  Telling that apart from a recursive
 * function inlined into its caller and into itself there (selfrec.c's
 * walk, at -O3 inlined into main) takes more than the runtime sees: a
 * rule that nested only copies on a frame of their own, or in a
 * function seen recursing, lost the latter (on a tree 3 deep, every one
 * of leaf's calls under main).  A run of more than RT_SELF_COPIES goes
 * whole all the same (gcc nests copies 8 deep at most,
 * max-inline-recursive-depth).
 *
 * Only on x86-64 (the site's place is known), and only where longjmp and
 * caught exceptions are followed (rt_jumps_followed, defined 1 in
 * longjmp.c): without that, stale entries would be common, and the site
 * alone would be all that tells them, with the miss above.  libccprof.a
 * has followed them since session 49, and swapcontext too (Note [Jumps
 * in a static program] in longjmp.c, Note [Switches in a static
 * program] in ucontext.c).  Only the
 * -finstrument-functions hooks hook inlined copies: -mfentry hooks real
 * calls, and a manual region has no frame.  tests/progs/selfrec.c,
 * unseenjump.c; README.
 */
RT_HIDDEN __attribute__((weak)) int rt_jumps_followed;

#define RT_SELF_COPIES 16

/* Whether entry e, of fn from cs at sp, whose frame's calls run in
 * context `in`, is an outer copy of the self-inlined copy entering now
 * (Note [Self-inlined copies]). */
static int outer_copy(const struct rt_shadow *e, const struct rt_ctx *in, uintptr_t sp,
		      uintptr_t cs, uintptr_t fn)
{
	uintptr_t site = rt_hook_site(sp);
	int run = 0;

	if (site == 0 || RT_LOAD(&in->site) == (uint32_t)site)
		return 0; /* the hook that made e again: a new call */
	for (; e != NULL && e->sp == sp && e->cs == cs && e->fn == fn; e = rt_entry_below(e))
		if (++run > RT_SELF_COPIES)
			return 0;
	return 1;
}

/*
 * Note [Arguments not yet popped]: gcc leaves a call's stack arguments
 * pushed across the calls after it (-fdefer-pop), hooks of inlined
 * copies included.  Lua 5.4's finishbinexpval calls luaM_growaux_ with a
 * seventh argument on the stack and enters its inlined copy of freeexps
 * before it pops it: that entry's sp is 16 bytes below the frame's, and
 * the copy's own inlined calls, made after the pop, took it for a frame
 * gone: freeexps' calls of freeregs showed as finishbinexpval's (36,003
 * of 48,003 in a parse at -O3).  So an entry from the same call site
 * less than 32 bytes below is kept where the frame's own entry lies
 * under it: the entries below it from that call site, all of one frame
 * (the frame's, then its inlined copies'), reach one at this call's sp
 * or above.  A frame gone from that call site has none: its entries sit
 * on its caller's, from another site.  That is so for a frame gone two
 * calls deeper, from the same call made again (each call that calls a
 * hook lowers the stack pointer by 16 bytes at least, its return
 * address, or its saved link register, and the alignment), and for a
 * sibling called from the same instruction (an indirect call) left by a
 * jump the runtime does not see, whose frame is 16 bytes deeper than
 * the next one's (helper-174).  What it misses: arguments of more than
 * 16 bytes left pushed, which it cannot tell from a frame gone; and a
 * copy so entered and left by a jump the runtime does not see
 * (__builtin_longjmp), whose frame then calls another copy from the
 * same site before it returns: that copy nests in it.
 * tests/progs/deferpop.c.
 */

/* Whether e, from call site cs and up to RT_PUSHED_MAX below sp, is of
 * the frame of a call at sp: an inlined copy's entry with arguments
 * still pushed (Note [Arguments not yet popped]). */
static int pushed_copy(const struct rt_shadow *e, uintptr_t sp, uintptr_t cs)
{
	int run = 0;

	if (e->cs != cs || sp - e->sp > RT_PUSHED_MAX)
		return 0;
	for (e = rt_entry_below(e); e != NULL && e->cs == cs && !(e->sp & RT_REGION_SP) &&
				    run++ < RT_SELF_COPIES;
	     e = rt_entry_below(e))
		if (e->sp >= sp)
			return 1;
	return 0;
}

/* Whether entry e's frame is gone, for a call of fn from cs whose frame
 * is at sp; e's calls run in context `in`.  Strictly below: gone, but
 * for an inlined copy's entry with arguments still pushed (pushed_copy).
 * Equal sp: a function inlined into that frame (same call site, other
 * fn) keeps it; a different call site means it is gone, and so does the
 * same function again from the same site, unless it may be a
 * self-inlined copy (*copies) nested in it, which *copies then says (2).
 * A run of such entries too long to be copies goes whole: *copies is
 * cleared for the rest of it. */
static int frame_gone(const struct rt_shadow *e, const struct rt_ctx *in, uintptr_t sp,
		      uintptr_t cs, uintptr_t fn, int inlined, int *copies)
{
	if (e->sp & RT_REGION_SP)
		return 0;
	if (e->sp > sp)
		return 0;
	if (e->sp < sp)
		return !(inlined && pushed_copy(e, sp, cs));
	if (e->cs != cs)
		return 1;
	if (e->fn != fn)
		return 0;
	if (*copies && outer_copy(e, in, sp, cs, fn)) {
		*copies = 2;
		return 0;
	}
	*copies = 0;
	return 1;
}

int rt_discard_gone(struct rt_thread *t, uintptr_t sp, uintptr_t cs, uintptr_t fn, int inlined)
{
	struct rt_shadow *e, *gone = NULL;
	const struct rt_ctx *in = t->cur; /* the context of e's frame: the next one up's ctx */
	int copies = inlined && rt_jumps_followed;
	uintptr_t key;

	if (!rt_sp_on_stack(t, sp))
		return 0;
	for (e = rt_entry_top(t); e != NULL && frame_gone(e, in, sp, cs, fn, inlined, &copies);
	     e = rt_entry_below(e)) {
		gone = e;
		in = e->ctx;
		key = rt_dropped_key(e->fn, e->cs);
		t->dropped[RT_DROPPED_SLOT(key)] = key;
	}
	if (gone != NULL)
		rt_pop_gone(t, gone);
	return copies == 2;
}
