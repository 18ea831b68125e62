/*
 * report_text.c - the text report, laid out like GHC's .prof file: a
 * header, the top cost centres by self time, and the stack tree; on
 * request a gprof-style call graph with exact arc times and the list of
 * contexts.
 *
 * Every column is measured before it is printed and is never narrower
 * than its heading (STYLE.md 11); ratios are computed by ob_ratio from
 * the integers, which guards zero denominators.  Names go through
 * escape_text, once per report (names.h).
 */
#include "output/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/xalloc.h"
#include "output/escape.h"
#include "output/names.h"
#include "output/ob.h"

#define NAME_COL_MAX 60 /* longer names overflow their column */
#define INDENT_MAX 64   /* deeper tree levels print at this indent */
#define ELLIPSIS "\xe2\x80\xa6" /* U+2026 */

/* What every section needs. */
struct text {
	struct ob *o;
	const struct model *m;
	struct names names;
	uint64_t tps;  /* ticks per second */
	int prec;      /* decimals of seconds */
};

/* ---- small formatting helpers ------------------------------------------- */

const char *report_clock_name(uint32_t clock)
{
	switch (clock) {
	case CCP_CLOCK_CPU: return "cpu";
	case CCP_CLOCK_CYCLES: return "cycles";
	case CCP_CLOCK_WALL: return "wall";
	default: return "unknown";
	}
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

static int udigits(uint64_t v)
{
	int n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static void put_secs(const struct text *t, uint64_t ticks, int width)
{
	ob_ratio(t->o, ticks, t->tps, 0, t->prec, width);
}

/* Percentage of the total time, like %6.1f. */
static void put_pct(const struct text *t, uint64_t ticks)
{
	ob_ratio(t->o, ticks, t->m->total_time, 2, 1, 6);
}

/* Width of a seconds column showing values up to max ticks. */
static int secs_width(const struct text *t, uint64_t max_ticks, const char *heading)
{
	return max_int(ob_ratio_len(max_ticks, t->tps, 0, t->prec), (int)strlen(heading));
}

/* A name left-aligned in a column of width w, then one space at least. */
static void put_name(const struct text *t, uint32_t cc, size_t indent, size_t w)
{
	ob_spaces(t->o, indent);
	names_put(t->o, &t->names, cc);
	size_t used = indent + t->names.width[cc];
	ob_spaces(t->o, used < w ? w - used + 1 : 1);
}

static void put_label(const struct text *t, const char *label, size_t indent, size_t w)
{
	ob_spaces(t->o, indent);
	ob_puts(t->o, label);
	size_t used = indent + strlen(label);
	ob_spaces(t->o, used < w ? w - used + 1 : 1);
}

static size_t name_col(size_t widest, const char *heading)
{
	size_t w = widest < NAME_COL_MAX ? widest : NAME_COL_MAX;
	return w > strlen(heading) ? w : strlen(heading);
}

/* An argument as a shell would need it quoted. */
static void put_shell_word(struct ob *o, const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789_@%+=:,./-") == strlen(s)) {
		escape_puts(o, &escape_text, s);
		return;
	}
	ob_putc(o, '\'');
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			ob_puts(o, "'\\''");
		else
			escape_write(o, &escape_text, p, 1);
	}
	ob_putc(o, '\'');
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
	ob_printf(t->o, "(%" PRIu64 " samples @ %g ms, %s clock)", p->stats.samples,
		  (double)p->interval_ns / 1e6, report_clock_name(p->clock));
}

static void text_header(const struct text *t)
{
	const struct model *m = t->m;
	const struct ccp_profile *p = m->prof;
	struct ob *o = t->o;
	char date[64] = "";
	time_t when = (time_t)(p->end_ns / 1000000000u);
	struct tm tm;
	if (p->end_ns && localtime_r(&when, &tm))
		strftime(date, sizeof date, "  (%a %b %d %H:%M %Y)", &tm);

	ob_puts(o, "ccprof time profile");
	ob_puts(o, date);
	ob_puts(o, "\n\n    program      ");
	escape_puts(o, &escape_text, p->program ? p->program : "");
	ob_puts(o, "\n    command     ");
	for (uint32_t i = 0; i < p->argc; i++) {
		ob_putc(o, ' ');
		put_shell_word(o, p->argv[i] ? p->argv[i] : "");
	}
	ob_puts(o, "\n    total time   ");
	put_secs(t, m->total_time, 0);
	ob_puts(o, " secs  ");
	text_clock(t);
	ob_puts(o, "\n    total calls  ");
	ob_u64(o, m->total_calls, 0);
	ob_puts(o, "\n    contexts     ");
	ob_u64(o, m->nctx, 0);
	ob_puts(o, " in ");
	ob_u64(o, p->nthreads, 0);
	ob_puts(o, p->nthreads == 1 ? " thread\n" : " threads\n");
	ob_puts(o, "    outside      ");
	put_secs(t, m->root_time, 0);
	ob_puts(o, " secs (");
	ob_ratio(o, m->root_time, m->total_time, 2, 1, 0);
	ob_puts(o, "%) in no cost centre\n\n");
}

