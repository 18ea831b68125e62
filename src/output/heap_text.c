/*
 * heap_text.c - `ccprof report --heap`: the live heap of a heap profile
 * (model/heap.h, Note [The live heap as a cost]) as text.  A header (the
 * peak, the live heap at the end, the samples), then the live heap at the
 * end by function (self and inherited, as the time report's tables) and
 * by stack (what a leak checker lists as in use at exit, by where it was
 * allocated), and the largest sample by stack.  The column helpers are
 * text.c's; percentages are of the bytes in the view's contexts, as
 * %alloc is.
 */
#include "output/heap_text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/view.h"
#include "model/xalloc.h"
#include "output/escape.h"
#include "output/text.h"

#define ARROW " \xe2\x86\x92 " /* U+2192, between the names of a stack */

/* ---- header ------------------------------------------------------------- */

/* "N bytes in M blocks", and on the next line the part in no context
 * when there is one. */
static void header_live(const struct text *t, const struct model *live)
{
	struct model_alloc outside = model_alloc_outside(live);
	ob_puts(t->o, "    live at end  ");
	text_bytes_blocks(t->o, model_alloc_total(live));
	if (outside.bytes || outside.blocks) {
		ob_puts(t->o, "\n                 (");
		text_bytes_blocks(t->o, outside);
		ob_puts(t->o, " allocated in no context,\n                 and not in %live)");
	}
	ob_putc(t->o, '\n');
}

static void header_samples(const struct text *t, const struct heap_report *h)
{
	const struct ccp_heap *heap = &h->m->prof->heap;
	ob_printf(t->o, "    samples      %" PRIu32 ", every %g ms", heap->nsamples,
		  (double)heap->interval_ns / 1e6);
	if (h->sample) {
		const struct ccp_heap_sample *s = &heap->samples[h->sample_index];
		ob_puts(t->o, "; the largest at ");
		ob_ratio(t->o, s->time_ns, 1000000000u, 0, 6, 0);
		ob_puts(t->o, " s: ");
		ob_u64(t->o, model_alloc_total(h->sample).bytes, 0);
		ob_puts(t->o, " bytes");
	}
	ob_putc(t->o, '\n');
}

/* The view's focus and selection, and its share of the live heap in
 * contexts when it has less: the time report's view lines with the live
 * heap for the time (its time and bytes allocated are not this report's
 * subject). */
static void header_view(const struct text *t, const struct model *live)
{
	const struct model *base = live->base;
	text_view_sets(t);
	if (!base || live->total_alloc.bytes == base->total_alloc.bytes)
		return;
	ob_puts(t->o, "    of live      ");
	ob_u64(t->o, live->total_alloc.bytes, 0);
	ob_puts(t->o, " of ");
	ob_u64(t->o, base->total_alloc.bytes, 0);
	ob_puts(t->o, " bytes live at end in contexts (");
	ob_ratio(t->o, live->total_alloc.bytes, base->total_alloc.bytes, 2, 1, 0);
	ob_puts(t->o, "%); percentages below are of the view's total\n");
}

static void header(const struct text *t, const struct heap_report *h)
{
	const struct ccp_profile *p = h->m->prof;
	struct ob *o = t->o;
	text_title(o, p, "ccprof heap profile");
	ob_printf(o, "\n    peak         %" PRIu64 " bytes, the most the live heap held\n",
		  p->heap.peak_bytes);
	if (p->stats.untracked_allocs) /* Note [A table without memory] in heap.c */
		ob_printf(o, "    untracked    %" PRIu64 " " TEXT_UNTRACKED_WHY "\n",
			  p->stats.untracked_allocs);
	header_live(t, h->live);
	header_samples(t, h);
	header_view(t, h->live);
	ob_putc(o, '\n');
}

/* ---- by function -------------------------------------------------------- */

struct fn_key {
	struct model_alloc self, inherited;
	const char *name;
	uint32_t cc;
};

static int cmp_fn_key(const void *pa, const void *pb)
{
	const struct fn_key *a = pa, *b = pb;
	if (a->self.bytes != b->self.bytes)
		return a->self.bytes > b->self.bytes ? -1 : 1;
	if (a->inherited.bytes != b->inherited.bytes)
		return a->inherited.bytes > b->inherited.bytes ? -1 : 1;
	if (a->self.blocks != b->self.blocks)
		return a->self.blocks > b->self.blocks ? -1 : 1;
	int c = strcmp(a->name, b->name);
	return c ? c : (a->cc > b->cc) - (a->cc < b->cc);
}

/* The functions of m holding any live heap (inherited), most self bytes
 * first; returns how many. */
