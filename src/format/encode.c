/*
 * encode.c - struct ccp_profile -> bytes: the writer half of docs/format.md.
 *
 * Two passes.  The first interns every string in a fixed order (META,
 * MODULES, CCS, thread names), so the string table, and with it the whole
 * output, depends only on the profile's content and never on where its
 * strings live in memory: encoding is deterministic, and decode + encode
 * gives back the same bytes.  The second pass writes the sections into one
 * growing buffer whose error is sticky: the put_* helpers never report
 * failure, the caller checks w.err once at the end.
 *
 * The writer also applies the reader's validity rules (module and CC
 * indices, kinds, clock, marks), so it never produces a file ccprof would
 * refuse; an inconsistent profile fails with EINVAL.  A NULL string is
 * written as "".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "wire.h"

/* ---- memory: malloc unless the caller brings an allocator --------------- */

static void *mem_realloc(const struct ccp_allocator *a, void *p, size_t old, size_t n)
{
	return a ? a->realloc(a->ctx, p, old, n) : realloc(p, n);
}

static void *mem_zalloc(const struct ccp_allocator *a, size_t n)
{
	void *p = mem_realloc(a, NULL, 0, n);
	if (p)
		memset(p, 0, n);
	return p;
}

static void mem_free(const struct ccp_allocator *a, void *p, size_t n)
{
	if (a)
		a->free(a->ctx, p, n);
	else
		free(p);
}

/* ---- output buffer with a sticky error ---------------------------------- */

struct wbuf {
	unsigned char *buf;
	size_t len, cap;
	int err; /* first errno-style failure; once set, writes are dropped */
	const struct ccp_allocator *a;
};

static void wb_fail(struct wbuf *w, int err)
{
	if (!w->err)
		w->err = err;
}

/* Room for n more bytes at the end; NULL once anything has failed. */
static unsigned char *wb_append(struct wbuf *w, size_t n)
{
	if (w->err)
		return NULL;
	if (w->cap - w->len < n) {
		size_t cap = w->cap ? w->cap : 4096;
		while (cap - w->len < n) {
			if (cap > SIZE_MAX / 2) {
				wb_fail(w, ENOMEM);
				return NULL;
			}
			cap *= 2;
		}
		unsigned char *nb = mem_realloc(w->a, w->buf, w->cap, cap);
		if (!nb) {
			wb_fail(w, ENOMEM);
			return NULL;
		}
		w->buf = nb;
		w->cap = cap;
	}
	unsigned char *p = w->buf + w->len;
	w->len += n;
	return p;
}

static void put_bytes(struct wbuf *w, const void *s, size_t n)
{
	unsigned char *p = wb_append(w, n);
	if (p && n)
		memcpy(p, s, n);
}

/* Most of a profile is varints, written one at a time: straight into the
 * buffer when it has room for the longest, without a call (the encoder
 * spent half its time in the calls; docs/performance.md, session 30). */
static void put_varint(struct wbuf *w, uint64_t v)
{
	unsigned char tmp[CCP_VARINT_MAX], *p;

	if (w->err || w->cap - w->len < CCP_VARINT_MAX) {
		put_bytes(w, tmp, ccp_varint_put(tmp, v));
		return;
	}
	p = w->buf + w->len;
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	w->len = (size_t)(p - w->buf);
}

static void put_u32le(struct wbuf *w, uint32_t v)
{
	unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8),
			      (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
	put_bytes(w, b, 4);
}

/*
 * A section is tag, payload length, payload; the length is known only
 * after the payload is written.  Leave room for the longest length varint,
 * write the payload, then store the length and slide the payload down over
 * the unused room.  The slide costs one memmove per section, cheaper than
 * encoding every section twice to measure it.
 */
static size_t section_begin(struct wbuf *w, enum ccp_section tag)
{
	put_varint(w, tag);
	wb_append(w, CCP_VARINT_MAX);
	return w->len; /* where the payload starts */
}

