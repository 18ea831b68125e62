/*
 * views_text.c - the text sections of the views after the run: what the
 * view is (header lines), the hot path, callers trees, cycles, the
 * per-thread breakdown and the hooks' cost.  Each reads what its model pass produced.
 */
#include <inttypes.h>
#include <string.h>

#include "model/view.h"
#include "output/escape.h"
#include "output/report.h"
#include "output/text.h"

#define ARROW " \xe2\x86\x92 " /* U+2192 */
#define VIEW_LIST_MAX 8         /* names listed in the header, then "N more" */

/* ---- header ------------------------------------------------------------- */

/* Up to VIEW_LIST_MAX names of seen CCs with set[cc] == want. */
static void name_list(const struct text *t, const struct model *base, const uint8_t *set,
		      int want)
{
	uint32_t shown = 0, more = 0;
	for (uint32_t cc = 0; cc < base->nfns; cc++) {
		if (!base->fns[cc].seen || !set[cc] != !want)
			continue;
		if (shown == VIEW_LIST_MAX) {
			more++;
			continue;
		}
		ob_puts(t->o, shown++ ? ", " : "");
		names_put(t->o, &t->names, cc);
	}
	if (more)
		ob_printf(t->o, " and %" PRIu32 " more", more);
}

static uint32_t count_set(const struct model *base, const uint8_t *set)
{
	uint32_t n = 0;
	for (uint32_t cc = 0; cc < base->nfns; cc++)
		n += base->fns[cc].seen && set[cc];
	return n;
}

void text_view_sets(const struct text *t)
{
	const struct model *m = t->m, *base = m->base;
	const struct model_view *v = m->view;
	struct ob *o = t->o;
	if (!v || !base)
		return;
	if (v->focus) {
		ob_puts(o, "    focus        ");
		name_list(t, base, v->focus, 1);
		ob_putc(o, '\n');
	}
	if (v->selected) {
		uint32_t seen = 0;
		for (uint32_t cc = 0; cc < base->nfns; cc++)
			seen += base->fns[cc].seen != 0;
		ob_printf(o, "    selection    %" PRIu32 " of %" PRIu32 " cost centres; deselected: ",
			  count_set(base, v->selected), seen);
		name_list(t, base, v->selected, 0);
		ob_puts(o, "\n                 (their costs go to the nearest selected caller)\n");
	}
}

void text_view_header(const struct text *t)
{
	const struct model *m = t->m, *base = m->base;
	struct ob *o = t->o;
	if (!m->view || !base)
		return;
	text_view_sets(t);
	if (m->total_time != base->total_time) {
		ob_puts(o, "    of profile   ");
		text_secs(t, m->total_time, 0);
		ob_puts(o, " of ");
		text_secs(t, base->total_time, 0);
		ob_puts(o, " secs (");
		ob_ratio(o, m->total_time, base->total_time, 2, 1, 0);
		ob_puts(o, "%); percentages below are of the view's total\n");
	}
	if (t->alloc && m->total_alloc.bytes != base->total_alloc.bytes) {
		ob_puts(o, "    of alloc     ");
		ob_u64(o, m->total_alloc.bytes, 0);
		ob_puts(o, " of ");
		ob_u64(o, base->total_alloc.bytes, 0);
		ob_puts(o, " bytes allocated in contexts (");
		ob_ratio(o, m->total_alloc.bytes, base->total_alloc.bytes, 2, 1, 0);
		ob_puts(o, "%)\n");
	}
}

/* ---- hot path ----------------------------------------------------------- */

