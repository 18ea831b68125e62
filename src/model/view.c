/*
 * view.c - the model a view shows (view.h): each base context kept, cut
 * and reduced, equal results added up, then the ordinary passes.
 *
 * Why a whole model: every pass and every writer then works unchanged on
 * a view, and the definitions under a selection (docs/semantics.md, "The
 * views") fall out of the ordinary ones applied to the reduced stacks.
 * With b deselected in Morgan & Jarvis's example (docs/views.md,
 * "Selection"):
 *
 *   base context   compressed   view history   T    E counts
 *   [a]            ⟨a⟩          [a]            20   yes
 *   [a] [b]        ⟨b,a⟩        [a]            10   no (b runs)
 *   [a] [c]        ⟨c,a⟩        [a] [c]        10   yes
 *   [a] [b] [c]    ⟨c,b,a⟩      [a] [c]        50   yes
 *
 * so the view has [a] ↦ 30 and [a] [c] ↦ 60: self (COST) a = 30, c = 60;
 * inherited (INHERITED) a = 90, c = 60; one arc a→c.  Allocations move
 * with the time, context by context (Note [Allocation as a cost]).
 *
 * Note [The thread root of a reduced stack]: a history starts with its
 * thread's root (its first function: docs/views.md, "Selection"), which
 * every selection keeps; its reduced stack starts there too, unless the
 * root was entered again.  Then its first entry is unmarked, and
 * main → b → c → main, `main [b] [c] [main]`, would reduce to [c] [main]
 * with b deselected: a stack that starts at c as if c were a thread root.
 * The arc pass would give c a spontaneous arc with this time and no
 * calls, and the exports that read a called function's inclusive cost as
 * the sum of the costs on the calls into it would lose that time
 * (callgrind_annotate skips a call line with calls=0; dot draws no
 * spontaneous arc).  So the view keeps the root in front, unmarked, as a
 * rerun without b would have it: `main [c] [main]`.
 * An unmarked entry is not active: COST, INHERITED, entries and the stack
 * tree stay those of the reduced stack [c] [main]; only c's incoming arc
 * changes, from "spontaneous" to main → c, which the rerun shows too.
 * (With a focus the stack starts at a focused entry, marked, and nothing
 * is added.)
 */
#include "model/view.h"

#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"

/* The first marked focused entry of h, or MODEL_NONE. */
static uint32_t focus_start(const struct model_view *v, const uint32_t *h, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (CCP_ENTRY_MARKED(h[i]) && v->focus[CCP_ENTRY_CC(h[i])])
			return i;
	return MODEL_NONE;
}

uint32_t model_view_history(const struct model_view *v, const uint32_t *h, uint32_t n,
			    uint32_t *out, int *calls)
{
	uint32_t start = 0, len = 0;
	*calls = 1;
	if (!v) {
		if (n)
			memcpy(out, h, n * sizeof *h);
		return n;
	}
	if (v->focus) {
		start = focus_start(v, h, n);
		if (start == MODEL_NONE)
			return MODEL_NONE;
	}
	if (!v->selected) {
		if (n > start)
			memcpy(out, h + start, (n - start) * sizeof *h);
		return n - start;
	}
	/* Note [The thread root of a reduced stack]: room for it in out[0]
	 * when h[0] is unmarked (then it is not among the reduced entries). */
	uint32_t root = start == 0 && n > 0 && !CCP_ENTRY_MARKED(h[0]) ? CCP_ENTRY_CC(h[0])
									: MODEL_NONE;
	len = root != MODEL_NONE;
	for (uint32_t i = start; i < n; i++) {
		uint32_t cc = CCP_ENTRY_CC(h[i]);
		if (CCP_ENTRY_MARKED(h[i]) && v->selected[cc])
			out[len++] = CCP_ENTRY(cc, 1);
	}
	if (root != MODEL_NONE) {
		if (len > 1 && CCP_ENTRY_CC(out[1]) != root)
			out[0] = CCP_ENTRY(root, 0);
		else if (--len)
			memmove(out, out + 1, len * sizeof *out);
	}
	*calls = n == 0 || v->selected[CCP_ENTRY_CC(h[n - 1])];
	return len;
}

uint32_t model_view_place(const struct model_view *v, const uint32_t *h, uint32_t n,
			  uint32_t *start)
{
	*start = 0;
	if (n == 0)
		return MODEL_NONE;
	if (v && v->focus && (*start = focus_start(v, h, n)) == MODEL_NONE)
		return MODEL_NONE;
	if (!v || !v->selected)
		return n - 1;
	for (uint32_t i = n; i-- > *start;)
		if (CCP_ENTRY_MARKED(h[i]) && v->selected[CCP_ENTRY_CC(h[i])])
			return i;
	return MODEL_NONE; /* cannot happen: the root or the focus is selected */
}

uint32_t model_src_count(const struct model *m)
{
	const struct model *base = m->base ? m->base : m;
	if (m->view && m->view->thread != MODEL_NONE)
		return m->prof->threads[m->view->thread].ncontexts;
	return base->nctx;
}

