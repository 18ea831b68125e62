/*
 * report_text.c - the text report, laid out like GHC's .prof file: a
 * header, the top cost centres by self time, and the stack tree; on
 * request a gprof-style call graph with exact arc times (or the blocks of
 * chosen functions: --around), the list of contexts, and the views of
 * views_text.c.  Column helpers are in text.c.
 */
#include "output/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/view.h"
#include "model/xalloc.h"
#include "output/escape.h"
#include "output/text.h"

const char *report_clock_name(uint32_t clock)
{
	switch (clock) {
	case CCP_CLOCK_CPU: return "cpu";
	case CCP_CLOCK_CYCLES: return "cycles";
	case CCP_CLOCK_WALL: return "wall";
	default: return "unknown";
	}
}

/* ---- header ------------------------------------------------------------- */

static void text_clock(const struct text *t)
{
	const struct ccp_profile *p = t->m->prof;
	if (p->clock == CCP_CLOCK_CYCLES) {
		ob_puts(t->o, "(cycles clock @ ");
		ob_ratio(t->o, p->ticks_per_sec, 1000000000, 0, 3, 0);
		ob_puts(t->o, " GHz)");
		return;
	}
	/* The sampler's wake-ups: the interval is their mean while the
	 * program runs (drawn from 0.5-1.5 times it, longer while it is
	 * idle), and what is charged is what the threads' clocks advanced,
	 * so the time is not the wake-ups times the interval. */
	ob_printf(t->o, "(%s clock; the sampler woke %" PRIu64 " time%s, interval %g ms)",
		  report_clock_name(p->clock), p->stats.samples, p->stats.samples == 1 ? "" : "s",
		  (double)p->interval_ns / 1e6);
}

/*
 * clock=cycles: what the runtime subtracted as its own cost (Note [Cycles
 * clock] in src/runtime/clock.c), as it recorded it, or, in a file from
 * before it did, its estimate per call times every call it saw, whatever
 * the view shows.  Where that is more than the time left, a few per cent
 * of error in the estimate is tens of per cent in every time shown, so
 * say so.
 */
static void text_compensation(const struct text *t)
{
	const struct ccp_profile *p = t->m->prof;
	uint64_t calls = p->stats.calls ? p->stats.calls : t->m->total_calls;
	double sub = (double)p->stats.subtracted;

	if (p->clock != CCP_CLOCK_CYCLES || p->overhead_milliticks == 0)
		return;
	if (sub == 0)
		sub = (double)p->overhead_milliticks / 1000.0 * (double)calls;
	if (!(sub < 1.8e19))
		return;
	ob_puts(t->o, "    subtracted   ");
	text_secs(t, (uint64_t)sub, 0);
	ob_puts(t->o, " secs, the profiler's estimated own cost");
	if (!p->stats.subtracted)
		ob_puts(t->o, " (per call x calls)");
	if (sub > (double)t->m->total_time)
		ob_puts(t->o, ": more than the time charged,\n"
			      "                 so these times are uncertain (clock=cpu subtracts "
			      "nothing:\n                 its times include the hooks' cost)");
	ob_putc(t->o, '\n');
}

/*
 * With allocation data, the total allocated: in the contexts, and outside
 * any context (a thread's allocations before its first call), which the
 * model's sums and so %alloc leave out; so does a focus, which leaves out
 * the contexts without the focused functions too.
 */
static void text_alloc_total(const struct text *t)
{
	struct model_alloc outside = model_alloc_outside(t->m), total = model_alloc_total(t->m);
	int with_outside = outside.bytes || outside.blocks;
	struct ob *o = t->o;
	ob_puts(o, "\n    total alloc  ");
	text_bytes_blocks(o, total);
	if (with_outside) {
		ob_puts(o, "\n                 (");
		text_bytes_blocks(o, outside);
		ob_puts(o, " before a thread's first call: in no\n"
			   "                 context, and not in %alloc)");
	}
}