void text_hot(const struct text *t)
{
	const struct model *m = t->m;
	struct ob *o = t->o;
	ob_puts(o, "Hot path: the most expensive single context, and the expensive arm of\n"
		   "the stack tree (from the root, the child with the most inherited time,\n"
		   "while it holds at least half of its parent's).\n\n");
	if (m->ctx_by_time && m->nctx) {
		const struct ccp_context *c = &m->ctx[m->ctx_by_time[0]];
		ob_puts(o, "most expensive context  ");
		text_secs(t, c->time, 0);
		ob_puts(o, " secs ");
		text_pct(t, c->time);
		ob_puts(o, "%  ");
		if (t->alloc) { /* and what it allocated: bytes and %alloc */
			ob_u64(o, c->alloc_bytes, 0);
			ob_puts(o, c->alloc_bytes == 1 ? " byte " : " bytes ");
			text_alloc_pct(t, c->alloc_bytes);
			ob_puts(o, "%  ");
		}
		text_history(t, c->hist, c->len);
		ob_putc(o, '\n');
	}
	size_t widest = 0;
	for (uint32_t i = 0; i < m->narm; i++) {
		size_t w = text_indent(i) + text_name_width(t, m->nodes[m->arm[i]].cc);
		widest = w > widest ? w : widest;
	}
	size_t nw = text_name_col(widest, "expensive arm");
	int sw = text_secs_width(t, m->total_time, "secs");
	ob_putc(o, '\n');
	text_label(t, "expensive arm", 0, nw);
	text_pct_alloc_heads(t, sw);
	for (uint32_t i = 0; i < m->narm; i++) {
		const struct model_node *x = &m->nodes[m->arm[i]];
		text_name(t, x->cc, text_indent(i), nw);
		text_pct_alloc_secs(t, x->inherited,
				    model_node_alloc_at(m->node_alloc, m->arm[i]).inherited.bytes, sw);
		ob_putc(o, '\n');
	}
	if (m->narm == 0)
		ob_puts(o, "(none: no stack holds half of the time)\n");
	ob_putc(o, '\n');
}

/* ---- callers ------------------------------------------------------------ */

struct callers_cols {
	const struct text *t;
	const struct model_tree *tree;
	size_t nw;
	int cw, sw;
};

/* A node's line after its name, or its "(n hidden)" line's (text_row). */
static void callers_row(void *arg, uint32_t k, const struct model_hidden *h)
{
	const struct callers_cols *c = arg;
	struct model_node_alloc a = model_node_alloc_at(c->tree->node_alloc, k);
	ob_u64(c->t->o, h ? h->entries : c->tree->calls[k], c->cw);
	ob_spaces(c->t->o, 2);
	text_pct_alloc_secs(c->t, h ? h->time : c->tree->nodes[k].inherited,
			    h ? h->alloc.bytes : a.inherited.bytes, c->sw);
	ob_putc(c->t->o, '\n');
}

static void callers_tree(const struct text *t, const struct model_tree *tree)
{
	const struct model_pruned *pr = &tree->pruned;
	size_t widest = text_tree_widest(t, tree->nodes, tree->nnodes, pr, NULL);
	struct callers_cols c = {
		.t = t,
		.tree = tree,
		.nw = text_name_col(widest, "CALLED FROM"),
		.cw = text_max(text_udigits(tree->calls[0]), 5),
		.sw = text_secs_width(t, tree->nodes[0].inherited, "secs"),
	};
	text_label(t, "CALLED FROM", 0, c.nw);
	ob_printf(t->o, "%*s  ", c.cw, "calls");
	text_pct_alloc_heads(t, c.sw);
	text_tree_lines(t, tree->nodes, pr, c.nw, callers_row, &c);
	ob_putc(t->o, '\n');
}

void text_callers(const struct text *t)
{
	const struct model *m = t->m;
	ob_puts(t->o, "Callers: each function's calls and self time, traced back through who\n"
		      "called it, their callers, and so on, along the real call chains of the\n"
		      "histories (" TEXT_ELLIPSIS " marks a path the profiler elided).  A line shows the\n"
		      "calls and self time of the function at the top that came that way");
	ob_puts(t->o, t->alloc ? ",\nand the share of all bytes allocated that it allocated itself.\n\n"
			       : ".\n\n");
	for (uint32_t i = 0; i < m->ncallers; i++)
		callers_tree(t, &m->callers[i]);
}

/* ---- cycles ------------------------------------------------------------- */

static void cycle_items(const struct text *t, const struct model_cycle *c)
{
	for (uint32_t i = 0; i <= c->len; i++) {
		uint32_t cc = c->items[i % c->len];
		if (i)
			ob_puts(t->o, ARROW);
		if (cc == MODEL_GAP)
			ob_puts(t->o, TEXT_ELLIPSIS);
		else
			names_put(t->o, &t->names, cc);
	}
}

