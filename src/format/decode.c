/*
 * decode.c - bytes -> struct ccp_profile: the reader half of
 * docs/format.md.
 *
 * The input is hostile until proven otherwise (files are fuzzed, copied
 * between machines, truncated by full disks).  The rules that keep the
 * reader safe, each applied at one place:
 *
 *  - every read goes through get_varint, which never passes the end of the
 *    current section and rejects overlong or overflowing varints;
 *  - every count is checked against the bytes left (each element takes at
 *    least one byte, usually more) before anything is allocated, so memory
 *    is proportional to the input;
 *  - histories can share a prefix with the previous context, so a few
 *    bytes can stand for a long history: the total number of history
 *    entries is capped at HIST_PER_BYTE per input byte plus HIST_SLACK,
 *    which bounds both memory and time (a legitimate file needs histories
 *    averaging hundreds of entries, all shared, to come near it);
 *  - every index (string, module, cost centre) is checked before use.
 *
 * Everything is allocated in one arena, so a failure anywhere just frees
 * the arena, and ccp_profile_free is one call.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "format.h"
#include "wire.h"

#define HIST_PER_BYTE 64
#define HIST_SLACK ((uint64_t)1 << 22)

/*
 * Note [Incremental history check]: ccp_history_check (wire.c) checks a
 * history from scratch.  But a history repeats the first `shared` entries
 * of the previous context's, which passed already, so the reader checks
 * only the rest: for each cost centre it keeps where it is marked in the
 * last history checked, forgets the entries of that history after the
 * shared prefix, and checks the new ones, in the same order as
 * ccp_history_check (so with the same verdict and the same first error).
 * A million contexts a few levels deep cost a few entries each, not all.
 */
struct hist_marks {
	uint32_t *at;         /* per CC: 1 + where it is marked in last, or 0 */
	const uint32_t *last; /* the last non-empty history checked */
	uint32_t last_len;
	uint32_t nccs;
};

static int hist_marks_init(struct hist_marks *m, uint32_t nccs)
{
	/* calloc(0) may return NULL; one spare slot keeps "NULL = no memory". */
	*m = (struct hist_marks){.at = calloc((size_t)nccs + 1, sizeof *m->at), .nccs = nccs};
	return m->at ? 0 : -1;
}

/* Check h[0..len) (len > 0), whose first `same` entries are those of the
 * last history checked (same is 0 when there is none). */
static enum ccp_hist_err hist_check(struct hist_marks *m, const uint32_t *h, uint32_t len,
				    uint32_t same)
{
	for (uint32_t i = same; i < m->last_len; i++)
		if (CCP_ENTRY_MARKED(m->last[i]))
			m->at[CCP_ENTRY_CC(m->last[i])] = 0;
	m->last = h;
	m->last_len = len;
	for (uint32_t i = same; i < len; i++) {
		uint32_t cc = CCP_ENTRY_CC(h[i]);
		if (cc >= m->nccs)
			return CCP_HIST_BAD_CC;
		if (!CCP_ENTRY_MARKED(h[i]))
			continue;
		if (m->at[cc])
			return CCP_HIST_TWICE;
		m->at[cc] = i + 1;
	}
	return CCP_ENTRY_MARKED(h[len - 1]) ? CCP_HIST_OK : CCP_HIST_UNMARKED;
}

struct rd {
	const unsigned char *p, *end; /* unread bytes of the current section */
	char where[48];               /* "section CCS", for messages */
	char *err;
	size_t errlen;
	int failed;
	unsigned flags;
	struct ccp_arena *arena;
	struct ccp_profile *prof;
	const char **str; /* the string table */
	uint32_t nstr;
	struct hist_marks marks; /* for the double-mark check */
	uint64_t budget;        /* history entries still allowed */
	struct ccp_totals totals; /* calls and time so far, over all threads */
	uint32_t thcap;         /* room in prof->threads */
	int crc_checked;
};

/* Record the first error only: later ones are consequences of it. */
__attribute__((format(printf, 2, 3))) static int fail(struct rd *r, const char *fmt, ...)
{
	if (!r->failed && r->err && r->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->err, r->errlen, fmt, ap);
		va_end(ap);
	}
	r->failed = 1;
	return -1;
}

