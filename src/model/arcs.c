/*
 * arcs.c - the call-graph pass: calls and exact times of each arc.
 *
 * Calls (DESIGN.md §3): arc calls(A→B) = Σ E(C) over contexts whose last
 * two entries are A, B; arc calls(A→A) = Σ R(C) over contexts running A.
 * A context of length 1 is a thread root: its entries go to the arc from
 * MODEL_NONE ("spontaneous").
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

#include "model/xalloc.h"

static struct model_arc *arc_get(struct model *m, uint32_t *cap, uint32_t caller, uint32_t callee)
{
	uint64_t key = (uint64_t)caller << 32 | callee;
	uint32_t k = htab_get_u64(&m->arc_tab, key);
	if (k != HTAB_NONE)
		return &m->arcs[k];
	if (m->narcs == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		m->arcs = xrealloc(m->arcs, *cap, sizeof *m->arcs);
	}
	k = m->narcs++;
	m->arcs[k] = (struct model_arc){.caller = caller, .callee = callee};
	htab_put_u64(&m->arc_tab, key, k);
	return &m->arcs[k];
}

static void arcs_of_context(struct model *m, uint32_t *cap, const struct model_ctx *c)
{
	const uint32_t *s = c->hist;
	uint32_t n = c->len;
	uint32_t run = CCP_ENTRY_CC(s[n - 1]);

	if (CCP_ENTRY_MARKED(s[0])) {
		uint32_t b = CCP_ENTRY_CC(s[0]);
		struct model_arc *a = arc_get(m, cap, MODEL_NONE, b);
		*(b == run ? &a->self_in : &a->child_in) += c->time;
		if (n == 1)
			a->calls += c->entries;
	}
	for (uint32_t i = 0; i + 1 < n; i++) {
		int ma = CCP_ENTRY_MARKED(s[i]), mb = CCP_ENTRY_MARKED(s[i + 1]);
		if (!ma && !mb)
			continue;
		uint32_t b = CCP_ENTRY_CC(s[i + 1]);
		struct model_arc *a = arc_get(m, cap, CCP_ENTRY_CC(s[i]), b);
		if (ma)
			*(b == run ? &a->self_out : &a->child_out) += c->time;
		if (mb)
			*(b == run ? &a->self_in : &a->child_in) += c->time;
		if (i + 2 == n)
			a->calls += c->entries;
	}
	if (c->recursive)
		arc_get(m, cap, run, run)->calls += c->recursive;
}

/* Sort keys for the per-function arc lists: heaviest arc first. */
struct arc_key {
	uint32_t fn;    /* the list the arc belongs to */
	uint64_t time;  /* the times shown in that list */
	uint64_t calls;
	uint32_t arc;
};

static int cmp_arc_key(const void *pa, const void *pb)
{
	const struct arc_key *a = pa, *b = pb;
	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	if (a->time != b->time)
		return a->time > b->time ? -1 : 1;
	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	return a->arc < b->arc ? -1 : a->arc > b->arc;
}

/*
 * CSR index: list[start[f] .. start[f+1]) are the arcs of f, in or out.
 * Spontaneous arcs have no caller, so they appear in no out-list.
 */
static void arc_lists(struct model *m, int incoming, uint32_t **startp, uint32_t **listp)
{
	struct arc_key *keys = xnmalloc(m->narcs ? m->narcs : 1, sizeof *keys);
	uint32_t n = 0;
	for (uint32_t k = 0; k < m->narcs; k++) {
		const struct model_arc *a = &m->arcs[k];
		uint32_t fn = incoming ? a->callee : a->caller;
		if (fn == MODEL_NONE)
			continue;
		keys[n++] = (struct arc_key){
			.fn = fn,
			.time = incoming ? a->self_in + a->child_in : a->self_out + a->child_out,
			.calls = a->calls,
			.arc = k,
		};
	}
	qsort(keys, n, sizeof *keys, cmp_arc_key);
	uint32_t *start = model_calloc(m, (size_t)m->nfns + 1, sizeof *start);
	uint32_t *list = model_calloc(m, n, sizeof *list);
	for (uint32_t i = 0; i < n; i++) {
		start[keys[i].fn + 1]++;
		list[i] = keys[i].arc;
	}
	for (uint32_t f = 0; f < m->nfns; f++)
		start[f + 1] += start[f];
	free(keys);
	*startp = start;
	*listp = list;
}

void model_arcs(struct model *m)
{
	uint32_t cap = 0;
	htab_init(&m->arc_tab, 64);
	for (uint32_t k = 0; k < m->nctx; k++)
		if (m->ctx[k].len > 0)
			arcs_of_context(m, &cap, &m->ctx[k]);
	arc_lists(m, 1, &m->in_start, &m->in);
	arc_lists(m, 0, &m->out_start, &m->out);
}
