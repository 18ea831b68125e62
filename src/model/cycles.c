/*
 * cycles.c - the cycles of recursion that really ran (Spivey; the
 * definition of a cycle in docs/semantics.md, "The views").
 *
 * A context closes a cycle when its running CC sn also appears earlier
 * (unmarked: sn is its only marked copy).  From the nearest copy s(j),
 * the entries s(j) … s(n-1) are the cycle in call order, with "…" where
 * two neighbours are both unmarked (A4/A5 elided the path).  Spivey's
 * example closes (P, Q, R) three times, in three rotations:
 *
 *   [main]  P  [Q] [R] [P]      P [Q] [R]  ->  P Q R
 *   [main]  P   Q  [R] [P] [Q]  Q [R] [P]  ->  Q R P
 *   [main]  P   R  [P] [Q] [R]  R [P] [Q]  ->  R P Q
 *
 * They are one cycle: cycles are the same when their names are equal up
 * to rotation (DESIGN.md), so each is keyed by the least rotation of its
 * names, its gaps left out: two closings with the same names in the same
 * order and "…" in other places are one cycle, whose members and so whose
 * time are the same (they were listed twice, with equal times).  It is
 * shown in the rotation of the closing context whose copy s(j) is lowest
 * (the way into the cycle: P Q R above), with that context's gaps.
 *
 *   entries = Σ E over the contexts that close it;
 *   time    = Σ T over contexts where every member is active and some
 *             member also appears unmarked (the recursion is in progress);
 *   alloc   = Σ alloc over the same contexts (Note [Allocation as a cost]).
 *
 * Only closing contexts define cycles: an earlier marked entry with an
 * unmarked copy is a partial view of one.  Under a view, the contexts are
 * those the view keeps, with their whole histories (the focus cut would
 * hide cycles through the focused function); deselected entries are left
 * out of the items, as a rerun without them would see the cycle, and
 * what is left with fewer than two members is direct recursion.
 */
#include "model/view.h"

#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"

struct cyc {
	uint32_t len, rep_j, first;
	uint32_t key_len, items_cap;
	uint32_t *key;   /* least rotation of the names, no gaps */
	uint32_t *items; /* as shown, len of them */
	uint64_t entries, time;
	struct model_alloc alloc;
};

struct cycles_build {
	struct htab tab; /* hash of key -> cycle */
	struct cyc *c;
	uint32_t n, cap;
	uint32_t *buf, *names, *rot;
	uint32_t buf_cap;
};

/* The items of the cycle closed at the end of h, or 0 if none. */
static uint32_t cycle_items(const struct model_view *v, const uint32_t *h, uint32_t n,
			    uint32_t *out, uint32_t *jp)
{
	uint32_t run = CCP_ENTRY_CC(h[n - 1]), j = n - 1, len = 0;
	if (!model_view_selected(v, run))
		return 0;
	while (j-- > 0 && CCP_ENTRY_CC(h[j]) != run)
		;
	if (j == UINT32_MAX)
		return 0;
	int gap = 0;
	for (uint32_t i = j; i < n - 1; i++) {
		uint32_t cc = CCP_ENTRY_CC(h[i]);
		gap |= i > j && !CCP_ENTRY_MARKED(h[i - 1]) && !CCP_ENTRY_MARKED(h[i]);
		if (!model_view_selected(v, cc))
			continue;
		if (gap)
			out[len++] = MODEL_GAP;
		if (gap || len == 0 || out[len - 1] != cc)
			out[len++] = cc;
		gap = 0;
	}
	while (len > 1 && out[len - 1] == out[0]) /* a d a, d deselected: one a */
		len--;
	uint32_t members = 0;
	for (uint32_t i = 0; i < len; i++)
		members += out[i] != MODEL_GAP && out[i] != out[0];
	*jp = j;
	return members ? len : 0;
}

/*
 * The least rotation of a[0..n) into out, in O(n): the two-candidate
 * scan (minimum expression).  Candidates i < j (or j < i) are compared
 * k items deep; at the first difference the larger one, and with it every
 * start within the k + 1 items it matched, cannot be least, so it jumps
 * past them.  Each step advances k or one candidate, and neither passes n,
 * so there are at most 3n comparisons.  A cycle can be as long as its
 * history (two items per entry): the quadratic search took a minute on a
 * 9 KB profile.
 */