void text_cycles(const struct text *t)
{
	const struct model *m = t->m;
	struct ob *o = t->o;
	uint64_t max_e = 0;
	for (uint32_t i = 0; i < m->ncycles; i++)
		max_e = m->cycles[i].entries > max_e ? m->cycles[i].entries : max_e;
	int sw = text_secs_width(t, m->total_time, "secs");
	int ew = text_max(text_udigits(max_e), 7);
	ob_puts(o, "Cycles of recursion that ran (Spivey): each once, in call order from\n"
		   "where it was entered, " TEXT_ELLIPSIS " where a path was elided.  Time: while the\n"
		   "recursion was in progress; entries: how often the cycle closed");
	ob_puts(o, t->alloc ? ";\n%alloc: the share of all bytes that was allocated while it was in progress.\n\n"
			    : ".\n\n");
	if (m->ncycles == 0) {
		ob_puts(o, "(none)\n\n");
		return;
	}
	ob_printf(o, "%*s  %6s  ", sw, "secs", "%time");
	if (t->alloc)
		ob_printf(o, "%6s  ", "%alloc");
	ob_printf(o, "%*s  %s\n", ew, "entries", "cycle");
	for (uint32_t i = 0; i < m->ncycles; i++) {
		const struct model_cycle *c = &m->cycles[i];
		text_secs_pct(t, c->time, sw);
		ob_spaces(o, 2);
		if (t->alloc) {
			text_alloc_pct(t, c->alloc.bytes);
			ob_spaces(o, 2);
		}
		ob_u64(o, c->entries, ew);
		ob_spaces(o, 2);
		cycle_items(t, c);
		ob_putc(o, '\n');
	}
	ob_putc(o, '\n');
}

/* ---- threads ------------------------------------------------------------ */

void text_threads(const struct text *t, const struct report_opts *opts)
{
	const struct model *m = t->m;
	const struct ccp_profile *p = m->prof;
	struct ob *o = t->o;
	ob_printf(o, "Threads: %" PRIu32 ", each with its own totals and top cost centres\n\n",
		  m->nthread_models);
	for (uint32_t i = 0; i < m->nthread_models; i++) {
		struct model_thread one; /* Note [One thread model at a time] */
		model_thread_build(&one, m, i);
		const struct model *tm = &one.m;
		const struct ccp_thread *th = &p->threads[i];
		struct text sub = *t; /* same stream and names, the thread's totals */
		sub.m = tm;
		ob_printf(o, "thread %" PRIu32 "  ", i + 1);
		escape_puts(o, &escape_text, th->name && th->name[0] ? th->name : "(unnamed)");
		ob_printf(o, "  tid %" PRIu64 "  total ", th->tid);
		text_secs(t, tm->total_time, 0);
		ob_puts(o, " secs (");
		ob_ratio(o, tm->total_time, m->total_time, 2, 1, 0);
		ob_printf(o, "%%)  calls %" PRIu64, tm->total_calls);
		if (t->alloc) {
			ob_puts(o, "  alloc ");
			ob_u64(o, tm->total_alloc.bytes, 0);
			ob_puts(o, " bytes (");
			ob_ratio(o, tm->total_alloc.bytes, m->total_alloc.bytes, 2, 1, 0);
			ob_putc(o, '%');
			ob_putc(o, ')');
		}
		ob_putc(o, '\n');
		if (tm->by_self)
			text_flat(&sub, opts);
		else
			ob_putc(o, '\n');
		model_thread_free(&one);
	}
}

/* ---- hook cost ---------------------------------------------------------- */

static void hook_cost_flags(const struct text *t, const struct model_hook_cost *h)
{
	struct ob *o = t->o;
	if (h->nfiles + h->nnames == 0) {
		ob_puts(o, "No function to build without hooks by name or file.\n");
		return;
	}
	ob_puts(o, "To build the marked functions without hooks (gcc; their time then counts\n"
		   "as their callers', as --deselect shows it now):\n");
	if (h->nfiles) {
		ob_puts(o, "  -finstrument-functions-exclude-file-list=");
		for (uint32_t i = 0; i < h->nfiles; i++) {
			ob_puts(o, i ? "," : "");
			text_shell_word(o, h->files[i]);
		}
		ob_putc(o, '\n');
	}
	if (h->nnames) {
		ob_puts(o, "  -finstrument-functions-exclude-function-list=");
		for (uint32_t i = 0; i < h->nnames; i++)
			ob_printf(o, "%s%s", i ? "," : "", h->names[i]);
		ob_putc(o, '\n');
	}
}