/* ---- flat: top cost centres by self time -------------------------------- */

static void text_flat(const struct text *t, unsigned top)
{
	const struct model *m = t->m;
	struct ob *o = t->o;
	uint32_t n = top && top < m->nlisted ? top : m->nlisted;
	size_t widest = 0;
	uint64_t max_self = 0, max_calls = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t cc = m->by_self[i];
		const struct model_fn *fn = &m->fns[cc];
		widest = t->names.width[cc] > widest ? t->names.width[cc] : widest;
		max_self = fn->self > max_self ? fn->self : max_self;
		max_calls = fn->calls > max_calls ? fn->calls : max_calls;
	}
	size_t nw = name_col(widest, "COST CENTRE");
	int sw = secs_width(t, max_self, "self(s)");
	int cw = max_int(udigits(max_calls), 5);

	ob_printf(o, "Top cost centres by self time (%" PRIu32 " of %" PRIu32 ")\n\n", n,
		  m->nlisted);
	put_label(t, "COST CENTRE", 0, nw);
	ob_printf(o, "%6s  %*s  %*s\n", "%time", sw, "self(s)", cw, "calls");
	for (uint32_t i = 0; i < n; i++) {
		uint32_t cc = m->by_self[i];
		const struct model_fn *fn = &m->fns[cc];
		put_name(t, cc, 0, nw);
		put_pct(t, fn->self);
		ob_spaces(o, 2);
		put_secs(t, fn->self, sw);
		ob_spaces(o, 2);
		ob_u64(o, fn->calls, cw);
		ob_putc(o, '\n');
	}
	ob_putc(o, '\n');
}

/* ---- the stack tree ----------------------------------------------------- */

static size_t node_indent(const struct model_node *x)
{
	return x->depth < INDENT_MAX ? x->depth : INDENT_MAX;
}

static size_t node_width(const struct text *t, const struct model_node *x)
{
	return node_indent(x) + (x->cc == MODEL_NONE ? strlen("<root>") : t->names.width[x->cc]);
}

/* Preorder successor using the links, so printing needs no recursion. */
static uint32_t tree_next(const struct model *m, uint32_t k)
{
	if (m->nodes[k].first_child != MODEL_NONE)
		return m->nodes[k].first_child;
	while (k != 0) {
		if (m->nodes[k].next_sibling != MODEL_NONE)
			return m->nodes[k].next_sibling;
		k = m->nodes[k].parent;
	}
	return MODEL_NONE;
}

static void text_tree(const struct text *t)
{
	const struct model *m = t->m;
	struct ob *o = t->o;
	size_t widest = 0;
	uint64_t max_entries = 0;
	for (uint32_t k = 0; k < m->nnodes; k++) {
		size_t w = node_width(t, &m->nodes[k]);
		widest = w > widest ? w : widest;
		if (m->nodes[k].entries > max_entries)
			max_entries = m->nodes[k].entries;
	}
	size_t nw = name_col(widest, "COST CENTRE");
	int ew = max_int(udigits(max_entries), 7);
	int sw = secs_width(t, m->nodes[0].inherited, "secs");

	ob_puts(o, "Stack tree: contexts grouped by compressed stack (the marked entries of\n"
		   "a history, each cost centre once, at its most recent activation), as in\n"
		   "Morgan & Jarvis.  A node's position says what was active, not who called\n"
		   "whom: see --graph for callers.\n\n");
	ob_spaces(o, nw + 1 + (size_t)ew);
	ob_printf(o, "  %-*s  %s\n", 6 + 2 + sw, "individual", "inherited");
	put_label(t, "COST CENTRE", 0, nw);
	ob_printf(o, "%*s  %6s  %*s  %6s  %*s\n", ew, "entries", "%time", sw, "secs", "%time", sw,
		  "secs");
	for (uint32_t k = 0; k != MODEL_NONE; k = tree_next(m, k)) {
		const struct model_node *x = &m->nodes[k];
		if (x->cc == MODEL_NONE)
			put_label(t, "<root>", 0, nw);
		else
			put_name(t, x->cc, node_indent(x), nw);
		ob_u64(o, x->entries, ew);
		ob_spaces(o, 2);
		put_pct(t, x->individual);
		ob_spaces(o, 2);
		put_secs(t, x->individual, sw);
		ob_spaces(o, 2);
		put_pct(t, x->inherited);
		ob_spaces(o, 2);
		put_secs(t, x->inherited, sw);
		ob_putc(o, '\n');
	}
	ob_putc(o, '\n');
}