void model_src_get(const struct model *m, uint32_t k, struct model_src *s)
{
	const struct model *base = m->base ? m->base : m;
	const struct ccp_context *c = m->view && m->view->thread != MODEL_NONE
					      ? &m->prof->threads[m->view->thread].contexts[k]
					      : &base->ctx[k];
	*s = (struct model_src){c->hist, c->len, c->entries, c->recursive, c->time,
				model_ctx_alloc(c)};
}

struct model_alloc model_alloc_outside(const struct model *m)
{
	if (!m->prof || (m->view && m->view->focus))
		return (struct model_alloc){0, 0};
	return (struct model_alloc){m->prof->alloc.outside_bytes, m->prof->alloc.outside_blocks};
}

struct model_alloc model_alloc_total(const struct model *m)
{
	struct model_alloc total = m->total_alloc;
	model_alloc_add(&total, model_alloc_outside(m));
	return total;
}

/* ---- building ------------------------------------------------------------ */

struct view_build {
	struct htab tab;  /* view history -> context */
	uint32_t cap;     /* of m->ctx */
	uint32_t first_cap; /* its first size: at most the contexts to add */
	uint32_t *buf;    /* one view history */
	uint32_t buf_cap;
};

/* The view's context with history h[0..n), created (and h copied into
 * the arena) if new. */
static struct ccp_context *view_ctx(struct model *m, struct view_build *b, const uint32_t *h,
				    uint32_t n)
{
	uint64_t hash;
	size_t i;
	uint32_t k = model_ctx_find(m, &b->tab, h, n, &hash, &i);
	if (k != MODEL_NONE)
		return &m->own_ctx[k];
	if (m->nctx == b->cap) {
		b->cap = b->cap ? 2 * b->cap : b->first_cap;
		m->ctx = m->own_ctx = xrealloc(m->own_ctx, b->cap, sizeof *m->own_ctx);
	}
	uint32_t *copy = model_calloc(m, n ? n : 1, sizeof *copy);
	if (n)
		memcpy(copy, h, n * sizeof *h);
	m->own_ctx[m->nctx] = (struct ccp_context){.hist = copy, .len = n};
	htab_put(&b->tab, i, hash, m->nctx);
	return &m->own_ctx[m->nctx++];
}

static void view_add(struct model *m, struct view_build *b, const struct model_view *v,
		     const struct model_src *s)
{
	if (s->len > b->buf_cap) {
		b->buf_cap = 2 * s->len;
		b->buf = xrealloc(b->buf, b->buf_cap, sizeof *b->buf);
	}
	int calls;
	uint32_t len = model_view_history(v, s->hist, s->len, b->buf, &calls);
	if (len == MODEL_NONE)
		return;
	struct ccp_context *x = view_ctx(m, b, b->buf, len);
	x->entries += calls ? s->entries : 0;
	x->recursive += calls ? s->recursive : 0;
	x->time += s->time;
	x->alloc_bytes += s->alloc.bytes;
	x->alloc_blocks += s->alloc.blocks;
}

void model_names_like(struct model *m, const struct model *like)
{
	for (uint32_t cc = 0; cc < m->nfns && cc < like->nfns; cc++) {
		m->fns[cc].name = like->fns[cc].name;
		m->fns[cc].full = like->fns[cc].full;
		m->fns[cc].demangled = like->fns[cc].demangled;
	}
}

/* Names, the profile and the seen flags come from the base model. */
static void view_init(struct model *m, const struct model *base, const struct model_view *v)
{
	model_init(m, base->prof, base->nfns);
	m->base = base;
	m->view = v;
	model_names_like(m, base);
}

/* What model_merge computes after merging: seen flags and totals. */
static void view_totals(struct model *m)
{
	for (uint32_t k = 0; k < m->nctx; k++) {
		const struct ccp_context *x = &m->ctx[k];
		for (uint32_t i = 0; i < x->len; i++)
			m->fns[CCP_ENTRY_CC(x->hist[i])].seen = 1;
	}
	model_totals(m);
}

/* The whole base model: its contexts as they are, borrowed (Note
 * [Borrowed contexts]; the base outlives the view). */
static void view_borrow(struct model *m, const struct model *base)
{
	m->nctx = base->nctx;
	m->ctx = base->ctx;
}

/* The base contexts (one thread's, for a thread view) through the view;
 * m->base and m->view are set (view_init). */
static void view_contexts(struct model *m, const struct model_view *v)
{
	/* Sized by the contexts to add, not by the base's: a thread's view
	 * may have one context of the base's 50,000 (model_threads). */
	uint32_t n = model_src_count(m);
	struct view_build b = {.cap = 0, .first_cap = n < 256 ? (n ? n : 1) : 256};
	htab_init(&b.tab, n);
	for (uint32_t k = 0; k < n; k++) {
		struct model_src s;
		model_src_get(m, k, &s);
		view_add(m, &b, v, &s);
	}
	htab_free(&b.tab);
	free(b.buf);
}

void model_view_build(struct model *m, const struct model *base, const struct model_view *v,
		      unsigned passes)
{
	view_init(m, base, v);
	if (!v || (!v->focus && !v->selected && v->thread == MODEL_NONE))
		view_borrow(m, base);
	else
		view_contexts(m, v);
	view_totals(m);
	model_passes(m, passes);
}