/* The root context's time (and bytes): in a thread, in no cost centre. */
static void text_outside(const struct text *t)
{
	const struct model *m = t->m;
	struct ob *o = t->o;
	ob_puts(o, "    outside      ");
	text_secs(t, m->root_time, 0);
	ob_puts(o, " secs (");
	ob_ratio(o, m->root_time, m->total_time, 2, 1, 0);
	if (t->alloc) {
		ob_puts(o, "%) and ");
		ob_u64(o, m->root_alloc.bytes, 0);
		ob_puts(o, m->root_alloc.bytes == 1 ? " byte (" : " bytes (");
		ob_ratio(o, m->root_alloc.bytes, m->total_alloc.bytes, 2, 1, 0);
	}
	ob_puts(o, "%) in no cost centre\n");
}

/* How much of the outside time is short threads', where a sampling
 * clock leaves their time (Note [Short threads] in
 * src/model/threads.c); shown from 1 % of the total, and not under a
 * focus, whose root is not the profile's (a deselection only adds to
 * it). */
static void text_short_threads(const struct text *t)
{
	const struct model *m = t->m;
	const struct ccp_profile *p = m->prof;
	const struct model_view *v = m->view;
	struct model_short_threads s;

	if ((v && (v->focus || v->thread != MODEL_NONE)) || m->total_time == 0)
		return;
	s = model_short_threads(p);
	if ((double)s.root_time < 0.01 * (double)m->total_time)
		return;
	ob_puts(t->o, "      of which   ");
	text_secs(t, s.root_time, 0);
	ob_printf(t->o, " secs in %" PRIu32 " short thread%s: time that no sample\n"
			"                 placed; shorter than two %g ms intervals, %s seldom\n"
			"                 sampled (record --clock=cycles charges it)\n",
		  s.threads, s.threads == 1 ? "" : "s", (double)p->interval_ns / 1e6,
		  s.threads == 1 ? "it is" : "they are");
}

/* The runtime's own time making transitions and contexts, which no
 * context was charged (Note [The profiler's own time] in
 * src/runtime/machine.c): said, since the total leaves it out. */
static void text_own_time(const struct text *t)
{
	const struct ccp_profile *p = t->m->prof;

	if (p->stats.own_time == 0)
		return;
	ob_puts(t->o, "    own time     ");
	text_secs(t, p->stats.own_time, 0);
	ob_printf(t->o, " secs the profiler took for itself, charged to no function (%s)\n",
		  p->clock == CCP_CLOCK_CYCLES ? "measured" : "sampled");
}

/* Note [Saying the overflow] in src/model/overflow.c: a profile whose
 * threads reached max_contexts says so where everyone looks, with the
 * calls and time past it and the option that keeps them; whatever the
 * view, as the limit is the run's. */
static void text_overflow(const struct text *t)
{
	const struct ccp_profile *p = t->m->prof;
	struct model_overflow ov = model_overflow(p);
	struct ob *o = t->o;

	if (ov.threads == 0)
		return;
	ob_puts(o, "    overflow     ");
	text_overflow_who(o, p, &ov);
	ob_printf(o, ",\n                 so %" PRIu64 " call%s of %" PRIu32 " function%s (", ov.calls,
		  ov.calls == 1 ? "" : "s", ov.functions, ov.functions == 1 ? "" : "s");
	text_secs(t, ov.time, 0);
	ob_puts(o, " secs, ");
	ob_ratio(o, ov.time, ov.total_time, 2, 1, 0);
	ob_printf(o, "%%) lost their callers:\n"
		     "                 the tree has them under <overflow>, and their callers' times leave\n"
		     "                 them out; record with a larger --max-contexts (above %" PRIu64
		     ") keeps\n                 more of them\n", ov.max_contexts);
}

static void text_header(const struct text *t)
{
	const struct model *m = t->m;
	const struct ccp_profile *p = m->prof;
	struct ob *o = t->o;

	/* GHC's "Time and Allocation Profiling Report" when there are both. */
	text_title(o, p, t->alloc ? "ccprof time and allocation profile" : "ccprof time profile");
	ob_puts(o, "\n    total time   ");
	text_secs(t, m->total_time, 0);
	ob_puts(o, " secs  ");
	text_clock(t);
	if (t->alloc)
		text_alloc_total(t);
	ob_puts(o, "\n    total calls  ");
	ob_u64(o, m->total_calls, 0);
	ob_puts(o, "\n    contexts     ");
	ob_u64(o, m->nctx, 0);
	ob_puts(o, " in ");
	ob_u64(o, p->nthreads, 0);
	ob_puts(o, p->nthreads == 1 ? " thread\n" : " threads\n");
	text_outside(t);
	text_short_threads(t);
	text_compensation(t);
	text_own_time(t);
	text_overflow(t);
	text_view_header(t);
	ob_putc(o, '\n');
}

