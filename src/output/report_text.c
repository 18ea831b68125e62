/*
 * report_text.c - the text report, laid out like GHC's .prof file: a
 * header, the top cost centres by self time, and the stack tree; on
 * request a gprof-style call graph with exact arc times and the list of
 * contexts.
 *
 * Every column is measured before it is printed and is never narrower
 * than its heading (STYLE.md 11); percentages go through model_percent,
 * which guards the zero total.  Names go through escape_text.
 */
#include "output/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/xalloc.h"
#include "output/escape.h"

#define NAME_COL_MAX 60 /* longer names overflow their column */
#define INDENT_MAX 64   /* deeper tree levels print at this indent */
#define ELLIPSIS "\xe2\x80\xa6" /* U+2026 */

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

/* Decimals for seconds: sampling clocks resolve milliseconds at best, the
 * cycles clock much finer. */
static int secs_prec(const struct model *m)
{
	return m->prof->clock == CCP_CLOCK_CYCLES ? 6 : 3;
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

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* Width of a seconds column showing values up to max ticks. */
static int secs_width(const struct model *m, uint64_t max_ticks, const char *heading)
{
	char buf[64];
	int n = snprintf(buf, sizeof buf, "%.*f", secs_prec(m), model_seconds(m, max_ticks));
	return max_int(n, (int)strlen(heading));
}

static void put_spaces(FILE *f, size_t n)
{
	while (n-- > 0)
		fputc(' ', f);
}

/* A name left-aligned in a column of width w (at least one space after). */
static void put_name(FILE *f, const char *name, size_t indent, size_t w)
{
	put_spaces(f, indent);
	escape_puts(f, &escape_text, name);
	size_t used = indent + escape_text_width(name);
	put_spaces(f, used < w ? w - used + 1 : 1);
}

static size_t name_col(size_t widest, const char *heading)
{
	size_t w = widest < NAME_COL_MAX ? widest : NAME_COL_MAX;
	return w > strlen(heading) ? w : strlen(heading);
}

/* An argument as a shell would need it quoted. */
static void put_shell_word(FILE *f, const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789_@%+=:,./-") == strlen(s)) {
		escape_puts(f, &escape_text, s);
		return;
	}
	fputc('\'', f);
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", f);
		else
			escape_write(f, &escape_text, p, 1);
	}
	fputc('\'', f);
}

/* ---- header ------------------------------------------------------------- */

static void text_clock(FILE *f, const struct model *m)
{
	const struct ccp_profile *p = m->prof;
	if (p->clock == CCP_CLOCK_CYCLES) {
		fprintf(f, "(cycles clock @ %.3f GHz)", (double)p->ticks_per_sec / 1e9);
		return;
	}
	fprintf(f, "(%" PRIu64 " samples @ %g ms, %s clock)", p->stats.samples,
		(double)p->interval_ns / 1e6, report_clock_name(p->clock));
}

static void text_header(FILE *f, const struct model *m)
{
	const struct ccp_profile *p = m->prof;
	char date[64] = "";
	time_t t = (time_t)(p->end_ns / 1000000000u);
	struct tm tm;
	if (p->end_ns && localtime_r(&t, &tm))
		strftime(date, sizeof date, "  (%a %b %d %H:%M %Y)", &tm);

	fprintf(f, "ccprof time profile%s\n\n", date);
	fputs("    program      ", f);
	escape_puts(f, &escape_text, p->program ? p->program : "");
	fputs("\n    command     ", f);
	for (uint32_t i = 0; i < p->argc; i++) {
		fputc(' ', f);
		put_shell_word(f, p->argv[i] ? p->argv[i] : "");
	}
	fprintf(f, "\n    total time   %.*f secs  ", secs_prec(m), model_seconds(m, m->total_time));
	text_clock(f, m);
	fprintf(f, "\n    total calls  %" PRIu64 "\n", m->total_calls);
	fprintf(f, "    contexts     %" PRIu32 " in %" PRIu32 " thread%s\n", m->nctx,
		p->nthreads, p->nthreads == 1 ? "" : "s");
	fprintf(f, "    outside      %.*f secs (%.1f%%) in no cost centre\n\n", secs_prec(m),
		model_seconds(m, m->root_time), model_percent(m, m->root_time));
}