static uint32_t fn_order(const struct model *m, struct fn_key **out)
{
	struct fn_key *keys = xnmalloc(m->nfns ? m->nfns : 1, sizeof *keys);
	uint32_t n = 0;
	for (uint32_t cc = 0; cc < m->nfns; cc++) {
		const struct model_fn *fn = &m->fns[cc];
		if (fn->seen && (fn->inherited_alloc.bytes || fn->inherited_alloc.blocks))
			keys[n++] = (struct fn_key){fn->self_alloc, fn->inherited_alloc, fn->name, cc};
	}
	qsort(keys, n, sizeof *keys, cmp_fn_key);
	*out = keys;
	return n;
}

/* "%live  bytes  blocks" of a cost, in columns bw and kw wide. */
static void live_cols(const struct text *t, struct model_alloc a, int bw, int kw)
{
	text_alloc_pct(t, a.bytes);
	ob_spaces(t->o, 2);
	ob_u64(t->o, a.bytes, bw);
	ob_spaces(t->o, 2);
	ob_u64(t->o, a.blocks, kw);
}

/* The live heap of t->m by function, self and inherited. */
static void fn_table(const struct text *t, unsigned top)
{
	struct fn_key *keys;
	uint32_t all = fn_order(t->m, &keys), n = top && top < all ? top : all;
	size_t widest = 0;
	uint64_t max_bytes = 0, max_blocks = 0;
	for (uint32_t i = 0; i < n; i++) {
		widest = t->names.width[keys[i].cc] > widest ? t->names.width[keys[i].cc] : widest;
		max_bytes = keys[i].inherited.bytes > max_bytes ? keys[i].inherited.bytes : max_bytes;
		max_blocks = keys[i].inherited.blocks > max_blocks ? keys[i].inherited.blocks
								   : max_blocks;
	}
	size_t nw = text_name_col(widest, "COST CENTRE");
	int bw = text_max(text_udigits(max_bytes), 5), kw = text_max(text_udigits(max_blocks), 6);
	ob_printf(t->o, "Live at end by function, most self bytes first (%" PRIu32 " of %" PRIu32
			" holding any)\n\n", n, all);
	if (all == 0) { /* no table of headings alone */
		free(keys);
		return;
	}
	ob_spaces(t->o, nw + 1);
	ob_printf(t->o, "  %-*s  %s\n", 6 + 2 + bw + 2 + kw, "self", "inherited");
	text_label(t, "COST CENTRE", 0, nw);
	ob_printf(t->o, "%6s  %*s  %*s  %6s  %*s  %*s\n", "%live", bw, "bytes", kw, "blocks",
		  "%live", bw, "bytes", kw, "blocks");
	for (uint32_t i = 0; i < n; i++) {
		text_name(t, keys[i].cc, 0, nw);
		live_cols(t, keys[i].self, bw, kw);
		ob_spaces(t->o, 2);
		live_cols(t, keys[i].inherited, bw, kw);
		ob_putc(t->o, '\n');
	}
	ob_putc(t->o, '\n');
	free(keys);
}

/* ---- by stack ----------------------------------------------------------- */

struct stack_key {
	struct model_alloc a;
	uint32_t node;
};