static int no_memory(struct rd *r)
{
	return fail(r, "out of memory (%s)", r->where);
}

static size_t left(const struct rd *r)
{
	return (size_t)(r->end - r->p);
}

/* ---- primitive reads ------------------------------------------------------ */

/* Unsigned LEB128: at most 10 bytes, minimal (no trailing 0x80 0x00 ...
 * padding, which makes every value's encoding unique), fits 64 bits.  The
 * bytes are scanned up to the last one before any check, so that a valid
 * varint takes one test per byte. */
static int get_varint_long(struct rd *r, uint64_t *out)
{
	const unsigned char *p = r->p;
	size_t n = left(r) < CCP_VARINT_MAX ? left(r) : CCP_VARINT_MAX;
	uint64_t v = 0;
	unsigned i = 0, b = 0x80;
	*out = 0; /* defined even on failure: keeps -Wmaybe-uninitialized quiet at -O3 */
	for (; i < n && (b & 0x80); i++) {
		b = p[i];
		v |= (uint64_t)(b & 0x7f) << (7 * i);
	}
	if (b & 0x80) { /* no last byte among the n */
		if (n < CCP_VARINT_MAX)
			return fail(r, "truncated (%s)", r->where);
		return fail(r, "bad varint in %s (longer than 10 bytes)", r->where);
	}
	if (i == CCP_VARINT_MAX && b > 1)
		return fail(r, "bad varint in %s (overflows 64 bits)", r->where);
	if (b == 0 && i > 1)
		return fail(r, "bad varint in %s (overlong encoding)", r->where);
	r->p += i;
	*out = v;
	return 0;
}

/* Most varints of a profile (history entries of small programs, counts,
 * string indexes) are one byte: those take no loop. */
static inline int get_varint(struct rd *r, uint64_t *out)
{
	if (r->p != r->end && *r->p < 0x80) {
		*out = *r->p++;
		return 0;
	}
	return get_varint_long(r, out);
}

static int get_u32(struct rd *r, uint32_t *out)
{
	uint64_t v;
	*out = 0;
	if (get_varint(r, &v) != 0)
		return -1;
	if (v > UINT32_MAX)
		return fail(r, "value %" PRIu64 " out of range in %s", v, r->where);
	*out = (uint32_t)v;
	return 0;
}

/* A count of elements that each take at least min bytes: refuse any count
 * the rest of the section cannot hold, before it sizes an allocation. */
static int get_count(struct rd *r, size_t min, uint64_t limit, uint32_t *out)
{
	uint64_t v;
	*out = 0;
	if (get_varint(r, &v) != 0)
		return -1;
	if (v > limit || v > left(r) / min)
		return fail(r, "bad count %" PRIu64 " in %s (%zu bytes left)", v, r->where, left(r));
	*out = (uint32_t)v;
	return 0;
}

static int get_str(struct rd *r, const char **out)
{
	uint64_t v;
	*out = "";
	if (get_varint(r, &v) != 0)
		return -1;
	if (v >= r->nstr)
		return fail(r, "bad string index %" PRIu64 " in %s", v, r->where);
	*out = r->str[v];
	return 0;
}

/* An arena array of n elements; n was bounded by get_count. */
static void *alloc_array(struct rd *r, size_t n, size_t size)
{
	void *a = ccp_arena_calloc(r->arena, n, size);
	if (!a)
		no_memory(r);
	return a;
}

/* ---- sections ---------------------------------------------------------------- */

/* STRINGS: all string bytes go into one pool, each followed by a NUL. */
static int get_strings(struct rd *r)
{
	uint32_t n;
	if (get_count(r, 1, UINT32_MAX, &n) != 0)
		return -1;
	if (n == 0)
		return fail(r, "bad section STRINGS (no string 0)");
	r->str = alloc_array(r, n, sizeof *r->str);
	char *pool = r->str ? ccp_arena_alloc(r->arena, left(r) + n) : NULL;
	if (!pool)
		return no_memory(r);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t len;
		if (get_varint(r, &len) != 0)
			return -1;
		if (len > left(r))
			return fail(r, "truncated (%s)", r->where);
		if (memchr(r->p, '\0', (size_t)len))
			return fail(r, "string %" PRIu32 " contains a NUL byte", i);
		memcpy(pool, r->p, (size_t)len);
		pool[len] = '\0';
		r->str[i] = pool;
		pool += len + 1;
		r->p += len;
	}
	if (r->str[0][0] != '\0')
		return fail(r, "bad section STRINGS (string 0 is not empty)");
	r->nstr = n;
	return 0;
}