/* ---- call graph (gprof layout, exact arc times) ------------------------- */

struct graph {
	const struct text *t;
	uint32_t *index; /* cc -> [index] in the graph, 1-based */
	int sw, cw;
};

static void graph_calls(const struct graph *g, const char *calls)
{
	size_t n = strlen(calls);
	if ((size_t)g->cw > n)
		ob_spaces(g->t->o, (size_t)g->cw - n);
	ob_puts(g->t->o, calls);
}

static void graph_ref(const struct graph *g, uint32_t cc)
{
	names_put(g->t->o, &g->t->names, cc);
	ob_printf(g->t->o, " [%" PRIu32 "]\n", g->index[cc]);
}

/* A caller or callee line: times of the arc as seen from this side. */
static void graph_arc_line(const struct graph *g, uint64_t self, uint64_t child,
			   uint64_t calls, uint64_t total, uint32_t other)
{
	const struct text *t = g->t;
	char buf[64];
	ob_spaces(t->o, 6 + 1 + 6 + 2);
	put_secs(t, self, g->sw);
	ob_spaces(t->o, 2);
	put_secs(t, child, g->sw);
	ob_spaces(t->o, 2);
	snprintf(buf, sizeof buf, "%" PRIu64 "/%" PRIu64, calls, total);
	graph_calls(g, buf);
	ob_spaces(t->o, 6);
	if (other == MODEL_NONE)
		ob_puts(t->o, "<spontaneous>\n");
	else
		graph_ref(g, other);
}

/* Direct recursive calls of cc (the arc cc→cc, DESIGN.md §3). */
static uint64_t recursive_calls(const struct model *m, uint32_t cc)
{
	const struct model_arc *a = model_find_arc(m, cc, cc);
	return a ? a->calls : 0;
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
	uint64_t rec = recursive_calls(m, cc);

	for (uint32_t i = m->in_start[cc]; i < m->in_start[cc + 1]; i++) {
		const struct model_arc *a = &m->arcs[m->in[i]];
		if (a->caller != cc)
			graph_arc_line(g, a->self_in, a->child_in, a->calls, fn->calls - rec,
				       a->caller);
	}

	char idx[32], calls[64];
	snprintf(idx, sizeof idx, "[%" PRIu32 "]", g->index[cc]);
	if (rec)
		snprintf(calls, sizeof calls, "%" PRIu64 "+%" PRIu64, fn->calls - rec, rec);
	else
		snprintf(calls, sizeof calls, "%" PRIu64, fn->calls);
	ob_printf(t->o, "%-6s ", idx);
	put_pct(t, fn->inherited);
	ob_spaces(t->o, 2);
	put_secs(t, fn->self, g->sw);
	ob_spaces(t->o, 2);
	put_secs(t, fn->inherited - fn->self, g->sw);
	ob_spaces(t->o, 2);
	graph_calls(g, calls);
	ob_spaces(t->o, 2);
	graph_ref(g, cc);

	for (uint32_t i = m->out_start[cc]; i < m->out_start[cc + 1]; i++) {
		const struct model_arc *a = &m->arcs[m->out[i]];
		if (a->callee != cc)
			graph_arc_line(g, a->self_out, a->child_out, a->calls,
				       m->fns[a->callee].calls - recursive_calls(m, a->callee),
				       a->callee);
	}
	ob_puts(t->o, "-----------------------------------------------\n");
}