void model_least_rotation(const uint32_t *a, uint32_t n, uint32_t *out)
{
	uint32_t i = 0, j = 1, k = 0;
	while (i < n && j < n && k < n) {
		uint32_t x = a[(i + k) % n], y = a[(j + k) % n];
		if (x == y) {
			k++;
			continue;
		}
		if (x > y)
			i += k + 1;
		else
			j += k + 1;
		if (i == j)
			j++;
		k = 0;
	}
	uint32_t best = i < j ? i : j;
	for (uint32_t r = 0; r < n; r++)
		out[r] = a[(best + r) % n];
}

/* The cycle keyed by b->rot[0 .. len), made if new. */
static struct cyc *cycle_get(struct model *m, struct cycles_build *b, uint32_t len)
{
	uint64_t h = htab_hash_words(b->rot, len);
	size_t i = htab_first(&b->tab, h);
	for (; b->tab.slot[i].item; i = htab_next(&b->tab, i)) {
		struct cyc *c = &b->c[b->tab.slot[i].item - 1];
		if (b->tab.slot[i].hash == h && c->key_len == len &&
		    memcmp(c->key, b->rot, len * sizeof *b->rot) == 0)
			return c;
	}
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->c = xrealloc(b->c, b->cap, sizeof *b->c);
	}
	struct cyc *c = &b->c[b->n];
	*c = (struct cyc){.key_len = len, .rep_j = UINT32_MAX, .first = b->n};
	c->key = model_calloc(m, len, sizeof *c->key);
	memcpy(c->key, b->rot, len * sizeof *b->rot);
	htab_put(&b->tab, i, h, b->n++);
	return c;
}

/* c shown as items[0 .. len), gaps and all; its room grows by doubling,
 * so that a long cycle closed ever earlier takes linear memory. */
static void cycle_show(struct model *m, struct cyc *c, const uint32_t *items, uint32_t len)
{
	if (len > c->items_cap) {
		c->items_cap = len > 2 * c->items_cap ? len : 2 * c->items_cap;
		c->items = model_calloc(m, c->items_cap, sizeof *c->items);
	}
	memcpy(c->items, items, len * sizeof *items);
	c->len = len;
}

/* The names of items[0 .. len) into out, gaps left out; their count. */
static uint32_t cycle_names(const uint32_t *items, uint32_t len, uint32_t *out)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < len; i++)
		if (items[i] != MODEL_GAP)
			out[n++] = items[i];
	return n;
}

static void cycles_find(struct model *m, struct cycles_build *b)
{
	uint32_t n = model_src_count(m);
	for (uint32_t k = 0; k < n; k++) {
		struct model_src s;
		uint32_t start, j;
		model_src_get(m, k, &s);
		if (model_view_place(m->view, s.hist, s.len, &start) == MODEL_NONE)
			continue;
		/* A cycle has at most one item per entry and a gap before
		 * each: up to 2 len items (cycle_items). */
		if (s.len > b->buf_cap / 2) {
			b->buf_cap = 2 * s.len;
			b->buf = xrealloc(b->buf, b->buf_cap, sizeof *b->buf);
			b->names = xrealloc(b->names, b->buf_cap, sizeof *b->names);
			b->rot = xrealloc(b->rot, b->buf_cap, sizeof *b->rot);
		}
		uint32_t len = cycle_items(m->view, s.hist, s.len, b->buf, &j);
		if (!len)
			continue;
		uint32_t nnames = cycle_names(b->buf, len, b->names);
		model_least_rotation(b->names, nnames, b->rot);
		struct cyc *c = cycle_get(m, b, nnames);
		c->entries += s.entries;
		if (j < c->rep_j) {
			c->rep_j = j;
			cycle_show(m, c, b->buf, len);
		}
	}
}

/*
 * Note [Candidate cycles]
 *
 * A cycle is in progress in a context when every member is marked there
 * and one of them is also unmarked.  Each context must find those cycles
 * without trying them all.  Two ways to list candidates, each holding
 * every cycle in progress:
 *
 *   - by member: the cycles of each CC unmarked in the context;
 *   - by pivot: the cycles whose pivot (the member in fewest cycles) is
 *     marked in the context.
 *
 * Each context takes the shorter list: the lengths are known before
 * walking either.  Many cycles sharing one member (N cycles (r_i x y), x
 * unmarked in each closing context) make the first list N long in every
 * context and the second 1; a cycle through every function makes the
 * second long and the first short.  A candidate is tried once (stamp),
 * against its distinct members, not its items: a cycle can hold the same
 * member thousands of times.  The cycles tried are a superset of those in
 * progress, so which list is used changes no result.
 */