/* ---- flat: top cost centres by self time -------------------------------- */

static void text_flat(FILE *f, const struct model *m, unsigned top)
{
	uint32_t n = top && top < m->nlisted ? top : m->nlisted;
	size_t widest = 0;
	uint64_t max_self = 0, max_calls = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct model_fn *fn = &m->fns[m->by_self[i]];
		size_t w = escape_text_width(fn->name);
		widest = w > widest ? w : widest;
		max_self = fn->self > max_self ? fn->self : max_self;
		max_calls = fn->calls > max_calls ? fn->calls : max_calls;
	}
	size_t nw = name_col(widest, "COST CENTRE");
	int sw = secs_width(m, max_self, "self(s)");
	int cw = max_int(udigits(max_calls), 5);

	fprintf(f, "Top cost centres by self time (%" PRIu32 " of %" PRIu32 ")\n\n", n, m->nlisted);
	put_name(f, "COST CENTRE", 0, nw);
	fprintf(f, "%6s  %*s  %*s\n", "%time", sw, "self(s)", cw, "calls");
	for (uint32_t i = 0; i < n; i++) {
		const struct model_fn *fn = &m->fns[m->by_self[i]];
		put_name(f, fn->name, 0, nw);
		fprintf(f, "%6.1f  %*.*f  %*" PRIu64 "\n", model_percent(m, fn->self), sw,
			secs_prec(m), model_seconds(m, fn->self), cw, fn->calls);
	}
	fputc('\n', f);
}

/* ---- the stack tree ----------------------------------------------------- */

static const char *node_name(const struct model *m, const struct model_node *x)
{
	return model_name(m, x->cc, "<root>");
}

static size_t node_indent(const struct model_node *x)
{
	return x->depth < INDENT_MAX ? x->depth : INDENT_MAX;
}

/* Preorder successor using the links, so printing needs no recursion. */
static uint32_t tree_next(const struct model *m, uint32_t k)
{
	const struct model_node *x = &m->nodes[k];
	if (x->first_child != MODEL_NONE)
		return x->first_child;
	while (k != 0) {
		if (m->nodes[k].next_sibling != MODEL_NONE)
			return m->nodes[k].next_sibling;
		k = m->nodes[k].parent;
	}
	return MODEL_NONE;
}

static void text_tree(FILE *f, const struct model *m)
{
	size_t widest = 0;
	uint64_t max_entries = 0;
	for (uint32_t k = 0; k < m->nnodes; k++) {
		const struct model_node *x = &m->nodes[k];
		size_t w = node_indent(x) + escape_text_width(node_name(m, x));
		widest = w > widest ? w : widest;
		max_entries = x->entries > max_entries ? x->entries : max_entries;
	}
	size_t nw = name_col(widest, "COST CENTRE");
	int ew = max_int(udigits(max_entries), 7);
	int sw = secs_width(m, m->nodes[0].inherited, "secs");
	int prec = secs_prec(m);

	fputs("Stack tree: contexts grouped by compressed stack (the marked entries of\n"
	      "a history, each cost centre once, at its most recent activation), as in\n"
	      "Morgan & Jarvis.  A node's position says what was active, not who called\n"
	      "whom: see --graph for callers.\n\n", f);
	put_spaces(f, nw + 1 + (size_t)ew);
	fprintf(f, "  %-*s  %s\n", 6 + 2 + sw, "individual", "inherited");
	put_name(f, "COST CENTRE", 0, nw);
	fprintf(f, "%*s  %6s  %*s  %6s  %*s\n", ew, "entries", "%time", sw, "secs", "%time", sw,
		"secs");
	for (uint32_t k = 0; k != MODEL_NONE; k = tree_next(m, k)) {
		const struct model_node *x = &m->nodes[k];
		put_name(f, node_name(m, x), node_indent(x), nw);
		fprintf(f, "%*" PRIu64 "  %6.1f  %*.*f  %6.1f  %*.*f\n", ew, x->entries,
			model_percent(m, x->individual), sw, prec, model_seconds(m, x->individual),
			model_percent(m, x->inherited), sw, prec, model_seconds(m, x->inherited));
	}
	fputc('\n', f);
}