/* ---- flat: top cost centres by self time -------------------------------- */

static int source_known(const struct model *m, uint32_t cc)
{
	return ccp_cc_has_source(&m->prof->ccs[cc]);
}

/* Whether any of the top n rows has a source: if none has (no -g, or the
 * binaries gone), the SRC column is left out rather than empty. */
static int any_source(const struct model *m, const uint32_t *order, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (source_known(m, order[i]))
			return 1;
	return 0;
}

/* "  file.c:42": the base name only, as the column is for finding the
 * function; JSON and the exports give the whole path. */
static void put_source(struct ob *o, const struct ccp_cc *c)
{
	ob_spaces(o, 2);
	escape_puts(o, &escape_text, model_basename(c->file));
	if (c->line) {
		ob_putc(o, ':');
		ob_u64(o, c->line, 0);
	}
}

/* The functions in the order --sort asks for (by_self_alloc exists only
 * with allocation data: the command refuses --sort alloc without). */
static const uint32_t *flat_order(const struct model *m, enum report_sort sort, const char **by)
{
	if (sort == REPORT_SORT_ALLOC && m->by_self_alloc) {
		*by = "self allocation";
		return m->by_self_alloc;
	}
	if (sort == REPORT_SORT_CALLS && m->by_calls) {
		*by = "calls";
		return m->by_calls;
	}
	*by = "self time";
	return m->by_self;
}

/* The flat table's rows and columns, measured over its rows. */
struct flat_cols {
	const uint32_t *order;
	const char *by;
	uint32_t n;
	size_t nw;
	int sw, bw, cw, iw; /* self(s), bytes, calls, inherited(s) */
};

static void flat_measure(const struct text *t, const struct report_opts *o, struct flat_cols *c)
{
	const struct model *m = t->m;
	size_t widest = 0;
	uint64_t max_self = 0, max_bytes = 0, max_calls = 0, max_inh = 0;
	c->order = flat_order(m, o->sort, &c->by);
	c->n = o->top && o->top < m->nlisted ? o->top : m->nlisted;
	for (uint32_t i = 0; i < c->n; i++) {
		uint32_t cc = c->order[i];
		const struct model_fn *fn = &m->fns[cc];
		widest = t->names.width[cc] > widest ? t->names.width[cc] : widest;
		max_self = fn->self > max_self ? fn->self : max_self;
		max_bytes = fn->self_alloc.bytes > max_bytes ? fn->self_alloc.bytes : max_bytes;
		max_calls = fn->calls > max_calls ? fn->calls : max_calls;
		max_inh = fn->inherited > max_inh ? fn->inherited : max_inh;
	}
	c->nw = text_name_col(widest, "COST CENTRE");
	c->sw = text_secs_width(t, max_self, "self(s)");
	c->bw = text_max(text_udigits(max_bytes), 5);
	c->cw = text_max(text_udigits(max_calls), 5);
	c->iw = text_secs_width(t, max_inh, "inherited(s)");
}

/* A row: with allocation data, GHC's %alloc beside %time and the bytes
 * beside the seconds. */
static void flat_row(const struct text *t, const struct flat_cols *c, uint32_t cc)
{
	const struct model_fn *fn = &t->m->fns[cc];
	struct ob *o = t->o;
	text_name(t, cc, 0, c->nw);
	text_pct(t, fn->self);
	if (t->alloc) {
		ob_spaces(o, 2);
		text_alloc_pct(t, fn->self_alloc.bytes);
	}
	ob_spaces(o, 2);
	text_secs(t, fn->self, c->sw);
	if (t->alloc) {
		ob_spaces(o, 2);
		ob_u64(o, fn->self_alloc.bytes, c->bw);
	}
	ob_spaces(o, 2);
	ob_u64(o, fn->calls, c->cw);
	ob_spaces(o, 2);
	text_secs(t, fn->inherited, c->iw);
	if (source_known(t->m, cc))
		put_source(o, &t->m->prof->ccs[cc]);
	ob_putc(o, '\n');
}