/* mark[cc] bits for the CCs of the context being tried. */
enum { MARKED = 1, UNMARKED = 2, SEEN = 4 };

struct members {
	uint32_t *mstart, *mlist; /* cycle c's distinct members: mlist[mstart[c] .. mstart[c + 1]) */
	uint32_t *start, *list;   /* the cycles of each CC: list[start[cc] .. start[cc + 1]) */
	uint32_t *pstart, *plist; /* the cycles whose pivot is cc, likewise */
};

/* Is every member of cycle c marked, and one of them also unmarked? */
static int in_progress(const struct members *ix, uint32_t c, const uint8_t *mark)
{
	int unmarked = 0;
	for (uint32_t i = ix->mstart[c]; i < ix->mstart[c + 1]; i++) {
		uint8_t k = mark[ix->mlist[i]];
		if (!(k & MARKED))
			return 0;
		unmarked |= k & UNMARKED;
	}
	return unmarked;
}

/* A CSR index of n lists over nfns keys from the counts in start[1 ..]. */
static uint32_t *csr_fill(uint32_t *start, uint32_t nfns)
{
	for (uint32_t cc = 0; cc < nfns; cc++)
		start[cc + 1] += start[cc];
	return xnmalloc(start[nfns] ? start[nfns] : 1, sizeof(uint32_t));
}

static void members_index(const struct model *m, const struct cycles_build *b,
			  struct members *ix)
{
	uint32_t nfns = m->nfns, total = 0;
	uint32_t *seen = xcalloc(nfns ? nfns : 1, sizeof *seen);
	ix->mstart = xnmalloc((size_t)b->n + 1, sizeof *ix->mstart);
	for (uint32_t c = 0; c < b->n; c++)
		total += b->c[c].key_len;
	ix->mlist = xnmalloc(total ? total : 1, sizeof *ix->mlist);
	ix->start = xcalloc((size_t)nfns + 1, sizeof *ix->start);
	total = 0;
	for (uint32_t c = 0; c < b->n; c++) {
		ix->mstart[c] = total;
		for (uint32_t i = 0; i < b->c[c].key_len; i++) {
			uint32_t cc = b->c[c].key[i];
			if (seen[cc] == c + 1)
				continue;
			seen[cc] = c + 1;
			ix->mlist[total++] = cc;
			ix->start[cc + 1]++;
		}
	}
	ix->mstart[b->n] = total;
	free(seen);
	ix->list = csr_fill(ix->start, nfns);
	uint32_t *fill = xnmalloc(nfns ? nfns : 1, sizeof *fill);
	memcpy(fill, ix->start, nfns * sizeof *fill);
	for (uint32_t c = 0; c < b->n; c++)
		for (uint32_t i = ix->mstart[c]; i < ix->mstart[c + 1]; i++)
			ix->list[fill[ix->mlist[i]]++] = c;
	/* Pivots: the member in fewest cycles (the first such). */
	uint32_t *pivot = xnmalloc(b->n ? b->n : 1, sizeof *pivot);
	ix->pstart = xcalloc((size_t)nfns + 1, sizeof *ix->pstart);
	for (uint32_t c = 0; c < b->n; c++) {
		uint32_t best = ix->mlist[ix->mstart[c]];
		for (uint32_t i = ix->mstart[c] + 1; i < ix->mstart[c + 1]; i++) {
			uint32_t cc = ix->mlist[i];
			if (ix->start[cc + 1] - ix->start[cc] < ix->start[best + 1] - ix->start[best])
				best = cc;
		}
		pivot[c] = best;
		ix->pstart[best + 1]++;
	}
	ix->plist = csr_fill(ix->pstart, nfns);
	memcpy(fill, ix->pstart, nfns * sizeof *fill);
	for (uint32_t c = 0; c < b->n; c++)
		ix->plist[fill[pivot[c]]++] = c;
	free(pivot);
	free(fill);
}

