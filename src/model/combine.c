/*
 * combine.c - adding profiles together (see combine.h).
 *
 * Three tables map what each file numbers its own way onto the result:
 * modules by "path NUL build-id", cost centres by a key that names them
 * in any run ("F<module>:<offset>", "M<name>", "O" for the overflow
 * centre), and, per result thread, contexts by history after the cost
 * centres are renumbered.  Everything the result points to lives in the
 * arena; the growable arrays are malloc'd and copied there at the end.
 *
 * Note [One file at a time]: `ccprof merge` of a fork-heavy program's
 * profiles (one per process, 9,000 of them) took 683 MB, because every
 * file stayed loaded until the sum was made: the checks compared each
 * with the first, and the sum was made from all of them at once.  Now a
 * file is checked and added as soon as it is read, and freed before the
 * next (combine_add): the sum keeps of the first file only what the
 * checks compare (clock, interval, rate and name) and its header, which
 * the result takes, and of any file only what the result holds (its new
 * modules, cost centres and contexts; a name or source line the result
 * lacked).  Memory is that of the result and one file, not of all.  The
 * messages are those of the sum of all at once: the first file that does
 * not fit the first is named, even when an earlier one took the counts
 * past 2^64, so files are still checked after an overflow.
 */
#include "model/combine.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "model/htab.h"
#include "model/symtabs.h"
#include "model/xalloc.h"

/* A string-keyed table of dense indices. */
struct keyed {
	struct htab tab;
	char **key;
	uint32_t n, cap;
};

struct cthread {
	uint64_t tid;
	const char *name;
	struct htab tab; /* history -> context */
	struct ccp_context *ctx;
	uint32_t n, cap;
};

/* The result CCs of one key, in a list from the first, the one in the
 * key table; the fields but next are the first's. */
struct samekey {
	uint32_t next;   /* the next result CC of this key, or UINT32_MAX */
	uint32_t last;   /* the list's last */
	uint32_t cursor; /* the one the current file's next CC of this key gets */
	uint32_t file;   /* the file cursor is for, + 1 */
};

struct combine {
	struct ccp_arena *arena;
	struct keyed modkeys, cckeys;
	struct ccp_module *mods;
	struct ccp_cc *ccs;
	struct samekey *same; /* per result CC (Note [Cost centres of one key]) */
	struct cthread *threads;
	uint32_t nthreads, threads_cap;
	uint32_t *hist;   /* one renumbered history */
	uint32_t hist_cap;
	struct ccp_totals totals; /* of the result: it must stay readable */
	struct ccp_alloc_sums alloc; /* the same for its allocations */
	uint32_t too_big;         /* the first file that took it past 2^64, + 1 */
	uint32_t nfiles;          /* added so far */
	struct ccp_profile out;   /* the result's header and stats, so far */
	int unknown_subtracted;   /* a file did not say (subtracted_known) */
	struct ccp_profile first; /* what misfit compares: clock, interval_ns,
				   * ticks_per_sec of the first file */
	char *first_name;
	char *refused;            /* why the first file that does not fit, does not */
	char *overflow;           /* the message for too_big */
};

static void *arena_copy(struct ccp_arena *a, const void *p, size_t n)
{
	void *d = ccp_arena_alloc(a, n ? n : 1);
	if (!d)
		xalloc_die(n, __func__);
	if (n)
		memcpy(d, p, n);
	return d;
}

static const char *arena_str(struct ccp_arena *a, const char *s)
{
	return arena_copy(a, s ? s : "", strlen(s ? s : "") + 1);
}

/* The index of key, or UINT32_MAX; *slot is where it would go. */
static uint32_t keyed_find(const struct keyed *k, const char *key, size_t *slot)
{
	uint64_t h = htab_hash_str(key);
	size_t i = htab_first(&k->tab, h);
	for (; k->tab.slot[i].item; i = htab_next(&k->tab, i))
		if (k->tab.slot[i].hash == h && strcmp(k->key[k->tab.slot[i].item - 1], key) == 0)
			return k->tab.slot[i].item - 1;
	*slot = i;
	return UINT32_MAX;
}