void text_flat(const struct text *t, const struct report_opts *opts)
{
	const struct model *m = t->m;
	struct ob *o = t->o;
	struct flat_cols c;
	flat_measure(t, opts, &c);
	ob_printf(o, "Top cost centres by %s (%" PRIu32 " of %" PRIu32 ")\n\n", c.by, c.n,
		  m->nlisted);
	text_label(t, "COST CENTRE", 0, c.nw);
	ob_printf(o, "%6s  ", "%time");
	if (t->alloc)
		ob_printf(o, "%6s  ", "%alloc");
	ob_printf(o, "%*s  ", c.sw, "self(s)");
	if (t->alloc)
		ob_printf(o, "%*s  ", c.bw, "bytes");
	ob_printf(o, "%*s  %*s%s\n", c.cw, "calls", c.iw, "inherited(s)",
		  any_source(m, c.order, c.n) ? "  SRC" : "");
	for (uint32_t i = 0; i < c.n; i++)
		flat_row(t, &c, c.order[i]);
	ob_putc(o, '\n');
}

/* ---- the stack tree ----------------------------------------------------- */

/* The stack tree's columns, measured over the shown nodes. */
struct tree_cols {
	const struct text *t;
	size_t nw;
	int ew, sw;
};

/* A node's line after its name, or its "(n hidden)" line's (text_row). */
static void tree_row(void *arg, uint32_t k, const struct model_hidden *h)
{
	const struct tree_cols *c = arg;
	const struct text *t = c->t;
	const struct model_node *x = &t->m->nodes[k];
	struct model_node_alloc a = model_node_alloc_at(t->m->node_alloc, k);
	ob_u64(t->o, h ? h->entries : x->entries, c->ew);
	ob_spaces(t->o, 2);
	text_pct_alloc_secs(t, h ? h->time : x->individual, h ? h->alloc.bytes : a.individual.bytes, c->sw);
	ob_spaces(t->o, 2);
	text_pct_alloc_secs(t, h ? h->time : x->inherited, h ? h->alloc.bytes : a.inherited.bytes, c->sw);
	ob_putc(t->o, '\n');
}

static void text_tree(const struct text *t)
{
	const struct model *m = t->m;
	const struct model_pruned *pr = &m->tree_pruned;
	struct ob *o = t->o;
	uint64_t max_entries;
	size_t widest = text_tree_widest(t, m->nodes, m->nnodes, pr, &max_entries);
	struct tree_cols c = {
		.t = t,
		.nw = text_name_col(widest, "COST CENTRE"),
		.ew = text_max(text_udigits(max_entries), 7),
		.sw = text_secs_width(t, m->nodes[0].inherited, "secs"),
	};

	ob_puts(o, "Stack tree: contexts grouped by compressed stack (the marked entries of\n"
		   "a history, each cost centre once, at its most recent activation), as in\n"
		   "Morgan & Jarvis.  A node's position says what was active, not who called\n"
		   "whom: see --graph or --callers for callers.\n");
	if (pr->hidden)
		ob_puts(o, "Small nodes are pruned: each \"(n hidden)\" line holds the costs of n\n"
			   "hidden children and everything below them.\n");
	ob_putc(o, '\n');
	const char *pcts = t->alloc ? " %time  %alloc" : " %time";
	ob_spaces(o, c.nw + 1 + (size_t)c.ew);
	ob_printf(o, "  %-*s  %s\n", (int)strlen(pcts) + 2 + c.sw, "individual", "inherited");
	text_label(t, "COST CENTRE", 0, c.nw);
	ob_printf(o, "%*s  %s  %*s  %s  %*s\n", c.ew, "entries", pcts, c.sw, "secs", pcts, c.sw,
		  "secs");
	text_tree_lines(t, m->nodes, pr, c.nw, tree_row, &c);
	ob_putc(o, '\n');
}

/* ---- call graph (gprof layout, exact arc times) ------------------------- */

