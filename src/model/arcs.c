/*
 * arcs.c - the call-graph pass: calls and exact times of each arc.
 *
 * Calls (docs/semantics.md, "The views"): arc calls(A→B) = Σ E(C) over
 * contexts whose last two entries are A, B; arc calls(A→A) = Σ R(C) over
 * contexts running A.  A context of length 1 is a thread root: its entries
 * go to the arc from MODEL_NONE ("spontaneous").
 *
 * Times (Spivey's self1/child1 and self2/child2): for each marked entry i
 * of a context running P, with the item A[B]D = s(i-1) [s(i)] s(i+1):
 *
 *   outgoing B→D:  self_out if D = P, else child_out
 *   incoming A→B:  self_in  if B = P, else child_in
 *
 * Walking adjacent pairs (a, b) = (s(i), s(i+1)) instead of items finds
 * both halves with one lookup: the pair is B→D of a's item when a is
 * marked and A→B of b's item when b is marked, and in both cases the
 * test is b = P.  A pair with neither marked is no arc (an elided path).
 * The first entry's item has an incoming arc from MODEL_NONE.
 *
 *   [main] P [Q] [R] [P]   (P running, time T)
 *     main→P  out: self   (main marked; b = P)
 *     P→Q     in:  child  (Q marked)
 *     Q→R     out: child, in: child
 *     R→P     out: self,  in: self
 *     ∅→main  in:  child
 *
 * Without mutual recursion every pair has both ends marked, so the _in and
 * _out times of each arc are equal.
 */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

#include "model/shortsort.h"
#include "model/xalloc.h"

struct arc_build {
	uint32_t cap;
	/* Note [Shared prefix] in tree.c: the previous context, and for each
	 * pair (i, i+1) of its entries the arc, or MODEL_NONE for a gap. */
	const uint32_t *prev;
	uint32_t prev_len;
	uint32_t *pair;
	uint32_t pair_cap;
	uint32_t root_cc, root_arc; /* the last spontaneous arc looked up */
	int alloc;                  /* fill m->arc_alloc too */
};

/* The index of the arc caller -> callee, created if new. */
static uint32_t arc_get(struct model *m, struct arc_build *b, uint32_t caller, uint32_t callee)
{
	uint32_t k = model_arc_index_find(&m->arc_index, m->arcs, caller, callee);
	if (k != MODEL_NONE)
		return k;
	if (m->narcs == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		m->arcs = xrealloc(m->arcs, b->cap, sizeof *m->arcs);
		if (b->alloc)
			m->arc_alloc = xrealloc(m->arc_alloc, b->cap, sizeof *m->arc_alloc);
	}
	k = m->narcs++;
	m->arcs[k] = (struct model_arc){.caller = caller, .callee = callee};
	if (b->alloc)
		m->arc_alloc[k] = (struct model_arc_alloc){0};
	model_arc_index_add(&m->arc_index, m->arcs, k);
	return k;
}

/* The arc of each adjacent pair of c's entries, into b->pair; pairs in
 * the prefix shared with the previous context keep their arcs. */
static void arcs_find(struct model *m, struct arc_build *b, const struct ccp_context *c)
{
	const uint32_t *s = c->hist;
	uint32_t same = model_common_prefix(b->prev, b->prev_len, s, c->len);
	if (c->len > b->pair_cap) {
		b->pair_cap = c->len * 2;
		b->pair = xrealloc(b->pair, b->pair_cap, sizeof *b->pair);
	}
	for (uint32_t i = same ? same - 1 : 0; i + 1 < c->len; i++) {
		if (!CCP_ENTRY_MARKED(s[i]) && !CCP_ENTRY_MARKED(s[i + 1]))
			b->pair[i] = MODEL_NONE;
		else
			b->pair[i] = arc_get(m, b, CCP_ENTRY_CC(s[i]), CCP_ENTRY_CC(s[i + 1]));
	}
	b->prev = s;
	b->prev_len = c->len;
}

/* A context's allocations on arc k, by the rule of its time (above). */
static void arc_alloc_add(struct model *m, uint32_t k, int out, int self,
			  const struct ccp_context *c)
{
	struct model_arc_alloc *x = &m->arc_alloc[k];
	struct model_alloc *slot = out ? (self ? &x->self_out : &x->child_out)
				       : (self ? &x->self_in : &x->child_in);
	model_alloc_add(slot, model_ctx_alloc(c));
}