static void section_end(struct wbuf *w, size_t payload)
{
	if (w->err)
		return;
	size_t n = w->len - payload;
	unsigned char *room = w->buf + payload - CCP_VARINT_MAX;
	size_t k = ccp_varint_put(room, n);
	memmove(room + k, w->buf + payload, n);
	w->len -= CCP_VARINT_MAX - k;
}

/* ---- string interning ---------------------------------------------------- */

struct str {
	const char *s;
	size_t len;
	uint64_t hash;
};

/* Strings in index order, plus an open-addressed hash of them.  Profiles
 * can have 100k+ functions, so no linear search. */
struct strtab {
	struct str *v;
	uint32_t n, vcap;
	uint32_t *slot; /* index + 1, 0 = empty; size mask + 1, a power of 2 */
	size_t mask;
	int err;
	const struct ccp_allocator *a;
};

static const char *nz(const char *s)
{
	return s ? s : "";
}

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3u;
	return h;
}

/* The slot holding s, or the empty slot where it would go. */
static size_t st_probe(const struct strtab *t, const char *s, size_t len, uint64_t h)
{
	size_t i = (size_t)h & t->mask;
	for (;; i = (i + 1) & t->mask) {
		uint32_t id = t->slot[i];
		if (id == 0)
			return i;
		const struct str *e = &t->v[id - 1];
		if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0)
			return i;
	}
}

/* Double the slots (kept at most half full) and reinsert. */
static int st_rehash(struct strtab *t)
{
	size_t nslots = t->slot ? (t->mask + 1) * 2 : 1024;
	if (nslots > SIZE_MAX / sizeof *t->slot)
		return -1;
	uint32_t *slot = mem_zalloc(t->a, nslots * sizeof *slot);
	if (!slot)
		return -1;
	if (t->slot)
		mem_free(t->a, t->slot, (t->mask + 1) * sizeof *t->slot);
	t->slot = slot;
	t->mask = nslots - 1;
	for (uint32_t id = 1; id <= t->n; id++) {
		const struct str *e = &t->v[id - 1];
		t->slot[st_probe(t, e->s, e->len, e->hash)] = id;
	}
	return 0;
}

static int st_push(struct strtab *t, const char *s, size_t len, uint64_t h)
{
	if (t->n == t->vcap) {
		if (t->vcap >= UINT32_MAX / 2)
			return -1;
		uint32_t cap = t->vcap ? t->vcap * 2 : 256;
		struct str *v = mem_realloc(t->a, t->v, (size_t)t->vcap * sizeof *v,
					    (size_t)cap * sizeof *v);
		if (!v)
			return -1;
		t->v = v;
		t->vcap = cap;
	}
	t->v[t->n++] = (struct str){s, len, h};
	return 0;
}

/* Give s the next index unless it already has one. */
static void st_intern(struct strtab *t, const char *s)
{
	if (t->err)
		return;
	s = nz(s);
	size_t len = strlen(s);
	uint64_t h = hash_bytes(s, len);
	if (t->n >= (t->mask + 1) / 2 && st_rehash(t) != 0) {
		t->err = ENOMEM;
		return;
	}
	size_t i = st_probe(t, s, len, h);
	if (t->slot[i])
		return;
	if (st_push(t, s, len, h) != 0) {
		t->err = ENOMEM;
		return;
	}
	t->slot[i] = t->n;
}

/* Index of a string interned by the first pass. */
static uint32_t st_index(const struct strtab *t, const char *s)
{
	s = nz(s);
	size_t len = strlen(s);
	return t->slot[st_probe(t, s, len, hash_bytes(s, len))] - 1;
}

static void st_free(struct strtab *t)
{
	if (t->v)
		mem_free(t->a, t->v, (size_t)t->vcap * sizeof *t->v);
	if (t->slot)
		mem_free(t->a, t->slot, (t->mask + 1) * sizeof *t->slot);
}