static int get_meta(struct rd *r)
{
	struct ccp_profile *p = r->prof;
	if (get_str(r, &p->program) != 0 || get_count(r, 1, UINT32_MAX, &p->argc) != 0)
		return -1;
	p->argv = alloc_array(r, (size_t)p->argc + 1, sizeof *p->argv); /* NULL-terminated */
	if (!p->argv)
		return -1;
	for (uint32_t i = 0; i < p->argc; i++)
		if (get_str(r, &p->argv[i]) != 0)
			return -1;
	if (get_varint(r, &p->pid) != 0 || get_varint(r, &p->start_ns) != 0 ||
	    get_varint(r, &p->end_ns) != 0 || get_u32(r, &p->clock) != 0)
		return -1;
	if (p->clock > CCP_CLOCK_WALL)
		return fail(r, "bad clock %" PRIu32 " in section META", p->clock);
	if (get_varint(r, &p->interval_ns) != 0 || get_varint(r, &p->ticks_per_sec) != 0 ||
	    get_varint(r, &p->overhead_milliticks) != 0 || get_str(r, &p->options) != 0 ||
	    get_str(r, &p->hostname) != 0)
		return -1;
	return 0;
}

static int get_modules(struct rd *r)
{
	struct ccp_profile *p = r->prof;
	if (get_count(r, 3, INT32_MAX, &p->nmodules) != 0) /* ccp_cc.module is int32_t */
		return -1;
	p->modules = alloc_array(r, p->nmodules, sizeof *p->modules);
	if (!p->modules)
		return -1;
	for (uint32_t i = 0; i < p->nmodules; i++) {
		struct ccp_module *m = &p->modules[i];
		if (get_str(r, &m->path) != 0 || get_str(r, &m->build_id) != 0 ||
		    get_varint(r, &m->base) != 0)
			return -1;
	}
	return 0;
}

static int get_cc(struct rd *r, uint32_t i, struct ccp_cc *c)
{
	uint64_t module;
	if (get_u32(r, &c->kind) != 0)
		return -1;
	if (c->kind > CCP_CC_OVERFLOW)
		return fail(r, "bad kind %" PRIu32 " of cost centre %" PRIu32, c->kind, i);
	if (get_str(r, &c->name) != 0 || get_varint(r, &module) != 0)
		return -1;
	if (module > r->prof->nmodules)
		return fail(r, "bad module index in cost centre %" PRIu32, i);
	c->module = (int32_t)module - 1; /* nmodules <= bytes, so no overflow */
	if (get_varint(r, &c->offset) != 0 || get_str(r, &c->file) != 0 || get_u32(r, &c->line) != 0)
		return -1;
	return 0;
}

static int get_ccs(struct rd *r)
{
	struct ccp_profile *p = r->prof;
	if (get_count(r, 6, CCP_MAX_CCS, &p->nccs) != 0)
		return -1;
	p->ccs = alloc_array(r, p->nccs, sizeof *p->ccs);
	if (!p->ccs)
		return -1;
	for (uint32_t i = 0; i < p->nccs; i++)
		if (get_cc(r, i, &p->ccs[i]) != 0)
			return -1;
	if (hist_marks_init(&r->marks, p->nccs) != 0)
		return no_memory(r);
	return 0;
}

static int bad_history(struct rd *r, enum ccp_hist_err e, uint32_t ti, uint32_t ci)
{
	const char *what = e == CCP_HIST_BAD_CC     ? "bad cost-centre index"
			   : e == CCP_HIST_UNMARKED ? "running cost centre not marked"
						    : "cost centre marked twice";
	return fail(r, "%s in thread %" PRIu32 " context %" PRIu32, what, ti, ci);
}