static int cmp_stack_key(const void *pa, const void *pb)
{
	const struct stack_key *a = pa, *b = pb;
	if (a->a.bytes != b->a.bytes)
		return a->a.bytes > b->a.bytes ? -1 : 1;
	if (a->a.blocks != b->a.blocks)
		return a->a.blocks > b->a.blocks ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

/* The stack of node k, bottom first; the root's is "<root>". */
static void stack_names(const struct text *t, uint32_t k)
{
	const struct model *m = t->m;
	uint32_t depth = m->nodes[k].depth, *path;
	if (k == 0) {
		ob_puts(t->o, "<root>");
		return;
	}
	path = xnmalloc(depth, sizeof *path);
	for (uint32_t d = depth; d-- > 0; k = m->nodes[k].parent)
		path[d] = m->nodes[k].cc;
	for (uint32_t d = 0; d < depth; d++) {
		if (d)
			ob_puts(t->o, ARROW);
		names_put(t->o, &t->names, path[d]);
	}
	free(path);
}

/* The stacks of t->m's tree that hold any live heap, most bytes first,
 * under a title line that ends where the counts go, and a note
 * (pruning does not apply: this is a list, not a tree); with_blocks for
 * the live heap at the end (a sample has bytes only). */
static void stack_table(const struct text *t, unsigned top, int with_blocks, const char *title,
			const char *note)
{
	const struct model *m = t->m;
	struct stack_key *keys = xnmalloc(m->nnodes ? m->nnodes : 1, sizeof *keys);
	uint32_t all = 0, n;
	uint64_t max_bytes = 0, max_blocks = 0;
	for (uint32_t k = 0; k < m->nnodes; k++) {
		struct model_alloc a = model_node_alloc_at(m->node_alloc, k).individual;
		if (a.bytes || a.blocks)
			keys[all++] = (struct stack_key){a, k};
	}
	qsort(keys, all, sizeof *keys, cmp_stack_key);
	n = top && top < all ? top : all;
	for (uint32_t i = 0; i < n; i++) {
		max_bytes = keys[i].a.bytes > max_bytes ? keys[i].a.bytes : max_bytes;
		max_blocks = keys[i].a.blocks > max_blocks ? keys[i].a.blocks : max_blocks;
	}
	int bw = text_max(text_udigits(max_bytes), 5), kw = text_max(text_udigits(max_blocks), 6);
	ob_printf(t->o, "%s (%" PRIu32 " of %" PRIu32 " holding any)\n%s\n", title, n, all, note);
	if (all == 0) {
		free(keys);
		return;
	}
	ob_printf(t->o, "%*s  %6s  ", bw, "bytes", "%live");
	if (with_blocks)
		ob_printf(t->o, "%*s  ", kw, "blocks");
	ob_puts(t->o, "stack (bottom first)\n");
	for (uint32_t i = 0; i < n; i++) {
		ob_u64(t->o, keys[i].a.bytes, bw);
		ob_spaces(t->o, 2);
		text_alloc_pct(t, keys[i].a.bytes);
		ob_spaces(t->o, 2);
		if (with_blocks) {
			ob_u64(t->o, keys[i].a.blocks, kw);
			ob_spaces(t->o, 2);
		}
		stack_names(t, keys[i].node);
		ob_putc(t->o, '\n');
	}
	ob_putc(t->o, '\n');
	free(keys);
}

/* ---- threads and the largest sample --------------------------------------- */

/* --threads: each thread's live heap at the end, and its functions. */
static void threads(const struct text *t, unsigned top)
{
	const struct model *all = t->m;
	ob_printf(t->o, "Threads: %" PRIu32 ", each with its live heap at the end\n\n",
		  all->nthread_models);
	for (uint32_t i = 0; i < all->nthread_models; i++) {
		const struct ccp_thread *th = &all->prof->threads[i];
		struct model_thread one; /* Note [One thread model at a time] */
		struct text sub = *t; /* same stream and names, the thread's totals */
		model_thread_build(&one, all, i);
		sub.m = &one.m;
		ob_printf(t->o, "thread %" PRIu32 "  ", i + 1);
		escape_puts(t->o, &escape_text, th->name && th->name[0] ? th->name : "(unnamed)");
		ob_printf(t->o, "  tid %" PRIu64 "  live ", th->tid);
		text_bytes_blocks(t->o, sub.m->total_alloc);
		ob_puts(t->o, " (");
		ob_ratio(t->o, sub.m->total_alloc.bytes, all->total_alloc.bytes, 2, 1, 0);
		ob_puts(t->o, "%)\n");
		fn_table(&sub, top);
		model_thread_free(&one);
	}
}

static void largest_sample(const struct text *t, const struct heap_report *h, unsigned top)
{
	const struct ccp_heap_sample *s = &h->m->prof->heap.samples[h->sample_index];
	struct model_alloc outside = model_alloc_outside(h->sample);
	struct text sub = *t;
	char title[96], note[160] = "";
	sub.m = h->sample;
	uint64_t us = s->time_ns / 1000u + (s->time_ns % 1000u >= 500); /* as ob_ratio rounds */
	snprintf(title, sizeof title, "Largest sample by stack, at %" PRIu64 ".%06" PRIu64 " s",
		 us / 1000000u, us % 1000000u);
	if (outside.bytes)
		snprintf(note, sizeof note, "(and %" PRIu64 " bytes allocated in no context, not in "
			 "%%live)\n", outside.bytes);
	stack_table(&sub, top, 0, title, note);
}

int heap_text(FILE *f, const struct heap_report *h, const struct report_opts *o)
{
	struct text t;
	text_begin(&t, f, h->live);
	header(&t, h);
	fn_table(&t, o->top);
	stack_table(&t, o->top, 1, "Live at end by stack, most bytes first",
		    "The bytes allocated under each compressed stack (as in the stack tree)\n"
		    "and not freed when the profile was written.\n");
	if (h->live->nthread_models)
		threads(&t, o->top);
	if (h->sample)
		largest_sample(&t, h, o->top);
	return text_end(&t);
}