struct graph {
	const struct text *t;
	uint32_t *index; /* cc -> [index] in the graph, 1-based */
	uint64_t *rec;   /* cc -> its direct recursive calls (the arc cc→cc) */
	int sw, cw;
	int bw; /* the byte columns' width; 0 without allocation data */
};

/* A cost as "self  children", and with allocation data their bytes. */
static void graph_costs(const struct graph *g, uint64_t self, uint64_t child,
			uint64_t self_bytes, uint64_t child_bytes)
{
	const struct text *t = g->t;
	text_secs(t, self, g->sw);
	ob_spaces(t->o, 2);
	text_secs(t, child, g->sw);
	ob_spaces(t->o, 2);
	if (g->bw) {
		ob_u64(t->o, self_bytes, g->bw);
		ob_spaces(t->o, 2);
		ob_u64(t->o, child_bytes, g->bw);
		ob_spaces(t->o, 2);
	}
}

static void graph_calls(const struct graph *g, const char *calls)
{
	size_t n = strlen(calls);
	if ((size_t)g->cw > n)
		ob_spaces(g->t->o, (size_t)g->cw - n);
	ob_puts(g->t->o, calls);
}

/* Written piece by piece, not by printf: a million arcs make two million
 * lines. */
static void graph_ref(const struct graph *g, uint32_t cc)
{
	names_put(g->t->o, &g->t->names, cc);
	ob_puts(g->t->o, " [");
	ob_u64(g->t->o, g->index[cc], 0);
	ob_puts(g->t->o, "]\n");
}

/* A caller or callee line: times (and bytes) of the arc as seen from this
 * side. */
static void graph_arc_line(const struct graph *g, uint64_t self, uint64_t child,
			   struct model_alloc self_a, struct model_alloc child_a, uint64_t calls,
			   uint64_t total, uint32_t other)
{
	const struct text *t = g->t;
	ob_spaces(t->o, 6 + 1 + 6 + 2);
	graph_costs(g, self, child, self_a.bytes, child_a.bytes);
	size_t n = (size_t)text_udigits(calls) + 1 + (size_t)text_udigits(total); /* "calls/total" */
	if ((size_t)g->cw > n)
		ob_spaces(t->o, (size_t)g->cw - n);
	ob_u64(t->o, calls, 0);
	ob_putc(t->o, '/');
	ob_u64(t->o, total, 0);
	ob_spaces(t->o, 6);
	if (other == MODEL_NONE)
		ob_puts(t->o, "<spontaneous>\n");
	else
		graph_ref(g, other);
}

/* Arc k's allocations, zero without allocation data. */
static struct model_arc_alloc arc_alloc_at(const struct model *m, uint32_t k)
{
	return m->arc_alloc ? m->arc_alloc[k] : (struct model_arc_alloc){{0, 0}, {0, 0}, {0, 0}, {0, 0}};
}

/* Ask for the arc of a list a few entries ahead: the arcs of one
 * function's list are scattered over the arcs. */
static void prefetch_arc(const struct model *m, const uint32_t *list, uint32_t i, uint32_t end)
{
	if (i + 4 < end)
		__builtin_prefetch(&m->arcs[list[i + 4]]);
}

/*
 * One block, as gprof lays it out: callers, the function's own line, then
 * callees.  Calls are "arc/total" where total counts the other function's
 * non-recursive calls; direct recursion shows as "+R" on the function's
 * own line instead of as an arc to itself.
 */