/* ---- call graph (gprof layout, exact arc times) ------------------------- */

struct graph {
	const struct model *m;
	uint32_t *index; /* cc -> [index] in the graph, 1-based */
	int sw, cw, prec;
};

static void graph_calls(FILE *f, const struct graph *g, uint64_t arc, uint64_t total)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%" PRIu64 "/%" PRIu64, arc, total);
	fprintf(f, "%*s", g->cw, buf);
}

static void graph_ref(FILE *f, const struct graph *g, uint32_t cc)
{
	escape_puts(f, &escape_text, g->m->fns[cc].name);
	fprintf(f, " [%" PRIu32 "]\n", g->index[cc]);
}

/* A caller or callee line: times of the arc as seen from this side. */
static void graph_arc_line(FILE *f, const struct graph *g, uint64_t self, uint64_t child,
			   uint64_t calls, uint64_t total, uint32_t other)
{
	const struct model *m = g->m;
	fprintf(f, "%6s %6s  %*.*f  %*.*f  ", "", "", g->sw, g->prec, model_seconds(m, self), g->sw,
		g->prec, model_seconds(m, child));
	graph_calls(f, g, calls, total);
	fputs("      ", f);
	if (other == MODEL_NONE)
		fputs("<spontaneous>\n", f);
	else
		graph_ref(f, g, other);
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
static void graph_block(FILE *f, const struct graph *g, uint32_t cc)
{
	const struct model *m = g->m;
	const struct model_fn *fn = &m->fns[cc];
	uint64_t rec = recursive_calls(m, cc);

	for (uint32_t i = m->in_start[cc]; i < m->in_start[cc + 1]; i++) {
		const struct model_arc *a = &m->arcs[m->in[i]];
		if (a->caller != cc)
			graph_arc_line(f, g, a->self_in, a->child_in, a->calls, fn->calls - rec,
				       a->caller);
	}

	char idx[32], calls[64];
	snprintf(idx, sizeof idx, "[%" PRIu32 "]", g->index[cc]);
	if (rec)
		snprintf(calls, sizeof calls, "%" PRIu64 "+%" PRIu64, fn->calls - rec, rec);
	else
		snprintf(calls, sizeof calls, "%" PRIu64, fn->calls);
	fprintf(f, "%-6s %6.1f  %*.*f  %*.*f  %*s  ", idx, model_percent(m, fn->inherited), g->sw,
		g->prec, model_seconds(m, fn->self), g->sw, g->prec,
		model_seconds(m, fn->inherited - fn->self), g->cw, calls);
	graph_ref(f, g, cc);

	for (uint32_t i = m->out_start[cc]; i < m->out_start[cc + 1]; i++) {
		const struct model_arc *a = &m->arcs[m->out[i]];
		if (a->callee != cc)
			graph_arc_line(f, g, a->self_out, a->child_out, a->calls,
				       m->fns[a->callee].calls - recursive_calls(m, a->callee),
				       a->callee);
	}
	fputs("-----------------------------------------------\n", f);
}

static void text_graph(FILE *f, const struct model *m)
{
	struct graph g = {.m = m, .prec = secs_prec(m)};
	g.index = xcalloc(m->nfns ? m->nfns : 1, sizeof *g.index);
	uint64_t max_calls = 0;
	for (uint32_t i = 0; i < m->nlisted; i++) {
		uint32_t cc = m->by_inherited[i];
		g.index[cc] = i + 1;
		max_calls = m->fns[cc].calls > max_calls ? m->fns[cc].calls : max_calls;
	}
	g.sw = secs_width(m, m->total_time, "children");
	g.cw = max_int(2 * udigits(max_calls) + 1, 9);

	fputs("Call graph: exact arc times, measured per calling context (not shared\n"
	      "out by call counts as gprof does).  Callers above each function show the\n"
	      "self and child time of each incoming arc, callees below it those of each\n"
	      "outgoing arc.  With mutual recursion the two views of one arc may differ:\n"
	      "an outgoing arc excludes time in the function's own recursive re-entry.\n\n",
	      f);
	fprintf(f, "%-6s %6s  %*s  %*s  %*s  %s\n", "index", "%time", g.sw, "self", g.sw,
		"children", g.cw, "calls", "name");
	for (uint32_t i = 0; i < m->nlisted; i++)
		graph_block(f, &g, m->by_inherited[i]);
	fputc('\n', f);
	free(g.index);
}

/* ---- contexts ----------------------------------------------------------- */

/* [marked] entries in brackets; "…" where two adjacent entries are both
 * unmarked (A4/A5 elided the path between them). */
static void text_history(FILE *f, const struct model *m, const struct model_ctx *c)
{
	if (c->len == 0) {
		fputs("<root>", f);
		return;
	}
	for (uint32_t i = 0; i < c->len; i++) {
		int marked = CCP_ENTRY_MARKED(c->hist[i]);
		if (i > 0)
			fputs(!marked && !CCP_ENTRY_MARKED(c->hist[i - 1]) ? " " ELLIPSIS " " : " ", f);
		if (marked)
			fputc('[', f);
		escape_puts(f, &escape_text, m->fns[CCP_ENTRY_CC(c->hist[i])].name);
		if (marked)
			fputc(']', f);
	}
}

static void text_contexts(FILE *f, const struct model *m)
{
	uint64_t max_e = 0, max_r = 0;
	for (uint32_t k = 0; k < m->nctx; k++) {
		max_e = m->ctx[k].entries > max_e ? m->ctx[k].entries : max_e;
		max_r = m->ctx[k].recursive > max_r ? m->ctx[k].recursive : max_r;
	}
	int sw = secs_width(m, m->nctx ? m->ctx[m->ctx_by_time[0]].time : 0, "secs");
	int ew = max_int(udigits(max_e), 7), rw = max_int(udigits(max_r), 9);
	int prec = secs_prec(m);

	fputs("Contexts, most expensive first.  [Marked] entries are active; an unmarked\n"
	      "one only supplies the arc into or out of its neighbour; " ELLIPSIS " marks a path\n"
	      "that was elided.\n\n", f);
	fprintf(f, "%*s  %6s  %*s  %*s  %s\n", sw, "secs", "%time", ew, "entries", rw,
		"recursive", "history");
	for (uint32_t i = 0; i < m->nctx; i++) {
		const struct model_ctx *c = &m->ctx[m->ctx_by_time[i]];
		fprintf(f, "%*.*f  %6.1f  %*" PRIu64 "  %*" PRIu64 "  ", sw, prec,
			model_seconds(m, c->time), model_percent(m, c->time), ew, c->entries, rw,
			c->recursive);
		text_history(f, m, c);
		fputc('\n', f);
	}
	fputc('\n', f);
}

unsigned report_text_passes(const struct report_opts *o)
{
	return MODEL_FLAT | (o->no_tree ? 0 : MODEL_TREE) | (o->graph ? MODEL_ARCS : 0) |
	       (o->contexts ? MODEL_CONTEXTS : 0);
}

int report_text(FILE *f, const struct model *m, const struct report_opts *o)
{
	text_header(f, m);
	text_flat(f, m, o->top);
	if (!o->no_tree)
		text_tree(f, m);
	if (o->graph)
		text_graph(f, m);
	if (o->contexts)
		text_contexts(f, m);
	return ferror(f) ? -1 : 0;
}