static void text_graph(const struct text *t)
{
	const struct model *m = t->m;
	struct graph g = {.t = t};
	g.index = xcalloc(m->nfns ? m->nfns : 1, sizeof *g.index);
	uint64_t max_calls = 0;
	for (uint32_t i = 0; i < m->nlisted; i++) {
		uint32_t cc = m->by_inherited[i];
		g.index[cc] = i + 1;
		max_calls = m->fns[cc].calls > max_calls ? m->fns[cc].calls : max_calls;
	}
	g.sw = secs_width(t, m->total_time, "children");
	g.cw = max_int(2 * udigits(max_calls) + 1, 9);

	ob_puts(t->o, "Call graph: exact arc times, measured per calling context (not shared\n"
		      "out by call counts as gprof does).  Callers above each function show the\n"
		      "self and child time of each incoming arc, callees below it those of each\n"
		      "outgoing arc.  With mutual recursion the two views of one arc may differ:\n"
		      "an outgoing arc excludes time in the function's own recursive re-entry.\n\n");
	ob_printf(t->o, "%-6s %6s  %*s  %*s  %*s  %s\n", "index", "%time", g.sw, "self", g.sw,
		  "children", g.cw, "calls", "name");
	for (uint32_t i = 0; i < m->nlisted; i++)
		graph_block(&g, m->by_inherited[i]);
	ob_putc(t->o, '\n');
	free(g.index);
}

/* ---- contexts ----------------------------------------------------------- */

/* [marked] entries in brackets; "…" where two adjacent entries are both
 * unmarked (A4/A5 elided the path between them). */
static void text_history(const struct text *t, const struct model_ctx *c)
{
	struct ob *o = t->o;
	if (c->len == 0) {
		ob_puts(o, "<root>");
		return;
	}
	for (uint32_t i = 0; i < c->len; i++) {
		int marked = CCP_ENTRY_MARKED(c->hist[i]);
		if (i > 0) {
			if (!marked && !CCP_ENTRY_MARKED(c->hist[i - 1]))
				ob_puts(o, " " ELLIPSIS " ");
			else
				ob_putc(o, ' ');
		}
		if (marked)
			ob_putc(o, '[');
		names_put(o, &t->names, CCP_ENTRY_CC(c->hist[i]));
		if (marked)
			ob_putc(o, ']');
	}
}

static void text_contexts(const struct text *t)
{
	const struct model *m = t->m;
	struct ob *o = t->o;
	uint64_t max_e = 0, max_r = 0;
	for (uint32_t k = 0; k < m->nctx; k++) {
		max_e = m->ctx[k].entries > max_e ? m->ctx[k].entries : max_e;
		max_r = m->ctx[k].recursive > max_r ? m->ctx[k].recursive : max_r;
	}
	int sw = secs_width(t, m->nctx ? m->ctx[m->ctx_by_time[0]].time : 0, "secs");
	int ew = max_int(udigits(max_e), 7), rw = max_int(udigits(max_r), 9);

	ob_puts(o, "Contexts, most expensive first.  [Marked] entries are active; an unmarked\n"
		   "one only supplies the arc into or out of its neighbour; " ELLIPSIS " marks a path\n"
		   "that was elided.\n\n");
	ob_printf(o, "%*s  %6s  %*s  %*s  %s\n", sw, "secs", "%time", ew, "entries", rw,
		  "recursive", "history");
	for (uint32_t i = 0; i < m->nctx; i++) {
		const struct model_ctx *c = &m->ctx[m->ctx_by_time[i]];
		put_secs(t, c->time, sw);
		ob_spaces(o, 2);
		put_pct(t, c->time);
		ob_spaces(o, 2);
		ob_u64(o, c->entries, ew);
		ob_spaces(o, 2);
		ob_u64(o, c->recursive, rw);
		ob_spaces(o, 2);
		text_history(t, c);
		ob_putc(o, '\n');
	}
	ob_putc(o, '\n');
}

unsigned report_text_passes(const struct report_opts *o)
{
	return MODEL_FLAT | (o->no_tree ? 0 : MODEL_TREE) | (o->graph ? MODEL_ARCS : 0) |
	       (o->contexts ? MODEL_CONTEXTS : 0);
}

int report_text(FILE *f, const struct model *m, const struct report_opts *opts)
{
	struct ob *o = xmalloc(sizeof *o);
	struct text t = {
		.o = o,
		.m = m,
		.tps = m->prof->ticks_per_sec,
		/* sampling clocks resolve milliseconds at best; cycles finer */
		.prec = m->prof->clock == CCP_CLOCK_CYCLES ? 6 : 3,
	};
	ob_init(o, f);
	names_init(&t.names, m, &escape_text, 0);
	/* Each section shows only what its pass produced (report_text_passes). */
	text_header(&t);
	if (m->by_self)
		text_flat(&t, opts->top);
	if (!opts->no_tree && m->nodes)
		text_tree(&t);
	if (opts->graph && m->in_start && m->by_inherited)
		text_graph(&t);
	if (opts->contexts && m->ctx_by_time)
		text_contexts(&t);
	ob_flush(o);
	names_free(&t.names);
	free(o);
	return ferror(f) ? -1 : 0;
}