/* shared prefix length, suffix length, suffix entries: see put_thread. */
static int get_history(struct rd *r, struct ccp_context *c, const struct ccp_context *prev,
		       uint32_t ti, uint32_t ci)
{
	uint64_t shared, suffix;
	if (get_varint(r, &shared) != 0 || get_varint(r, &suffix) != 0)
		return -1;
	if (shared > (prev ? prev->len : 0))
		return fail(r, "bad shared prefix in thread %" PRIu32 " context %" PRIu32, ti, ci);
	if (suffix > left(r))
		return fail(r, "bad history length in thread %" PRIu32 " context %" PRIu32, ti, ci);
	uint64_t len = shared + suffix;
	if (len > UINT32_MAX || len > r->budget)
		return fail(r, "histories too long for the file size (thread %" PRIu32
			       " context %" PRIu32 ")", ti, ci);
	r->budget -= len;
	c->len = (uint32_t)len;
	c->hist = NULL;
	if (len == 0)
		return 0; /* the root context */
	/* Dense and not zeroed: a million histories, every entry written below. */
	if (!(c->hist = ccp_arena_dense(r->arena, (size_t)len, sizeof *c->hist)))
		return no_memory(r);
	if (shared)
		memcpy(c->hist, prev->hist, (size_t)shared * sizeof *c->hist);
	for (uint64_t j = shared; j < len; j++) {
		uint64_t e;
		if (get_varint(r, &e) != 0)
			return -1;
		if (e > UINT32_MAX)
			return bad_history(r, CCP_HIST_BAD_CC, ti, ci);
		c->hist[j] = (uint32_t)e;
	}
	/* Note [Incremental history check]: the shared prefix is prev's, and
	 * prev is the last non-empty history checked (shared is 0 after a
	 * root context or at a thread's first). */
	enum ccp_hist_err e = hist_check(&r->marks, c->hist, c->len, (uint32_t)shared);
	return e == CCP_HIST_OK ? 0 : bad_history(r, e, ti, ci);
}

/* A slot at the end of prof->threads, doubling the array in the arena
 * (the abandoned copies cost at most as much as the final one). */
static struct ccp_thread *new_thread(struct rd *r)
{
	struct ccp_profile *p = r->prof;
	if (p->nthreads == r->thcap) {
		if (r->thcap >= UINT32_MAX / 2)
			return fail(r, "too many threads"), NULL;
		uint32_t cap = r->thcap ? r->thcap * 2 : 8;
		struct ccp_thread *t = alloc_array(r, cap, sizeof *t);
		if (!t)
			return NULL;
		if (p->nthreads)
			memcpy(t, p->threads, p->nthreads * sizeof *t);
		p->threads = t;
		r->thcap = cap;
	}
	return &p->threads[p->nthreads++];
}

static int get_thread(struct rd *r)
{
	uint32_t ti = r->prof->nthreads;
	struct ccp_thread *t = new_thread(r);
	if (!t || get_varint(r, &t->tid) != 0 || get_str(r, &t->name) != 0 ||
	    get_count(r, 5, UINT32_MAX, &t->ncontexts) != 0)
		return -1;
	/* Not zeroed: get_history and the loop below set every field. */
	t->contexts = ccp_arena_array(r->arena, t->ncontexts, sizeof *t->contexts);
	if (!t->contexts)
		return no_memory(r);
	for (uint32_t ci = 0; ci < t->ncontexts; ci++) {
		struct ccp_context *c = &t->contexts[ci];
		if (get_history(r, c, ci ? c - 1 : NULL, ti, ci) != 0 ||
		    get_varint(r, &c->entries) != 0 || get_varint(r, &c->recursive) != 0 ||
		    get_varint(r, &c->time) != 0)
			return -1;
		c->alloc_bytes = c->alloc_blocks = 0; /* ALLOC, if present, sets them */
		c->live_bytes = c->live_blocks = 0;   /* and HEAP these */
		if (ccp_totals_add(&r->totals, c->entries, c->recursive, c->time) != 0)
			return fail(r, "calls or time add up past 2^64 (thread %" PRIu32
				       " context %" PRIu32 ")", ti, ci);
	}
	return 0;
}

/* STATS: key/value pairs; keys this version does not know are skipped so
 * that a newer runtime can add counters without a version change. */