/* Pass 1: every string, in the order the sections will mention them. */
static int intern_all(struct strtab *t, const struct ccp_profile *p)
{
	st_intern(t, ""); /* string 0 is always "" */
	st_intern(t, p->program);
	for (uint32_t i = 0; i < p->argc; i++)
		st_intern(t, p->argv[i]);
	st_intern(t, p->options);
	st_intern(t, p->hostname);
	for (uint32_t i = 0; i < p->nmodules; i++) {
		st_intern(t, p->modules[i].path);
		st_intern(t, p->modules[i].build_id);
	}
	for (uint32_t i = 0; i < p->nccs; i++) {
		st_intern(t, p->ccs[i].name);
		st_intern(t, p->ccs[i].file);
	}
	for (uint32_t i = 0; i < p->nthreads; i++)
		st_intern(t, p->threads[i].name);
	return t->err ? -1 : 0;
}

/* ---- sections ------------------------------------------------------------- */

static void put_str(struct wbuf *w, const struct strtab *t, const char *s)
{
	put_varint(w, st_index(t, s));
}

static void put_header(struct wbuf *w)
{
	static const unsigned char rest[8] = {
		CCP_FORMAT_VERSION & 0xff, CCP_FORMAT_VERSION >> 8,
		CCP_HEADER_SIZE & 0xff, CCP_HEADER_SIZE >> 8,
		0x01, 0x02, 0x03, 0x04, /* endianness probe */
	};
	put_bytes(w, CCP_MAGIC, CCP_MAGIC_LEN);
	put_bytes(w, rest, sizeof rest);
}

static void put_strings(struct wbuf *w, const struct strtab *t)
{
	size_t at = section_begin(w, CCP_SEC_STRINGS);
	put_varint(w, t->n);
	for (uint32_t i = 0; i < t->n; i++) {
		put_varint(w, t->v[i].len);
		put_bytes(w, t->v[i].s, t->v[i].len);
	}
	section_end(w, at);
}

static void put_meta(struct wbuf *w, const struct ccp_profile *p, const struct strtab *t)
{
	if (p->clock > CCP_CLOCK_WALL)
		wb_fail(w, EINVAL);
	size_t at = section_begin(w, CCP_SEC_META);
	put_str(w, t, p->program);
	put_varint(w, p->argc);
	for (uint32_t i = 0; i < p->argc; i++)
		put_str(w, t, p->argv[i]);
	put_varint(w, p->pid);
	put_varint(w, p->start_ns);
	put_varint(w, p->end_ns);
	put_varint(w, p->clock);
	put_varint(w, p->interval_ns);
	put_varint(w, p->ticks_per_sec);
	put_varint(w, p->overhead_milliticks);
	put_str(w, t, p->options);
	put_str(w, t, p->hostname);
	section_end(w, at);
}

static void put_modules(struct wbuf *w, const struct ccp_profile *p, const struct strtab *t)
{
	size_t at = section_begin(w, CCP_SEC_MODULES);
	put_varint(w, p->nmodules);
	for (uint32_t i = 0; i < p->nmodules; i++) {
		const struct ccp_module *m = &p->modules[i];
		put_str(w, t, m->path);
		put_str(w, t, m->build_id);
		put_varint(w, m->base);
	}
	section_end(w, at);
}

static void put_ccs(struct wbuf *w, const struct ccp_profile *p, const struct strtab *t)
{
	size_t at = section_begin(w, CCP_SEC_CCS);
	put_varint(w, p->nccs);
	for (uint32_t i = 0; i < p->nccs; i++) {
		const struct ccp_cc *c = &p->ccs[i];
		if (c->kind > CCP_CC_OVERFLOW || c->module < -1 ||
		    (c->module >= 0 && (uint32_t)c->module >= p->nmodules))
			wb_fail(w, EINVAL);
		put_varint(w, c->kind);
		put_str(w, t, c->name);
		put_varint(w, (uint64_t)((int64_t)c->module + 1)); /* 0 = no module */
		put_varint(w, c->offset);
		put_str(w, t, c->file);
		put_varint(w, c->line);
	}
	section_end(w, at);
}