/* Add a key known to be absent (slot from keyed_find, or SIZE_MAX for an
 * entry no lookup may find); returns its index. */
static uint32_t keyed_add(struct keyed *k, const char *key, size_t slot)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 64;
		k->key = xrealloc(k->key, k->cap, sizeof *k->key);
	}
	k->key[k->n] = xstrdup(key);
	if (slot != SIZE_MAX)
		htab_put(&k->tab, slot, htab_hash_str(key), k->n);
	return k->n++;
}

static void keyed_free(struct keyed *k)
{
	for (uint32_t i = 0; i < k->n; i++)
		free(k->key[i]);
	free(k->key);
	htab_free(&k->tab);
}

/* ---- checks -------------------------------------------------------------- */

static const char *clock_name(uint32_t c)
{
	return c == CCP_CLOCK_CPU ? "cpu" : c == CCP_CLOCK_CYCLES ? "cycles" : c == CCP_CLOCK_WALL ? "wall" : "unknown";
}

/* Why file b (name) cannot be added to files of the first, a (first its
 * name), in a malloc'd message; NULL if it can. */
static char *misfit(const struct ccp_profile *a, const char *first, const struct ccp_profile *b,
		    const char *name)
{
	if (b->clock != a->clock)
		return xformat("%s: clock is %s, but %s's is %s", name, clock_name(b->clock), first,
			       clock_name(a->clock));
	if (a->clock != CCP_CLOCK_CYCLES && b->interval_ns != a->interval_ns)
		return xformat("%s: sampling interval is %" PRIu64 " ns, but %s's is %" PRIu64 " ns",
			       name, b->interval_ns, first, a->interval_ns);
	double rel = a->ticks_per_sec
			     ? fabs((double)b->ticks_per_sec - (double)a->ticks_per_sec) /
				       (double)a->ticks_per_sec
			     : (b->ticks_per_sec ? INFINITY : 0);
	double limit = a->clock == CCP_CLOCK_CYCLES ? COMBINE_TPS_TOLERANCE : 0;
	if (rel > limit || (a->ticks_per_sec == 0) != (b->ticks_per_sec == 0))
		return xformat("%s: clock rate is %" PRIu64 " ticks/s, but %s's is %" PRIu64 "%s", name,
			       b->ticks_per_sec, first, a->ticks_per_sec,
			       a->clock == CCP_CLOCK_CYCLES ? " (more than 0.5% apart)" : "");
	return NULL;
}

/* ---- modules and cost centres -------------------------------------------- */

/* "PATH\x1fBUILD_ID": what identifies a module in any run; freed by the
 * caller. */
static char *module_key(const struct ccp_module *m)
{
	const char *path = m->path ? m->path : "", *id = m->build_id ? m->build_id : "";
	size_t lp = strlen(path), li = strlen(id);
	char *key = xmalloc(lp + li + 2);
	memcpy(key, path, lp);
	key[lp] = '\x1f';
	memcpy(key + lp + 1, id, li + 1);
	return key;
}

/*
 * Note [One binary by two paths]: across files a module with a build-id
 * is known by it alone.  One file reached by two names is one module:
 * git runs as bin/git and as libexec/git-core/git, hard links, and the
 * merge of a `git gc` run's 15 profiles showed 741 of its 1,514
 * functions twice, xread [bin/git] and xread [libexec/.../git]
 * (helper-120).  The result names it by the first path seen.  Within one
 * file, modules are still told apart by path too (combine_fold_reloads,
 * module_key): a file may claim another's build-id (docs/fuzzing.md).
 */
static char *merged_module_key(const struct ccp_module *m)
{
	if (m->build_id && m->build_id[0]) {
		size_t li = strlen(m->build_id);
		char *key = xmalloc(li + 2);
		key[0] = '\x1e'; /* no path starts so: never a path's key */
		memcpy(key + 1, m->build_id, li + 1);
		return key;
	}
	return module_key(m);
}