static void members_free(struct members *ix)
{
	free(ix->mstart);
	free(ix->mlist);
	free(ix->start);
	free(ix->list);
	free(ix->pstart);
	free(ix->plist);
}

/*
 * Time and allocations of each cycle.  A cycle is in progress only in a
 * context where one of its members appears unmarked, so most contexts
 * (none unmarked) try none; the others try the candidates of Note
 * [Candidate cycles], each once (stamp).
 */
static void cycles_time(struct model *m, struct cycles_build *b)
{
	struct members ix;
	members_index(m, b, &ix);
	uint8_t *mark = xcalloc(m->nfns ? m->nfns : 1, 1);
	uint32_t *stamp = xcalloc(b->n ? b->n : 1, sizeof *stamp);
	uint32_t n = model_src_count(m);
	for (uint32_t k = 0; k < n; k++) {
		struct model_src s;
		uint32_t start, any = 0;
		model_src_get(m, k, &s);
		for (uint32_t i = 0; i < s.len; i++)
			any |= !CCP_ENTRY_MARKED(s.hist[i]);
		if (!any || model_view_place(m->view, s.hist, s.len, &start) == MODEL_NONE)
			continue;
		for (uint32_t i = 0; i < s.len; i++)
			mark[CCP_ENTRY_CC(s.hist[i])] |= CCP_ENTRY_MARKED(s.hist[i]) ? MARKED : UNMARKED;
		/* The length of each list of candidates, each CC counted once. */
		uint64_t by_member = 0, by_pivot = 0;
		for (uint32_t i = 0; i < s.len; i++) {
			uint32_t cc = CCP_ENTRY_CC(s.hist[i]);
			if (mark[cc] & SEEN)
				continue;
			mark[cc] |= SEEN;
			if (mark[cc] & UNMARKED)
				by_member += ix.start[cc + 1] - ix.start[cc];
			if (mark[cc] & MARKED)
				by_pivot += ix.pstart[cc + 1] - ix.pstart[cc];
		}
		const uint32_t *cstart = by_pivot < by_member ? ix.pstart : ix.start;
		const uint32_t *clist = by_pivot < by_member ? ix.plist : ix.list;
		uint8_t want = by_pivot < by_member ? MARKED : UNMARKED;
		for (uint32_t i = 0; i < s.len; i++) {
			uint32_t cc = CCP_ENTRY_CC(s.hist[i]);
			if (!(mark[cc] & SEEN) || !(mark[cc] & want))
				continue;
			mark[cc] &= (uint8_t)~SEEN; /* each CC's list once */
			for (uint32_t j = cstart[cc]; j < cstart[cc + 1]; j++) {
				uint32_t c = clist[j];
				if (stamp[c] == k + 1)
					continue;
				stamp[c] = k + 1;
				if (in_progress(&ix, c, mark)) {
					b->c[c].time += s.time;
					model_alloc_add(&b->c[c].alloc, s.alloc);
				}
			}
		}
		for (uint32_t i = 0; i < s.len; i++)
			mark[CCP_ENTRY_CC(s.hist[i])] = 0;
	}
	free(stamp);
	free(mark);
	members_free(&ix);
}

static int cmp_cyc(const void *pa, const void *pb)
{
	const struct cyc *a = pa, *b = pb;
	if (a->time != b->time)
		return a->time > b->time ? -1 : 1;
	if (a->entries != b->entries)
		return a->entries > b->entries ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

void model_cycles(struct model *m)
{
	struct cycles_build b = {.n = 0};
	htab_init(&b.tab, 16);
	cycles_find(m, &b);
	cycles_time(m, &b);
	htab_free(&b.tab);
	free(b.buf);
	free(b.names);
	free(b.rot);
	if (b.n > 1)
		qsort(b.c, b.n, sizeof *b.c, cmp_cyc);
	m->cycles = model_calloc(m, b.n ? b.n : 1, sizeof *m->cycles);
	for (uint32_t i = 0; i < b.n; i++)
		m->cycles[i] = (struct model_cycle){b.c[i].len, b.c[i].items, b.c[i].entries,
						    b.c[i].time, b.c[i].alloc};
	m->ncycles = b.n;
	m->cycles_done = 1;
	free(b.c);
}