static int get_stats(struct rd *r)
{
	uint32_t n, seen = 0;
	if (get_count(r, 2, UINT32_MAX, &n) != 0)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t key, value;
		if (get_varint(r, &key) != 0 || get_varint(r, &value) != 0)
			return -1;
		uint64_t *slot = ccp_stats_slot(&r->prof->stats, key);
		if (!slot)
			continue;
		if (seen & (1u << key))
			return fail(r, "duplicate key %" PRIu64 " in section STATS", key);
		seen |= 1u << key;
		*slot = value;
	}
	return 0;
}

/* ALLOC: the allocations outside contexts, then (thread, context, bytes,
 * blocks) for each context that allocated, in strictly increasing order
 * of (thread, context), so that the encoding is unique. */
static int get_alloc(struct rd *r)
{
	struct ccp_profile *p = r->prof;
	struct ccp_alloc_sums sums = {0, 0};
	uint32_t n;
	uint64_t prev_thread = 0, prev_ctx = 0;
	if (get_varint(r, &p->alloc.outside_bytes) != 0 ||
	    get_varint(r, &p->alloc.outside_blocks) != 0 || get_count(r, 4, UINT32_MAX, &n) != 0)
		return -1;
	if (ccp_alloc_sums_add(&sums, p->alloc.outside_bytes, p->alloc.outside_blocks) != 0)
		return fail(r, "allocations add up past 2^64");
	for (uint32_t i = 0; i < n; i++) {
		uint64_t ti, ci, bytes, blocks;
		if (get_varint(r, &ti) != 0 || get_varint(r, &ci) != 0 ||
		    get_varint(r, &bytes) != 0 || get_varint(r, &blocks) != 0)
			return -1;
		if (ti >= p->nthreads || ci >= p->threads[ti].ncontexts)
			return fail(r, "no context %" PRIu64 " in thread %" PRIu64 " (record %" PRIu32
				       ")", ci, ti, i);
		if (i > 0 && (ti < prev_thread || (ti == prev_thread && ci <= prev_ctx)))
			return fail(r, "records out of order (record %" PRIu32 ")", i);
		if (!bytes && !blocks)
			return fail(r, "empty record %" PRIu32, i);
		if (ccp_alloc_sums_add(&sums, bytes, blocks) != 0)
			return fail(r, "allocations add up past 2^64 (record %" PRIu32 ")", i);
		p->threads[ti].contexts[ci].alloc_bytes = bytes;
		p->threads[ti].contexts[ci].alloc_blocks = blocks;
		prev_thread = ti;
		prev_ctx = ci;
	}
	p->alloc.measured = 1;
	return 0;
}

/* A (thread, context) of a record: it exists, and comes after the
 * previous record's (strictly increasing, so the encoding is unique). */
static struct ccp_context *record_context(struct rd *r, uint32_t i, const uint64_t prev[2],
					  uint64_t ti, uint64_t ci)
{
	struct ccp_profile *p = r->prof;
	if (ti >= p->nthreads || ci >= p->threads[ti].ncontexts) {
		fail(r, "no context %" PRIu64 " in thread %" PRIu64 " (record %" PRIu32 ")", ci, ti,
		     i);
		return NULL;
	}
	if (i > 0 && (ti < prev[0] || (ti == prev[0] && ci <= prev[1]))) {
		fail(r, "records out of order (record %" PRIu32 ")", i);
		return NULL;
	}
	return &p->threads[ti].contexts[ci];
}