static uint32_t map_module(struct combine *c, const struct ccp_module *m)
{
	const char *path = m->path ? m->path : "", *id = m->build_id ? m->build_id : "";
	size_t slot;
	char *key = merged_module_key(m);
	uint32_t k = keyed_find(&c->modkeys, key, &slot);
	if (k == UINT32_MAX) {
		k = keyed_add(&c->modkeys, key, slot);
		c->mods = xrealloc(c->mods, c->modkeys.cap, sizeof *c->mods);
		c->mods[k] = (struct ccp_module){arena_str(c->arena, path), arena_str(c->arena, id),
						 m->base};
	}
	free(key);
	return k;
}

/* What identifies a function: its module's key and its offset, and in a
 * module without a build-id its name too (Note [Modules without a
 * build-id]).  Freed by the caller. */
static char *cc_key(const struct ccp_cc *cc, int32_t module, const struct ccp_module *m)
{
	const char *name = cc->name ? cc->name : "";
	size_t len = strlen(name) + 48;
	char *key = xmalloc(len);
	if (cc->kind == CCP_CC_MANUAL)
		snprintf(key, len, "M%s", name);
	else if (cc->kind == CCP_CC_OVERFLOW)
		snprintf(key, len, "O");
	else if (m && (!m->build_id || !m->build_id[0]))
		snprintf(key, len, "F%" PRId32 ":%" PRIx64 ":%s", module, cc->offset, name);
	else
		snprintf(key, len, "F%" PRId32 ":%" PRIx64, module, cc->offset);
	return key;
}

/*
 * Note [Modules without a build-id]
 *
 * A module is known by its path and build-id, so a library without a
 * build-id (linked with --build-id=none) that was replaced on disk has
 * two versions of one key.  The runtime keeps them apart (same_file in
 * src/runtime/modules.c), but keyed by offset alone their functions were
 * one: alpha of the first version and bravo of the second, both at
 * 0x1119, became one row of bravo with both counts.  In such a module
 * the name is part of a function's key.  A crash-written profile has no
 * names, so merged with a complete run of such a library, its functions
 * are rows of their own (named by offset); with a build-id, names are
 * not needed and not used.
 */

/* Fill in what the result's CC lacks from a file's (crash-written files
 * have no names; the first file that has one gives it). */
static void cc_complete(struct combine *c, struct ccp_cc *to, const struct ccp_cc *from)
{
	if ((!to->name || !to->name[0]) && from->name && from->name[0])
		to->name = arena_str(c->arena, from->name);
	if (!ccp_cc_has_source(to) && ccp_cc_has_source(from)) {
		to->file = arena_str(c->arena, from->file);
		to->line = from->line;
	}
}

/*
 * Note [Cost centres of one key]
 *
 * Two CCs of one file never share a result CC, whatever their keys: a
 * history marks each CC once, and merging two would break that.  A file
 * can have two of one key: a library loaded again at another base after
 * dlclose is a second module with the same path and build-id, so its
 * functions are second CCs with the same module and offset.  The i-th CC
 * of a key in a file maps to the i-th result CC of that key, whichever
 * file made it: merging a profile with itself keeps its CCs, and another
 * run that loaded the library twice lands on the same two.  Each key's
 * result CCs form a list (samekey) walked by a cursor that every file
 * restarts, so a file of many CCs of one key costs linear time.
 */

static uint32_t new_cc(struct combine *c, const char *key, size_t slot, const struct ccp_cc *cc,
		       int32_t mod)
{
	uint32_t k = keyed_add(&c->cckeys, key, slot);
	c->ccs = xrealloc(c->ccs, c->cckeys.cap, sizeof *c->ccs);
	c->same = xrealloc(c->same, c->cckeys.cap, sizeof *c->same);
	c->ccs[k] = (struct ccp_cc){.kind = cc->kind, .name = "", .module = mod,
				    .offset = cc->offset, .file = "", .line = 0};
	c->same[k] = (struct samekey){.next = UINT32_MAX, .last = k, .cursor = UINT32_MAX};
	return k;
}

/* The result's CC for each of file f's, into map (Note [Cost centres of
 * one key]). */