void text_hook_cost(const struct text *t, unsigned top)
{
	const struct model *m = t->m;
	const struct model_hook_cost *h = m->hook_cost;
	struct ob *o = t->o;
	double tick_ns = t->tps ? 1e9 / (double)t->tps : 0, run = h->run;
	double all = h->per_call * (double)h->calls;
	ob_puts(o, "Hook cost: what the instrumentation costs, by function.\n");
	if (h->per_call <= 0 || !t->tps) {
		ob_puts(o, "(unknown: the profile records no estimate of the cost per call)\n\n");
		return;
	}
	ob_printf(o, "The runtime's estimate is %.1f ns per hooked call: %" PRIu64 " calls, ",
		  h->per_call * tick_ns, h->calls);
	ob_printf(o, "%.3f secs, %.1f %% of the run.\n", all / (double)t->tps,
		  run > 0 ? 100 * all / run : 0);
	ob_puts(o, "* marks a function whose own time per call is below twice that (its hooks\n"
		   "cost at least half as much as its work), if they take 0.1 % of the run.\n");
	if (m->prof->clock == CCP_CLOCK_CYCLES)
		ob_puts(o, "clock=cycles: the estimate includes reading the counter at every hook;\n"
			   "take build advice from a clock=cpu profile, which marks fewer.  Self\n"
			   "times are taken up to 5 % of what the hooks subtracted above what they\n"
			   "show (bound/call, what the marks compare): an estimate a few % high\n"
			   "takes its excess from the work of whatever runs next.\n");
	else
		ob_puts(o, "Self times are taken at their upper bound from the samples (bound/call,\n"
			   "what the marks compare): a longer run or a finer --interval marks more.\n");
	ob_putc(o, '\n');
	int sampled = h->sample_ticks > 0 || h->debt_bound > 0; /* else the bound is the time */
	int cw = text_max(text_udigits(h->nrows ? t->m->fns[h->rows[0]].calls : 0), 5);
	ob_printf(o, "%*s  %9s  %6s  %12s", cw, "calls", "hooks(s)", "%run", "self/call");
	if (sampled)
		ob_printf(o, "  %12s", "bound/call");
	ob_puts(o, "  function\n");
	uint32_t shown = top && top < h->nrows ? top : h->nrows;
	for (uint32_t i = 0; i < shown; i++) {
		uint32_t cc = h->rows[i];
		const struct model_fn *f = &m->fns[cc];
		double hooks = h->per_call * (double)f->calls, calls = (double)f->calls;
		ob_u64(o, f->calls, cw);
		ob_printf(o, "  %9.3f  %6.1f  %9.1f ns", hooks / (double)t->tps,
			  run > 0 ? 100 * hooks / run : 0, (double)f->self / calls * tick_ns);
		if (sampled)
			ob_printf(o, "  %9.1f ns", model_hook_self_bound(m, cc) / calls * tick_ns);
		ob_printf(o, " %c ", h->candidate[cc] ? '*' : ' ');
		names_put(o, &t->names, cc);
		ob_putc(o, '\n');
	}
	if (shown < h->nrows)
		ob_printf(o, "(%" PRIu32 " more; --top 0 shows all)\n", h->nrows - shown);
	ob_putc(o, '\n');
	hook_cost_flags(t, h);
	if (h->nclashing)
		ob_printf(o, "%" PRIu32 " marked function(s) named by neither list: a C++ name, or "
			     "one\nthat is part of a function's name that does more work; mark "
			     "those\n__attribute__((no_instrument_function)) instead.\n",
			  h->nclashing);
	ob_puts(o, "clang has no such options: mark functions, or build with\n"
		   "-finstrument-functions-after-inlining, which hooks no inlined copy.\n\n");
}