static void arcs_of_context(struct model *m, struct arc_build *b, const struct ccp_context *c)
{
	const uint32_t *s = c->hist;
	uint32_t n = c->len;
	uint32_t run = CCP_ENTRY_CC(s[n - 1]);
	int alloc = b->alloc && (c->alloc_bytes || c->alloc_blocks);

	arcs_find(m, b, c);
	if (CCP_ENTRY_MARKED(s[0])) {
		uint32_t first = CCP_ENTRY_CC(s[0]);
		if (first != b->root_cc) { /* most contexts start like the last */
			b->root_cc = first;
			b->root_arc = arc_get(m, b, MODEL_NONE, first);
		}
		struct model_arc *a = &m->arcs[b->root_arc];
		*(first == run ? &a->self_in : &a->child_in) += c->time;
		if (alloc)
			arc_alloc_add(m, b->root_arc, 0, first == run, c);
		if (n == 1)
			a->calls += c->entries;
	}
	for (uint32_t i = 0; i + 1 < n; i++) {
		if (b->pair[i] == MODEL_NONE)
			continue;
		struct model_arc *a = &m->arcs[b->pair[i]];
		int self = CCP_ENTRY_CC(s[i + 1]) == run;
		if (CCP_ENTRY_MARKED(s[i])) {
			*(self ? &a->self_out : &a->child_out) += c->time;
			if (alloc)
				arc_alloc_add(m, b->pair[i], 1, self, c);
		}
		if (CCP_ENTRY_MARKED(s[i + 1])) {
			*(self ? &a->self_in : &a->child_in) += c->time;
			if (alloc)
				arc_alloc_add(m, b->pair[i], 0, self, c);
		}
		if (i + 2 == n)
			a->calls += c->entries;
	}
	if (c->recursive) {
		uint32_t k = arc_get(m, b, run, run);
		m->arcs[k].calls += c->recursive;
	}
}

/* Sort keys for the per-function arc lists: heaviest arc first. */
struct arc_key {
	uint64_t time;  /* the times shown in that list */
	uint64_t calls;
	uint32_t arc;
};

static int cmp_arc_key(const void *pa, const void *pb)
{
	const struct arc_key *a = pa, *b = pb;
	if (a->time != b->time)
		return a->time > b->time ? -1 : 1;
	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	return a->arc < b->arc ? -1 : a->arc > b->arc;
}

/*
 * CSR index: list[start[f] .. start[f+1]) are the arcs of f, in or out,
 * grouped by a counting pass and each group sorted on its own.
 * Spontaneous arcs have no caller, so they appear in no out-list.
 */
static void arc_lists(struct model *m, int incoming, uint32_t **startp, uint32_t **listp)
{
	uint32_t *start = model_calloc(m, (size_t)m->nfns + 1, sizeof *start);
	for (uint32_t k = 0; k < m->narcs; k++) {
		uint32_t fn = incoming ? m->arcs[k].callee : m->arcs[k].caller;
		if (fn != MODEL_NONE)
			start[fn + 1]++;
	}
	for (uint32_t f = 0; f < m->nfns; f++)
		start[f + 1] += start[f];
	uint32_t n = start[m->nfns];
	struct arc_key *keys = xnmalloc(n ? n : 1, sizeof *keys);
	uint32_t *fill = xnmalloc(m->nfns ? m->nfns : 1, sizeof *fill);
	memcpy(fill, start, m->nfns * sizeof *fill);
	for (uint32_t k = 0; k < m->narcs; k++) {
		const struct model_arc *a = &m->arcs[k];
		uint32_t fn = incoming ? a->callee : a->caller;
		if (fn == MODEL_NONE)
			continue;
		keys[fill[fn]++] = (struct arc_key){
			.time = incoming ? a->self_in + a->child_in : a->self_out + a->child_out,
			.calls = a->calls,
			.arc = k,
		};
	}
	free(fill);
	uint32_t *list = model_calloc(m, n, sizeof *list);
	for (uint32_t f = 0; f < m->nfns; f++) {
		uint32_t lo = start[f], hi = start[f + 1];
		shortsort(keys + lo, hi - lo, sizeof *keys, cmp_arc_key);
		for (uint32_t i = lo; i < hi; i++)
			list[i] = keys[i].arc;
	}
	free(keys);
	*startp = start;
	*listp = list;
}

/*
 * The lookups a context a few steps ahead will most likely make: its last
 * pair, the one new since its parent (contexts are mostly made, and
 * written, along call paths), and its recursive arc.  A million lookups
 * in a table of a million arcs would each wait for main memory.
 */
#define PREFETCH_AHEAD 8

static void arcs_prefetch(const struct model *m, uint32_t k)
{
	if (k + PREFETCH_AHEAD >= m->nctx)
		return;
	const struct ccp_context *c = &m->ctx[k + PREFETCH_AHEAD];
	if (c->len == 0)
		return;
	uint32_t run = CCP_ENTRY_CC(c->hist[c->len - 1]);
	if (c->len >= 2)
		model_arc_index_prefetch(&m->arc_index, CCP_ENTRY_CC(c->hist[c->len - 2]), run);
	if (c->recursive)
		model_arc_index_prefetch(&m->arc_index, run, run);
}

void model_arcs(struct model *m)
{
	struct arc_build b = {.cap = 0, .prev = NULL, .root_cc = MODEL_NONE,
			      .alloc = model_alloc_measured(m)};
	model_arc_index_init(&m->arc_index);
	for (uint32_t k = 0; k < m->nctx; k++) {
		arcs_prefetch(m, k);
		if (m->ctx[k].len > 0)
			arcs_of_context(m, &b, &m->ctx[k]);
	}
	free(b.pair);
	m->arcs_done = 1;
}

void model_arc_lists(struct model *m)
{
	arc_lists(m, 1, &m->in_start, &m->in);
	arc_lists(m, 0, &m->out_start, &m->out);
}