static void map_ccs(struct combine *c, const struct ccp_profile *p, uint32_t f, uint32_t *modmap,
		    uint32_t *map)
{
	for (uint32_t i = 0; i < p->nccs; i++) {
		const struct ccp_cc *cc = &p->ccs[i];
		int32_t mod = cc->module >= 0 && (uint32_t)cc->module < p->nmodules
				      ? (int32_t)modmap[cc->module]
				      : -1;
		char *key = cc_key(cc, mod, mod >= 0 ? &c->mods[mod] : NULL);
		size_t slot;
		uint32_t first = keyed_find(&c->cckeys, key, &slot), k;
		if (first == UINT32_MAX) {
			k = first = new_cc(c, key, slot, cc, mod);
			c->same[first].file = f + 1; /* taken: the cursor is past it */
		} else {
			struct samekey *s = &c->same[first];
			if (s->file != f + 1) {
				s->file = f + 1;
				s->cursor = first;
			}
			k = s->cursor;
			if (k != UINT32_MAX) {
				s->cursor = c->same[k].next;
			} else {
				k = new_cc(c, key, SIZE_MAX, cc, mod);
				s = &c->same[first]; /* c->same moved */
				c->same[s->last].next = k;
				s->last = k;
			}
		}
		free(key);
		cc_complete(c, &c->ccs[k], cc);
		map[i] = k;
	}
}

/* ---- contexts ------------------------------------------------------------- */