static void graph_block(const struct graph *g, uint32_t cc)
{
	const struct text *t = g->t;
	const struct model *m = t->m;
	const struct model_fn *fn = &m->fns[cc];
	uint64_t rec = g->rec[cc];

	for (uint32_t i = m->in_start[cc]; i < m->in_start[cc + 1]; i++) {
		const struct model_arc *a = &m->arcs[m->in[i]];
		struct model_arc_alloc x = arc_alloc_at(m, m->in[i]);
		prefetch_arc(m, m->in, i, m->in_start[cc + 1]);
		if (a->caller != cc)
			graph_arc_line(g, a->self_in, a->child_in, x.self_in, x.child_in, a->calls,
				       fn->calls - rec, a->caller);
	}

	char idx[32], calls[64];
	snprintf(idx, sizeof idx, "[%" PRIu32 "]", g->index[cc]);
	if (rec)
		snprintf(calls, sizeof calls, "%" PRIu64 "+%" PRIu64, fn->calls - rec, rec);
	else
		snprintf(calls, sizeof calls, "%" PRIu64, fn->calls);
	ob_printf(t->o, "%-6s ", idx);
	text_pct(t, fn->inherited);
	ob_spaces(t->o, 2);
	graph_costs(g, fn->self, fn->inherited - fn->self, fn->self_alloc.bytes,
		    fn->inherited_alloc.bytes - fn->self_alloc.bytes);
	graph_calls(g, calls);
	ob_spaces(t->o, 2);
	graph_ref(g, cc);

	for (uint32_t i = m->out_start[cc]; i < m->out_start[cc + 1]; i++) {
		const struct model_arc *a = &m->arcs[m->out[i]];
		struct model_arc_alloc x = arc_alloc_at(m, m->out[i]);
		prefetch_arc(m, m->out, i, m->out_start[cc + 1]);
		if (a->callee != cc)
			graph_arc_line(g, a->self_out, a->child_out, x.self_out, x.child_out,
				       a->calls, m->fns[a->callee].calls - g->rec[a->callee],
				       a->callee);
	}
	ob_puts(t->o, "-----------------------------------------------\n");
}

/* Index each listed function by its rank in the inherited order (the
 * numbers of gprof's [n] references), note each one's direct recursive
 * calls (docs/semantics.md, "The views": the calls of the arc cc→cc; from
 * the arcs once, not looked up for each line) and measure the columns. */
static void graph_init(struct graph *g, const struct text *t)
{
	const struct model *m = t->m;
	*g = (struct graph){.t = t};
	g->index = xcalloc(m->nfns ? m->nfns : 1, sizeof *g->index);
	g->rec = xcalloc(m->nfns ? m->nfns : 1, sizeof *g->rec);
	for (uint32_t k = 0; k < m->narcs; k++)
		if (m->arcs[k].caller == m->arcs[k].callee && m->arcs[k].caller != MODEL_NONE)
			g->rec[m->arcs[k].caller] = m->arcs[k].calls;
	uint64_t max_calls = 0;
	for (uint32_t i = 0; i < m->nlisted; i++) {
		uint32_t cc = m->by_inherited[i];
		g->index[cc] = i + 1;
		max_calls = m->fns[cc].calls > max_calls ? m->fns[cc].calls : max_calls;
	}
	g->sw = text_secs_width(t, m->total_time, "children");
	g->cw = text_max(2 * text_udigits(max_calls) + 1, 9);
	if (t->alloc)
		g->bw = text_max(text_udigits(m->total_alloc.bytes), (int)strlen("children(B)"));
}

/* A section of blocks: the notes, the heading, the block of each of
 * ccs[0..n). */
static void graph_section(const struct text *t, const char *notes, const uint32_t *ccs,
			  uint32_t n)
{
	struct graph g;
	graph_init(&g, t);
	ob_puts(t->o, notes);
	if (g.bw)
		ob_puts(t->o, "self(B) and children(B): the bytes allocated, charged by the same rule.\n\n");
	ob_printf(t->o, "%-6s %6s  %*s  %*s  ", "index", "%time", g.sw, "self", g.sw, "children");
	if (g.bw)
		ob_printf(t->o, "%*s  %*s  ", g.bw, "self(B)", g.bw, "children(B)");
	ob_printf(t->o, "%*s  %s\n", g.cw, "calls", "name");
	for (uint32_t i = 0; i < n; i++)
		graph_block(&g, ccs[i]);
	ob_putc(t->o, '\n');
	free(g.index);
	free(g.rec);
}

static void text_graph(const struct text *t)
{
	graph_section(t,
		      "Call graph: exact arc times, measured per calling context (not shared\n"
		      "out by call counts as gprof does).  Callers above each function show the\n"
		      "self and child time of each incoming arc, callees below it those of each\n"
		      "outgoing arc.  With mutual recursion the two views of one arc may differ:\n"
		      "each line of a block follows the function's newest activation, so once\n"
		      "it re-enters itself through a cycle, the time goes to the arc that\n"
		      "re-entered it (a caller's line to it still holds all it cost that caller;\n"
		      "see docs/semantics.md, The views).\n\n",
		      t->m->by_inherited, t->m->nlisted);
}