/* HEAP's first part: the live heap when the profile was written. */
static int get_heap_live(struct rd *r, uint64_t *total)
{
	struct ccp_profile *p = r->prof;
	struct ccp_heap *h = &p->heap;
	uint64_t prev[2] = {0, 0};
	uint32_t n;
	if (get_varint(r, &h->interval_ns) != 0 || get_varint(r, &h->peak_bytes) != 0 ||
	    get_varint(r, &h->outside_live_bytes) != 0 ||
	    get_varint(r, &h->outside_live_blocks) != 0 || get_count(r, 4, UINT32_MAX, &n) != 0)
		return -1;
	if (h->interval_ns == 0)
		return fail(r, "heap sample interval 0");
	if (h->outside_live_bytes > p->alloc.outside_bytes ||
	    h->outside_live_blocks > p->alloc.outside_blocks)
		return fail(r, "more live outside contexts than allocated there");
	*total = h->outside_live_bytes;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t ti, ci, bytes, blocks;
		struct ccp_context *c;
		if (get_varint(r, &ti) != 0 || get_varint(r, &ci) != 0 ||
		    get_varint(r, &bytes) != 0 || get_varint(r, &blocks) != 0)
			return -1;
		if ((c = record_context(r, i, prev, ti, ci)) == NULL)
			return -1;
		if (!bytes && !blocks)
			return fail(r, "empty record %" PRIu32, i);
		if (bytes > c->alloc_bytes || blocks > c->alloc_blocks)
			return fail(r, "more live than allocated (record %" PRIu32 ")", i);
		c->live_bytes = bytes;
		c->live_blocks = blocks;
		*total += bytes; /* below 2^64: ALLOC's sums are */
		prev[0] = ti;
		prev[1] = ci;
	}
	if (*total > h->peak_bytes)
		return fail(r, "live heap above its peak");
	return 0;
}

/* One heap sample: its time as a step from the one before. */
static int get_heap_sample(struct rd *r, struct ccp_heap_sample *s, uint64_t prev_time)
{
	struct ccp_profile *p = r->prof;
	uint64_t step, prev[2] = {0, 0}, total;
	if (get_varint(r, &step) != 0 || get_varint(r, &s->outside_bytes) != 0 ||
	    get_count(r, 3, UINT32_MAX, &s->nrecords) != 0)
		return -1;
	if (step > UINT64_MAX - prev_time)
		return fail(r, "heap sample time past 2^64 ns");
	s->time_ns = prev_time + step;
	if (s->outside_bytes > p->alloc.outside_bytes)
		return fail(r, "more live outside contexts than allocated there");
	if (!(s->records = alloc_array(r, s->nrecords ? s->nrecords : 1, sizeof *s->records)))
		return -1;
	total = s->outside_bytes;
	for (uint32_t i = 0; i < s->nrecords; i++) {
		uint64_t ti, ci, bytes;
		struct ccp_context *c;
		if (get_varint(r, &ti) != 0 || get_varint(r, &ci) != 0 || get_varint(r, &bytes) != 0)
			return -1;
		if ((c = record_context(r, i, prev, ti, ci)) == NULL)
			return -1;
		if (bytes == 0)
			return fail(r, "empty record %" PRIu32, i);
		if (bytes > c->alloc_bytes)
			return fail(r, "more live than allocated (record %" PRIu32 ")", i);
		s->records[i] = (struct ccp_heap_record){(uint32_t)ti, (uint32_t)ci, bytes};
		total += bytes;
		prev[0] = ti;
		prev[1] = ci;
	}
	if (total > p->heap.peak_bytes)
		return fail(r, "heap sample above the peak");
	return 0;
}

/* HEAP (format.md 3.8): the live heap at the write, then the samples. */
static int get_heap(struct rd *r)
{
	struct ccp_heap *h = &r->prof->heap;
	uint64_t total;
	uint32_t n;
	if (get_heap_live(r, &total) != 0 || get_count(r, 3, UINT32_MAX, &n) != 0)
		return -1;
	if (!(h->samples = alloc_array(r, n ? n : 1, sizeof *h->samples)))
		return -1;
	for (uint32_t k = 0; k < n; k++) {
		snprintf(r->where, sizeof r->where, "section HEAP (sample %" PRIu32 ")", k);
		if (get_heap_sample(r, &h->samples[k], k ? h->samples[k - 1].time_ns : 0) != 0)
			return -1;
		h->nsamples = k + 1;
	}
	h->measured = 1;
	return 0;
}

/* ---- file structure ----------------------------------------------------------- */

static uint32_t le32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* The fixed 16-byte header, of n bytes or more; returns the header's size
 * (where sections start, maybe past n), or -1. */