/* Length of the common prefix of two histories. */
static uint32_t common_prefix(const uint32_t *a, uint32_t alen, const uint32_t *b, uint32_t blen)
{
	uint32_t n = alen < blen ? alen : blen, i = 0;
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/*
 * Contexts are written as deltas: each history shares a prefix with the
 * one before it in the same thread (contexts created in a row usually do),
 * so only the length of that prefix and the differing suffix are stored.
 */
static void put_thread(struct wbuf *w, const struct ccp_thread *th, const struct strtab *t,
		       struct ccp_marks *marks, struct ccp_totals *totals)
{
	size_t at = section_begin(w, CCP_SEC_THREAD);
	put_varint(w, th->tid);
	put_str(w, t, th->name);
	put_varint(w, th->ncontexts);
	const uint32_t *prev = NULL;
	uint32_t prevlen = 0;
	for (uint32_t i = 0; i < th->ncontexts && !w->err; i++) {
		const struct ccp_context *c = &th->contexts[i];
		if ((c->len && !c->hist) || ccp_history_check(marks, c->hist, c->len) != CCP_HIST_OK ||
		    ccp_totals_add(totals, c->entries, c->recursive, c->time) != 0) {
			wb_fail(w, EINVAL);
			break;
		}
		uint32_t shared = common_prefix(prev, prevlen, c->hist, c->len);
		put_varint(w, shared);
		put_varint(w, c->len - shared);
		for (uint32_t j = shared; j < c->len; j++)
			put_varint(w, c->hist[j]);
		put_varint(w, c->entries);
		put_varint(w, c->recursive);
		put_varint(w, c->time);
		prev = c->hist;
		prevlen = c->len;
	}
	section_end(w, at);
}

static void put_stats(struct wbuf *w, const struct ccp_stats *st)
{
	struct ccp_stats copy = *st; /* ccp_stats_slot wants a mutable struct */
	size_t at = section_begin(w, CCP_SEC_STATS);
	/* Keys 11 to 16 only when they say something, so that files without
	 * them stay as they were. */
	static const uint64_t optional[] = {CCP_STAT_SUBTRACTED, CCP_STAT_MERGED,
					    CCP_STAT_OWN_TIME, CCP_STAT_LOOKS,
					    CCP_STAT_SLOW_FINDS, CCP_STAT_UNTRACKED};
	uint64_t n = CCP_STAT_KEYS;
	for (size_t i = 0; i < sizeof optional / sizeof *optional; i++)
		n += *ccp_stats_slot(&copy, optional[i]) != 0;
	put_varint(w, n);
	for (uint64_t key = 1; key <= CCP_STAT_KEYS; key++) {
		put_varint(w, key);
		put_varint(w, *ccp_stats_slot(&copy, key));
	}
	for (size_t i = 0; i < sizeof optional / sizeof *optional; i++) {
		uint64_t v = *ccp_stats_slot(&copy, optional[i]);
		if (v != 0) {
			put_varint(w, optional[i]);
			put_varint(w, v);
		}
	}
	section_end(w, at);
}

/* A context's pair of counts that ALLOC or HEAP records. */
struct pair {
	uint64_t bytes, blocks;
};

static struct pair alloc_pair(const struct ccp_context *c)
{
	return (struct pair){c->alloc_bytes, c->alloc_blocks};
}

static struct pair live_pair(const struct ccp_context *c)
{
	return (struct pair){c->live_bytes, c->live_blocks};
}

/* (thread, context, bytes, blocks) for each context whose pair is not
 * 0, 0, in file order, after their count. */
static void put_pair_records(struct wbuf *w, const struct ccp_profile *p,
			     struct pair (*pair_of)(const struct ccp_context *))
{
	uint64_t records = 0;
	for (uint32_t i = 0; i < p->nthreads; i++)
		for (uint32_t j = 0; j < p->threads[i].ncontexts; j++) {
			struct pair x = pair_of(&p->threads[i].contexts[j]);
			records += x.bytes || x.blocks;
		}
	put_varint(w, records);
	for (uint32_t i = 0; i < p->nthreads; i++)
		for (uint32_t j = 0; j < p->threads[i].ncontexts; j++) {
			struct pair x = pair_of(&p->threads[i].contexts[j]);
			if (!x.bytes && !x.blocks)
				continue;
			put_varint(w, i);
			put_varint(w, j);
			put_varint(w, x.bytes);
			put_varint(w, x.blocks);
		}
}

/*
 * ALLOC, only for a run that counted allocations: what no context could
 * take, then one record per context that allocated, in file order, so
 * that a run allocating in few of its contexts costs few bytes.
 */
static void put_alloc(struct wbuf *w, const struct ccp_profile *p)
{
	struct ccp_alloc_sums sums = {0, 0};
	if (!p->alloc.measured)
		return;
	if (ccp_alloc_sums_add(&sums, p->alloc.outside_bytes, p->alloc.outside_blocks) != 0) {
		wb_fail(w, EINVAL);
		return;
	}
	for (uint32_t i = 0; i < p->nthreads; i++)
		for (uint32_t j = 0; j < p->threads[i].ncontexts; j++) {
			const struct ccp_context *c = &p->threads[i].contexts[j];
			if (ccp_alloc_sums_add(&sums, c->alloc_bytes, c->alloc_blocks) != 0) {
				wb_fail(w, EINVAL);
				return;
			}
		}
	size_t at = section_begin(w, CCP_SEC_ALLOC);
	put_varint(w, p->alloc.outside_bytes);
	put_varint(w, p->alloc.outside_blocks);
	put_pair_records(w, p, alloc_pair);
	section_end(w, at);
}

/* Whether the heap part is one a reader accepts (format.md 3.8): live
 * counts within what each context allocated, the peak at least every
 * total, samples in order. */
static int heap_valid(const struct ccp_profile *p)
{
	const struct ccp_heap *h = &p->heap;
	uint64_t final = h->outside_live_bytes, prev = 0;

	if (!p->alloc.measured || h->interval_ns == 0 ||
	    h->outside_live_bytes > p->alloc.outside_bytes ||
	    h->outside_live_blocks > p->alloc.outside_blocks)
		return 0;
	for (uint32_t i = 0; i < p->nthreads; i++)
		for (uint32_t j = 0; j < p->threads[i].ncontexts; j++) {
			const struct ccp_context *c = &p->threads[i].contexts[j];
			if (c->live_bytes > c->alloc_bytes || c->live_blocks > c->alloc_blocks)
				return 0;
			final += c->live_bytes;
		}
	if (final > h->peak_bytes)
		return 0;
	for (uint32_t k = 0; k < h->nsamples; k++) {
		const struct ccp_heap_sample *s = &h->samples[k];
		uint64_t total = s->outside_bytes;
		if (s->time_ns < prev || s->outside_bytes > p->alloc.outside_bytes)
			return 0;
		for (uint32_t r = 0; r < s->nrecords; r++) {
			const struct ccp_heap_record *x = &s->records[r];
			const struct ccp_heap_record *y = r ? &s->records[r - 1] : NULL;
			if (x->thread >= p->nthreads || x->context >= p->threads[x->thread].ncontexts ||
			    x->bytes == 0 ||
			    x->bytes > p->threads[x->thread].contexts[x->context].alloc_bytes ||
			    (y && (x->thread < y->thread ||
				   (x->thread == y->thread && x->context <= y->context))))
				return 0;
			total += x->bytes;
		}
		if (total > h->peak_bytes)
			return 0;
		prev = s->time_ns;
	}
	return 1;
}

/*
 * HEAP, only for a run that followed the heap (heap=1): the live heap at
 * the write per context, as ALLOC's records, then the samples, each time
 * as the step from the one before.
 */
static void put_heap(struct wbuf *w, const struct ccp_profile *p)
{
	const struct ccp_heap *h = &p->heap;
	uint64_t prev = 0;
	if (!h->measured)
		return;
	if (!heap_valid(p)) {
		wb_fail(w, EINVAL);
		return;
	}
	size_t at = section_begin(w, CCP_SEC_HEAP);
	put_varint(w, h->interval_ns);
	put_varint(w, h->peak_bytes);
	put_varint(w, h->outside_live_bytes);
	put_varint(w, h->outside_live_blocks);
	put_pair_records(w, p, live_pair);
	put_varint(w, h->nsamples);
	for (uint32_t k = 0; k < h->nsamples; k++) {
		const struct ccp_heap_sample *s = &h->samples[k];
		put_varint(w, s->time_ns - prev);
		put_varint(w, s->outside_bytes);
		put_varint(w, s->nrecords);
		for (uint32_t r = 0; r < s->nrecords; r++) {
			put_varint(w, s->records[r].thread);
			put_varint(w, s->records[r].context);
			put_varint(w, s->records[r].bytes);
		}
		prev = s->time_ns;
	}
	section_end(w, at);
}

/* END carries the CRC-32 of every byte before its tag. */
static void put_end(struct wbuf *w)
{
	if (w->err)
		return;
	uint32_t crc = ccp_crc32(0, w->buf, w->len);
	put_varint(w, CCP_SEC_END);
	put_varint(w, CCP_END_PAYLOAD);
	put_u32le(w, crc);
}

/* Pointers that must exist for their counts to be read. */
static int arrays_present(const struct ccp_profile *p)
{
	if ((p->argc && !p->argv) || (p->nmodules && !p->modules) || (p->nccs && !p->ccs) ||
	    (p->nthreads && !p->threads))
		return 0;
	for (uint32_t i = 0; i < p->nthreads; i++)
		if (p->threads[i].ncontexts && !p->threads[i].contexts)
			return 0;
	return 1;
}

static void put_profile(struct wbuf *w, const struct ccp_profile *p, const struct strtab *t)
{
	/* The marks' stamps come from our allocator (see wire.h). */
	size_t stamp_size = ((size_t)p->nccs + 1) * sizeof(uint32_t);
	struct ccp_marks marks = {mem_zalloc(w->a, stamp_size), 0, p->nccs};
	if (!marks.stamp) {
		wb_fail(w, ENOMEM);
		return;
	}
	put_header(w);
	put_strings(w, t);
	put_meta(w, p, t);
	put_modules(w, p, t);
	put_ccs(w, p, t);
	struct ccp_totals totals = {0, 0};
	for (uint32_t i = 0; i < p->nthreads; i++)
		put_thread(w, &p->threads[i], t, &marks, &totals);
	put_stats(w, &p->stats);
	put_alloc(w, p);
	put_heap(w, p);
	put_end(w);
	mem_free(w->a, marks.stamp, stamp_size);
}

int ccp_format_encode(const struct ccp_profile *p, unsigned char **buf, size_t *len)
{
	return ccp_format_encode_with(p, NULL, buf, len);
}

int ccp_format_encode_with(const struct ccp_profile *p, const struct ccp_allocator *a,
			   unsigned char **buf, size_t *len)
{
	struct wbuf w = {0};
	struct strtab t = {0};
	w.a = a;
	t.a = a;
	*buf = NULL;
	*len = 0;
	if (!arrays_present(p) || p->nccs > CCP_MAX_CCS || p->nmodules > INT32_MAX)
		wb_fail(&w, EINVAL);
	else if (intern_all(&t, p) != 0)
		wb_fail(&w, t.err);
	else
		put_profile(&w, p, &t);
	st_free(&t);
	if (w.err) {
		if (w.buf)
			mem_free(a, w.buf, w.cap);
		errno = w.err;
		return -1;
	}
	*buf = w.buf;
	*len = w.len;
	return 0;
}