/* --around: the call graph's block of each function asked for (a
 * butterfly: callers above, callees below, exact arc times). */
static void text_around(const struct text *t)
{
	graph_section(t,
		      "Around: callers above each function with the times of their arcs into\n"
		      "it, callees below with the times of its arcs out (exact, per context;\n"
		      "see --graph for the whole call graph and its notes).\n\n",
		      t->m->around, t->m->naround);
}

/* ---- contexts ----------------------------------------------------------- */

static void text_contexts(const struct text *t)
{
	const struct model *m = t->m;
	struct ob *o = t->o;
	uint64_t max_e = 0, max_r = 0, max_b = 0;
	for (uint32_t k = 0; k < m->nctx; k++) {
		max_e = m->ctx[k].entries > max_e ? m->ctx[k].entries : max_e;
		max_r = m->ctx[k].recursive > max_r ? m->ctx[k].recursive : max_r;
		max_b = m->ctx[k].alloc_bytes > max_b ? m->ctx[k].alloc_bytes : max_b;
	}
	int sw = text_secs_width(t, m->nctx ? m->ctx[m->ctx_by_time[0]].time : 0, "secs");
	int ew = text_max(text_udigits(max_e), 7), rw = text_max(text_udigits(max_r), 9);

	ob_puts(o, "Contexts, most expensive first.  [Marked] entries are active; an unmarked\n"
		   "one only supplies the arc into or out of its neighbour; " TEXT_ELLIPSIS " marks a path\n"
		   "that was elided.\n\n");
	int bw = t->alloc ? text_max(text_udigits(max_b), 5) : 0;
	ob_printf(o, "%*s  %6s  %*s  %*s  ", sw, "secs", "%time", ew, "entries", rw, "recursive");
	if (t->alloc)
		ob_printf(o, "%*s  ", bw, "bytes");
	ob_puts(o, "history\n");
	for (uint32_t i = 0; i < m->nctx; i++) {
		const struct ccp_context *c = &m->ctx[m->ctx_by_time[i]];
		model_ctx_prefetch(m, m->ctx_by_time, i);
		text_secs_pct(t, c->time, sw);
		ob_spaces(o, 2);
		ob_u64(o, c->entries, ew);
		ob_spaces(o, 2);
		ob_u64(o, c->recursive, rw);
		ob_spaces(o, 2);
		if (t->alloc) {
			ob_u64(o, c->alloc_bytes, bw);
			ob_spaces(o, 2);
		}
		text_history(t, c->hist, c->len);
		ob_putc(o, '\n');
	}
	ob_putc(o, '\n');
}

unsigned report_text_passes(const struct report_opts *o)
{
	return MODEL_FLAT | (o->no_tree ? 0 : MODEL_TREE) | (o->graph ? MODEL_ARC_LISTS : 0) |
	       (o->contexts ? MODEL_CONTEXTS : 0);
}

/* Each section shows only what its pass produced (report_text_passes,
 * and the view passes the command ran). */
int report_text(FILE *f, const struct model *m, const struct report_opts *opts)
{
	struct text t;
	text_begin(&t, f, m);
	text_header(&t);
	if (m->by_self && !opts->no_flat)
		text_flat(&t, opts);
	if (m->hot_done)
		text_hot(&t);
	if (!opts->no_tree && m->nodes)
		text_tree(&t);
	if (m->ncallers)
		text_callers(&t);
	if (m->naround && m->in_start)
		text_around(&t);
	if (opts->graph && m->in_start && m->by_inherited)
		text_graph(&t);
	if (m->cycles_done)
		text_cycles(&t);
	if (m->nthread_models)
		text_threads(&t, opts);
	if (m->hook_cost)
		text_hook_cost(&t, opts->top);
	if (opts->contexts && m->ctx_by_time)
		text_contexts(&t);
	return text_end(&t);
}