static long check_fixed_header(struct rd *r, const unsigned char *b, size_t n)
{
	if (n == 0)
		return fail(r, "empty file");
	if (memcmp(b, CCP_MAGIC, n < CCP_MAGIC_LEN ? n : CCP_MAGIC_LEN) != 0) {
		if (n > 4 && memcmp(b, CCP_MAGIC, 4) == 0) /* "\x89" "CCP" then damage */
			return fail(r, "not a ccprof profile (line endings altered: "
				       "copied in text mode?)");
		return fail(r, "not a ccprof profile (bad magic)");
	}
	if (n < CCP_HEADER_SIZE)
		return fail(r, "truncated (header)");
	unsigned version = b[8] | (unsigned)b[9] << 8;
	unsigned hsize = b[10] | (unsigned)b[11] << 8;
	if (version != CCP_FORMAT_VERSION)
		return fail(r, "unsupported version %u (this ccprof reads version %d)", version,
			    CCP_FORMAT_VERSION);
	if (memcmp(b + 12, CCP_PROBE, 4) != 0)
		return fail(r, "corrupt header (bad endianness probe)");
	if (hsize < CCP_HEADER_SIZE)
		return fail(r, "corrupt header (header size %u)", hsize);
	return (long)hsize;
}

/* The header of a whole file of n bytes; returns its size, or -1. */
static long check_header(struct rd *r, const unsigned char *b, size_t n)
{
	long hsize = check_fixed_header(r, b, n);
	if (hsize > (long)n)
		return fail(r, "truncated (header)");
	return hsize; /* a longer header is a future extension: skip it */
}

int ccp_format_check_start(const unsigned char *buf, size_t len, char *err, size_t errlen)
{
	struct rd r = {.err = err, .errlen = errlen};
	if (err && errlen)
		err[0] = '\0';
	if (len > CCP_HEADER_SIZE)
		len = CCP_HEADER_SIZE;
	return check_fixed_header(&r, buf, len) < 0 ? -1 : 0;
}

/*
 * A well-formed file ends with END: tag 0, length 4, CRC.  Check the CRC
 * before parsing when the tail has that shape, so that corruption is
 * reported as such rather than as whatever the damaged bytes happen to
 * spell.  Any other tail is left to the parser to describe.
 */
static int check_crc(struct rd *r, const unsigned char *b, size_t n, size_t hsize)
{
	if (r->flags & CCP_DECODE_NO_CRC || n < hsize + 6 || b[n - 6] != CCP_SEC_END ||
	    b[n - 5] != CCP_END_PAYLOAD)
		return 0;
	if (ccp_crc32(0, b, n - 6) != le32(b + n - 4))
		return fail(r, "checksum mismatch (file corrupt)");
	r->crc_checked = 1;
	return 0;
}

/* The required sections come in tag order, THREAD any number of times;
 * ALLOC, optional, only right after STATS, and HEAP only right after ALLOC. */
static int check_order(struct rd *r, unsigned last, uint64_t tag)
{
	if (tag == CCP_SEC_ALLOC && last == CCP_SEC_ALLOC)
		return fail(r, "duplicate section ALLOC");
	if (tag == CCP_SEC_HEAP && last == CCP_SEC_HEAP)
		return fail(r, "duplicate section HEAP");
	if (tag == CCP_SEC_HEAP && last != CCP_SEC_ALLOC)
		return fail(r, "section HEAP out of order (after %s)",
			    last ? ccp_section_name(last) : "header");
	if (tag == CCP_SEC_HEAP)
		return 0;
	if (tag == CCP_SEC_ALLOC && last != CCP_SEC_STATS)
		return fail(r, "section ALLOC out of order (after %s)",
			    last ? ccp_section_name(last) : "header");
	if (tag == last + 1 || (tag == CCP_SEC_THREAD && last == CCP_SEC_THREAD) ||
	    (tag == CCP_SEC_STATS && last == CCP_SEC_CCS))
		return 0;
	if (tag == last)
		return fail(r, "duplicate section %s", ccp_section_name(tag));
	if (tag < last)
		return fail(r, "section %s out of order (after %s)", ccp_section_name(tag),
			    ccp_section_name(last));
	return fail(r, "missing section %s", ccp_section_name(last + 1));
}