/* ticks at rate `from` expressed at rate `to`, rounded. */
static uint64_t rescale(uint64_t t, uint64_t to, uint64_t from)
{
	if (to == from || from == 0)
		return t;
	unsigned __int128 x = (unsigned __int128)t * to + from / 2;
	x /= from;
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

static struct cthread *result_thread(struct combine *c, uint32_t i, const struct ccp_thread *th)
{
	if (i == c->nthreads) {
		/* Room for the first file's contexts, no more: a profile can
		 * have 50,000 threads of one context each. */
		uint32_t cap = th->ncontexts ? th->ncontexts : 1;
		if (c->nthreads == c->threads_cap) {
			c->threads_cap = c->threads_cap ? 2 * c->threads_cap : 16;
			c->threads = xrealloc(c->threads, c->threads_cap, sizeof *c->threads);
		}
		c->threads[i] = (struct cthread){.tid = th->tid, .name = "", .cap = cap,
						 .ctx = xnmalloc(cap, sizeof(struct ccp_context))};
		htab_init(&c->threads[i].tab, th->ncontexts);
		c->nthreads++;
	}
	struct cthread *t = &c->threads[i];
	if (!t->name[0] && th->name && th->name[0])
		t->name = arena_str(c->arena, th->name);
	return t;
}

static struct ccp_context *result_context(struct combine *c, struct cthread *t,
					  const uint32_t *h, uint32_t n)
{
	uint64_t hash = htab_hash_words(h, n);
	size_t i = htab_first(&t->tab, hash);
	for (; t->tab.slot[i].item; i = htab_next(&t->tab, i)) {
		struct ccp_context *x = &t->ctx[t->tab.slot[i].item - 1];
		if (t->tab.slot[i].hash == hash && x->len == n &&
		    (n == 0 || memcmp(x->hist, h, n * sizeof *h) == 0))
			return x;
	}
	if (t->n == t->cap) {
		t->cap *= 2;
		t->ctx = xrealloc(t->ctx, t->cap, sizeof *t->ctx);
	}
	t->ctx[t->n] = (struct ccp_context){.len = n,
					    .hist = arena_copy(c->arena, h, n * sizeof *h)};
	htab_put(&t->tab, i, hash, t->n);
	return &t->ctx[t->n++];
}

static void add_thread(struct combine *c, struct cthread *t, const struct ccp_thread *th,
		       const uint32_t *map, uint64_t to, uint64_t from, uint32_t f)
{
	for (uint32_t k = 0; k < th->ncontexts && !c->too_big; k++) {
		const struct ccp_context *x = &th->contexts[k];
		uint64_t time = rescale(x->time, to, from);
		if (ccp_totals_add(&c->totals, x->entries, x->recursive, time) != 0 ||
		    ccp_alloc_sums_add(&c->alloc, x->alloc_bytes, x->alloc_blocks) != 0) {
			c->too_big = f + 1;
			return;
		}
		if (x->len > c->hist_cap) {
			c->hist_cap = 2 * x->len;
			c->hist = xrealloc(c->hist, c->hist_cap, sizeof *c->hist);
		}
		for (uint32_t i = 0; i < x->len; i++)
			c->hist[i] = CCP_ENTRY(map[CCP_ENTRY_CC(x->hist[i])],
					       CCP_ENTRY_MARKED(x->hist[i]));
		struct ccp_context *y = result_context(c, t, c->hist, x->len);
		y->entries += x->entries;
		y->recursive += x->recursive;
		y->time += time;
		y->alloc_bytes += x->alloc_bytes;
		y->alloc_blocks += x->alloc_blocks;
	}
}

/* Allocations outside any context add up as the contexts' do; the result
 * counted allocations if any file did (a file that did not adds none). */
static void add_outside(struct combine *c, struct ccp_profile *out, const struct ccp_profile *p,
			uint32_t f)
{
	if (c->too_big)
		return;
	if (ccp_alloc_sums_add(&c->alloc, p->alloc.outside_bytes, p->alloc.outside_blocks) != 0) {
		c->too_big = f + 1;
		return;
	}
	out->alloc.measured |= p->alloc.measured;
	out->alloc.outside_bytes += p->alloc.outside_bytes;
	out->alloc.outside_blocks += p->alloc.outside_blocks;
}

/*
 * Threads are merged by position, but the process's first thread (tid =
 * pid) goes first: a thread registers at its first instrumented call, so
 * a worker may come before main (an uninstrumented main, or one that
 * starts threads before it calls anything), and merged by position, one
 * run's main was added to another's worker.  The file's thread at
 * position j: main at 0, then the others in their order.  A file without
 * such a thread (merged from before, or forked by a raw clone) keeps its
 * order.
 */
static uint32_t thread_at(const struct ccp_profile *p, uint32_t main, uint32_t j)
{
	if (main == p->nthreads)
		return j;
	if (j == 0)
		return main;
	return j <= main ? j - 1 : j;
}

static uint32_t main_thread(const struct ccp_profile *p)
{
	uint32_t k = 0;
	while (k < p->nthreads && p->threads[k].tid != p->pid)
		k++;
	return k;
}

static void add_file(struct combine *c, const struct ccp_profile *p, uint32_t f, uint64_t tps)
{
	uint32_t *modmap = xnmalloc(p->nmodules ? p->nmodules : 1, sizeof *modmap);
	uint32_t *map = xnmalloc(p->nccs ? p->nccs : 1, sizeof *map);
	for (uint32_t i = 0; i < p->nmodules; i++)
		modmap[i] = map_module(c, &p->modules[i]);
	map_ccs(c, p, f, modmap, map);
	uint32_t main = main_thread(p);
	for (uint32_t j = 0; j < p->nthreads; j++) {
		const struct ccp_thread *th = &p->threads[thread_at(p, main, j)];
		add_thread(c, result_thread(c, j, th), th, map, tps, p->ticks_per_sec, f);
	}
	free(map);
	free(modmap);
}

/* ---- the result ------------------------------------------------------------ */

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* The runtime's counters only inform, so they stop at 2^64 - 1 rather
 * than refuse the merge. */
static void add_sat(uint64_t *a, uint64_t b)
{
	if (__builtin_add_overflow(*a, b, a))
		*a = UINT64_MAX;
}

/* Whether a clock=cycles file says what its runtime subtracted (files from
 * before key 11 do not, and the report then estimates it). */
static int subtracted_known(const struct ccp_profile *p)
{
	return p->clock != CCP_CLOCK_CYCLES || p->stats.subtracted != 0 ||
	       p->overhead_milliticks == 0 || p->stats.calls == 0;
}

static void add_stats(struct ccp_profile *out, const struct ccp_profile *p, uint64_t tps)
{
	struct ccp_stats *s = &out->stats;
	const struct ccp_stats *x = &p->stats;
	add_sat(&s->calls, x->calls);
	add_sat(&s->contexts, x->contexts);
	add_sat(&s->transitions, x->transitions);
	s->deepest_history = max_u64(s->deepest_history, x->deepest_history);
	s->max_depth = max_u64(s->max_depth, x->max_depth);
	s->memory_bytes = max_u64(s->memory_bytes, x->memory_bytes);
	add_sat(&s->samples, x->samples);
	add_sat(&s->lost_calls, x->lost_calls);
	add_sat(&s->lost_time, rescale(x->lost_time, tps, p->ticks_per_sec));
	add_sat(&s->dispatchers, x->dispatchers);
	add_sat(&s->subtracted, rescale(x->subtracted, tps, p->ticks_per_sec));
	add_sat(&s->own_time, rescale(x->own_time, tps, p->ticks_per_sec));
	add_sat(&s->looks, x->looks);
	add_sat(&s->slow_finds, x->slow_finds);
	/* untracked_allocs stays 0: it speaks of the heap part, which a
	 * merge leaves out (runs' live heaps do not add up). */
	add_sat(&s->merged, x->merged ? x->merged : 1); /* a run's own counts once */
	if (p->start_ns && (!out->start_ns || p->start_ns < out->start_ns))
		out->start_ns = p->start_ns;
	out->end_ns = max_u64(out->end_ns, p->end_ns);
}

/* Header fields of the first file, copied into the arena. */
static void copy_header(struct combine *c, struct ccp_profile *out, const struct ccp_profile *p)
{
	memset(out, 0, sizeof *out);
	out->program = arena_str(c->arena, p->program);
	out->argc = p->argc;
	out->argv = ccp_arena_calloc(c->arena, p->argc ? p->argc : 1, sizeof *out->argv);
	if (!out->argv)
		xalloc_die(p->argc, __func__);
	for (uint32_t i = 0; i < p->argc; i++)
		out->argv[i] = arena_str(c->arena, p->argv[i]);
	out->pid = p->pid;
	out->clock = p->clock;
	out->interval_ns = p->interval_ns;
	out->ticks_per_sec = p->ticks_per_sec;
	out->overhead_milliticks = p->overhead_milliticks;
	out->options = arena_str(c->arena, p->options);
	out->hostname = arena_str(c->arena, p->hostname);
}

static void finish(struct combine *c, struct ccp_profile *out)
{
	out->nmodules = c->modkeys.n;
	out->modules = arena_copy(c->arena, c->mods, c->modkeys.n * sizeof *c->mods);
	out->nccs = c->cckeys.n;
	out->ccs = arena_copy(c->arena, c->ccs, c->cckeys.n * sizeof *c->ccs);
	out->nthreads = c->nthreads;
	out->threads = ccp_arena_calloc(c->arena, c->nthreads ? c->nthreads : 1,
					sizeof *out->threads);
	if (!out->threads)
		xalloc_die(c->nthreads, __func__);
	for (uint32_t i = 0; i < c->nthreads; i++) {
		struct cthread *t = &c->threads[i];
		out->threads[i] = (struct ccp_thread){
			.tid = t->tid,
			.name = t->name,
			.ncontexts = t->n,
			.contexts = arena_copy(c->arena, t->ctx, t->n * sizeof *t->ctx),
		};
		free(t->ctx); /* one thread's at a time: the copies are the peak */
		t->ctx = NULL;
		htab_free(&t->tab);
	}
}

struct combine *combine_begin(struct ccp_arena *arena)
{
	struct combine *c = xcalloc(1, sizeof *c);
	c->arena = arena;
	return c;
}

/* The first file: the result's header, and what the others must match. */
static void start(struct combine *c, const struct ccp_profile *p, const char *name)
{
	htab_init(&c->modkeys.tab, 16);
	htab_init(&c->cckeys.tab, p->nccs);
	copy_header(c, &c->out, p);
	c->first = (struct ccp_profile){.clock = p->clock, .interval_ns = p->interval_ns,
					.ticks_per_sec = p->ticks_per_sec};
	c->first_name = xstrdup(name);
}

void combine_add(struct combine *c, const struct ccp_profile *p, const char *name)
{
	uint32_t f = c->nfiles++;
	if (f == 0)
		start(c, p, name);
	else if (c->refused || (c->refused = misfit(&c->first, c->first_name, p, name)) != NULL)
		return;
	if (c->too_big)
		return; /* checked all the same: Note [One file at a time] */
	add_file(c, p, f, c->out.ticks_per_sec);
	add_outside(c, &c->out, p, f);
	add_stats(&c->out, p, c->out.ticks_per_sec);
	/* One file that does not know makes the sum unknown (0), not low. */
	c->unknown_subtracted |= !subtracted_known(p);
	if (c->too_big)
		c->overflow = xformat("%s: calls, time or allocations would add up past 2^64", name);
}

static void combine_free(struct combine *c)
{
	for (uint32_t i = 0; i < c->nthreads; i++) { /* those finish did not take */
		free(c->threads[i].ctx);
		htab_free(&c->threads[i].tab);
	}
	keyed_free(&c->modkeys);
	keyed_free(&c->cckeys);
	free(c->mods);
	free(c->ccs);
	free(c->same);
	free(c->threads);
	free(c->hist);
	free(c->first_name);
	free(c->refused);
	free(c->overflow);
	free(c);
}

int combine_end(struct combine *c, struct ccp_profile *out, char *err, size_t errlen)
{
	int status = -1;
	if (c->refused)
		snprintf(err, errlen, "%s", c->refused);
	else if (c->nfiles > 0) {
		if (c->unknown_subtracted)
			c->out.stats.subtracted = 0;
		finish(c, &c->out);
		*out = c->out;
		if (c->overflow)
			snprintf(err, errlen, "%s", c->overflow);
		else
			status = 0;
	}
	combine_free(c);
	return status;
}

int combine_profiles(struct ccp_profile *out, struct ccp_arena *arena,
		     const struct ccp_profile *const *in, const char *const *names, uint32_t n,
		     char *err, size_t errlen)
{
	struct combine *c = combine_begin(arena);
	for (uint32_t f = 0; f < n; f++)
		combine_add(c, in[f], names[f]);
	return combine_end(c, out, err, errlen);
}

/* ---- one profile: cost centres of one function ----------------------------
 *
 * Note [One function, several cost centres]: the runtime gives a library
 * loaded again at another base, after a dlclose, a module of its own
 * (Note [Unloaded functions] in src/runtime/machine.c), so its functions
 * get cost centres of their own: one per load.  They are one function
 * (docs/format.md, "3.3 MODULES": module path, build-id and offset), and a
 * plugin opened and closed in a loop showed as one row per load, thousands
 * of rows of one name.  So before anything reads a profile's cost centres,
 * the cost centres of one key (cc_key, with modules of one path and
 * build-id taken as one) become the first of them in every history:
 * contexts that then have one history are added up where the model meets
 * them (Note [Duplicate histories] in distinct.c), exactly as contexts of
 * several threads are.  The others stay in the table, in no history.
 *
 * Two of one key both in one history (a function of a library entered
 * while a copy of it, loaded elsewhere, was still running) cannot become
 * one: a history marks each cost centre once.  Such a key is left as the
 * runtime wrote it.  Histories are rewritten in place, and the rewrite
 * maps a key's first cost centre to itself, so histories that share
 * memory are rewritten correctly.
 */
static int has_build_id(const struct ccp_profile *p, int32_t module)
{
	return module >= 0 && (uint32_t)module < p->nmodules && p->modules[module].build_id &&
	       p->modules[module].build_id[0];
}

/*
 * Note [Names for the key]: in a module without a build-id a function's
 * key has its name (Note [Modules without a build-id]), and a profile
 * written from a signal handler or by _exit has no names: its functions
 * were keyed apart from the same functions of a complete run, and merge
 * showed alpha and 0x1169@nb as two rows of 57,313 calls each.  So before
 * the keys are made, such a function is named from its module's file, as
 * the report would name it (symtabs.c: not from a file changed since the
 * run started, whose offsets may hold other functions).
 */
static void name_for_keys(struct ccp_profile *p)
{
	struct symtabs tabs;
	if (p->arena == NULL)
		return;
	symtabs_init(&tabs, p);
	for (uint32_t cc = 0; cc < p->nccs; cc++) {
		struct ccp_cc *c = &p->ccs[cc];
		if ((c->name && c->name[0]) || has_build_id(p, c->module))
			continue;
		const char *name = symtabs_name(&tabs, c);
		if (name)
			c->name = arena_str(p->arena, name);
	}
	symtabs_free(&tabs);
}

uint32_t combine_fold_reloads(struct ccp_profile *p)
{
	name_for_keys(p); /* Note [Names for the key] */
	if (p->nccs < 2 || p->nmodules < 2)
		return 0;
	struct keyed modkeys = {0}, cckeys = {0};
	uint32_t *modmap = xnmalloc(p->nmodules, sizeof *modmap), folded = 0;
	htab_init(&modkeys.tab, p->nmodules);
	for (uint32_t i = 0; i < p->nmodules; i++) {
		size_t slot;
		char *key = module_key(&p->modules[i]);
		uint32_t k = keyed_find(&modkeys, key, &slot);
		modmap[i] = k != UINT32_MAX ? k : keyed_add(&modkeys, key, slot);
		free(key);
	}
	uint32_t *canon = xnmalloc(p->nccs, sizeof *canon);
	if (modkeys.n < p->nmodules) { /* some file listed twice */
		uint32_t *first = NULL, cap = 0;
		htab_init(&cckeys.tab, p->nccs);
		for (uint32_t i = 0; i < p->nccs; i++) {
			const struct ccp_cc *cc = &p->ccs[i];
			canon[i] = i;
			if (cc->kind != CCP_CC_FUNCTION || cc->module < 0 ||
			    (uint32_t)cc->module >= p->nmodules)
				continue;
			char *key = cc_key(cc, (int32_t)modmap[cc->module], &p->modules[cc->module]);
			size_t slot;
			uint32_t k = keyed_find(&cckeys, key, &slot);
			if (k == UINT32_MAX) {
				k = keyed_add(&cckeys, key, slot);
				if (k >= cap) {
					cap = cckeys.cap;
					first = xrealloc(first, cap, sizeof *first);
				}
				first[k] = i;
			}
			canon[i] = first[k];
			folded += canon[i] != i;
			free(key);
		}
		free(first);
	}
	if (folded) {
		/* Keys with two cost centres in one history stay apart. */
		uint64_t *stamp = xcalloc(p->nccs, sizeof *stamp), k = 0;
		uint32_t *who = xnmalloc(p->nccs, sizeof *who);
		char *apart = xcalloc(p->nccs, 1);
		for (uint32_t t = 0; t < p->nthreads; t++)
			for (uint32_t c = 0; c < p->threads[t].ncontexts; c++) {
				const struct ccp_context *x = &p->threads[t].contexts[c];
				k++;
				for (uint32_t i = 0; i < x->len; i++) {
					uint32_t cc = CCP_ENTRY_CC(x->hist[i]);
					if (cc >= p->nccs) /* the model says so */
						continue;
					uint32_t g = canon[cc];
					if (stamp[g] == k && who[g] != cc)
						apart[g] = 1;
					stamp[g] = k;
					who[g] = cc;
				}
			}
		folded = 0;
		for (uint32_t i = 0; i < p->nccs; i++) {
			if (apart[canon[i]])
				canon[i] = i;
			if (canon[i] == i)
				continue;
			folded++;
			struct ccp_cc *to = &p->ccs[canon[i]];
			const struct ccp_cc *from = &p->ccs[i];
			if ((!to->name || !to->name[0]) && from->name && from->name[0])
				to->name = from->name;
			if (!ccp_cc_has_source(to) && ccp_cc_has_source(from)) {
				to->file = from->file;
				to->line = from->line;
			}
		}
		for (uint32_t t = 0; folded && t < p->nthreads; t++)
			for (uint32_t c = 0; c < p->threads[t].ncontexts; c++) {
				struct ccp_context *x = &p->threads[t].contexts[c];
				for (uint32_t i = 0; i < x->len; i++) {
					uint32_t cc = CCP_ENTRY_CC(x->hist[i]);
					if (cc < p->nccs && canon[cc] != cc)
						x->hist[i] = CCP_ENTRY(canon[cc], CCP_ENTRY_MARKED(x->hist[i]));
				}
			}
		free(stamp);
		free(who);
		free(apart);
	}
	free(canon);
	free(modmap);
	keyed_free(&modkeys);
	keyed_free(&cckeys);
	return folded;
}