static int end_section(struct rd *r, unsigned last, const unsigned char *b, size_t n,
		       const unsigned char *payload, uint64_t len)
{
	if (last != CCP_SEC_STATS && last != CCP_SEC_ALLOC && last != CCP_SEC_HEAP)
		return fail(r, "missing section %s", /* THREAD and ALLOC are optional */
			    ccp_section_name(last >= CCP_SEC_CCS ? CCP_SEC_STATS : last + 1));
	if (len != CCP_END_PAYLOAD)
		return fail(r, "bad section END (length %" PRIu64 ")", len);
	if ((size_t)(b + n - payload) != CCP_END_PAYLOAD)
		return fail(r, "trailing bytes after END");
	size_t covered = (size_t)(payload - b) - 2; /* tag and length are one byte each */
	if (!(r->flags & CCP_DECODE_NO_CRC) && !r->crc_checked &&
	    ccp_crc32(0, b, covered) != le32(payload))
		return fail(r, "checksum mismatch (file corrupt)");
	return 0;
}

static int (*const parsers[CCP_SEC_FIRST_UNKNOWN])(struct rd *) = {
	[CCP_SEC_STRINGS] = get_strings, [CCP_SEC_META] = get_meta,
	[CCP_SEC_MODULES] = get_modules, [CCP_SEC_CCS] = get_ccs,
	[CCP_SEC_THREAD] = get_thread,   [CCP_SEC_STATS] = get_stats,
	[CCP_SEC_ALLOC] = get_alloc,     [CCP_SEC_HEAP] = get_heap,
};

/* Sections from off to the END section, which must close the file. */
static int get_sections(struct rd *r, const unsigned char *b, size_t n, size_t off)
{
	const unsigned char *p = b + off, *end = b + n;
	unsigned last = 0; /* the last required section read, 0 = none */
	for (;;) {
		uint64_t tag, len;
		snprintf(r->where, sizeof r->where, "after %s",
			 last ? ccp_section_name(last) : "header");
		if (p == end)
			return fail(r, "truncated (missing END section)");
		r->p = p;
		r->end = end;
		if (get_varint(r, &tag) != 0 || get_varint(r, &len) != 0)
			return -1;
		if (len > left(r))
			return fail(r, "truncated (section %s)", ccp_section_name(tag));
		const unsigned char *payload = r->p;
		p = payload + len;
		if (tag == CCP_SEC_END)
			return end_section(r, last, b, n, payload, len);
		if (tag >= CCP_SEC_FIRST_UNKNOWN)
			continue; /* from a newer writer: skip */
		if (check_order(r, last, tag) != 0)
			return -1;
		snprintf(r->where, sizeof r->where, "section %s", ccp_section_name(tag));
		r->end = p;
		if (parsers[tag](r) != 0)
			return -1;
		if (r->p != r->end)
			return fail(r, "bad section %s (%zu unexpected bytes at its end)",
				    ccp_section_name(tag), left(r));
		last = (unsigned)tag;
	}
}

static int decode(struct rd *r, const unsigned char *b, size_t n)
{
	long hsize = check_header(r, b, n);
	if (hsize < 0 || check_crc(r, b, n, (size_t)hsize) != 0)
		return -1;
	if (!(r->arena = ccp_arena_new()))
		return fail(r, "out of memory");
	r->budget = HIST_SLACK + (n > (UINT64_MAX - HIST_SLACK) / HIST_PER_BYTE
					  ? (UINT64_MAX - HIST_SLACK) / HIST_PER_BYTE
					  : (uint64_t)n) * HIST_PER_BYTE;
	return get_sections(r, b, n, (size_t)hsize);
}

int ccp_format_decode_flags(const unsigned char *buf, size_t len, struct ccp_profile *p,
			    char *err, size_t errlen, unsigned flags)
{
	struct rd r = {.err = err, .errlen = errlen, .flags = flags, .prof = p};
	memset(p, 0, sizeof *p);
	if (err && errlen)
		err[0] = '\0';
	int rc = decode(&r, buf, len);
	free(r.marks.at);
	if (rc != 0) {
		ccp_arena_free(r.arena);
		memset(p, 0, sizeof *p);
		return -1;
	}
	p->arena = r.arena;
	return 0;
}

int ccp_format_decode(const unsigned char *buf, size_t len, struct ccp_profile *p, char *err,
		      size_t errlen)
{
	return ccp_format_decode_flags(buf, len, p, err, errlen, 0);
}

void ccp_profile_free(struct ccp_profile *p)
{
	if (!p)
		return;
	ccp_arena_free(p->arena);
	memset(p, 0, sizeof *p);
}
