/*
 * export_dot.c - the call graph for Graphviz (docs/exports.md, "dot"),
 * laid out in gprof2dot's style: one box per function, one edge per arc.
 *
 *   node   name, inherited %, (self %), calls×; filled with a colour from
 *          blue (cold) to red (hot) by inherited time; the tooltip has the
 *          exact seconds.  Functions whose inherited time is below
 *          --node-threshold percent (default 0.5) are left out, with their
 *          arcs.
 *   edge   the arc's share of the total, its exact inherited time in
 *          seconds, and its calls (docs/semantics.md, "The views").  The
 *          time is the arc's self_in + child_in, the callee's time when
 *          called along this arc: the arcs into a function (with its
 *          thread-root share) add up to its inherited time, also under
 *          mutual recursion, and they are the times the callgrind export
 *          gives (export_callgrind.c).  A recursive arc F→F has calls and
 *          no time.
 *
 * The expensive arm is drawn in red with thick lines: the functions of
 * model_hot's arm of the stack tree (from the root, the child with the
 * largest inherited time while it holds at least half of its parent's)
 * and the arcs between consecutive ones.
 *
 * Node ids are "f<ccprof id>" (names need not be unique, and need no
 * quoting rules); every name goes through escape_dot.  Graphviz rejects a
 * quoted string over 16381 bytes ("syntax error ... scanning a quoted
 * string"), and a C++ name can be longer: names (and the program's, in
 * the graph's label) are cut to DOT_NAME_MAX bytes (with "…"), so that an edge's tooltip, two names escaped (at most
 * 5 bytes a byte: "&amp;") and its figures, stays under that.
 */
#include "output/export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"
#include "output/escape.h"
#include "output/names.h"

#define DOT_NAME_MAX 1500
#include "output/ob.h"

#define HOT_COLOR "#d00000"

struct dot {
	struct ob *o;
	const struct model *m;
	struct names names;      /* escape_dot */
	unsigned char *keep;     /* per cc: drawn */
	unsigned char *hot_fn;   /* per cc: on the expensive arm */
	unsigned char *hot_arc;  /* per arc */
};

static uint64_t arc_time(const struct model_arc *a)
{
	return a->self_in + a->child_in;
}

/* The expensive arm: model_hot's stack-tree nodes, as functions, and the
 * arcs between consecutive ones where the call graph has them. */
static void dot_hot(struct dot *d)
{
	const struct model *m = d->m;
	uint32_t prev = MODEL_NONE;
	for (uint32_t i = 0; m->hot_done && i < m->narm; i++) {
		uint32_t cc = m->nodes[m->arm[i]].cc;
		d->hot_fn[cc] = 1;
		const struct model_arc *a = prev != MODEL_NONE ? model_find_arc(m, prev, cc) : NULL;
		if (a)
			d->hot_arc[a - m->arcs] = 1;
		prev = cc;
	}
}

/* gprof2dot's temperature colour map: HSL from dark blue (w = 0) to red
 * (w = 1).  Returns the relative luminance, to choose the text colour. */
static double dot_color(struct ob *o, double w)
{
	w = w < 0 ? 0 : w > 1 ? 1 : w;
	double h = 2.0 / 3.0 * (1 - w), s = 0.8 + 0.2 * w, l = 0.25 + 0.25 * w;
	double c = (1 - fabs(2 * l - 1)) * s, hp = h * 6, x = c * (1 - fabs(fmod(hp, 2) - 1));
	double rgb[3] = {0, 0, 0};
	/* per sixth of the hue circle: the component at c, the one at x */
	static const int big[6] = {0, 1, 1, 2, 2, 0}, mid[6] = {1, 0, 2, 1, 0, 2};
	int sixth = hp < 0 ? 0 : hp >= 6 ? 5 : (int)hp;
	rgb[big[sixth]] = c;
	rgb[mid[sixth]] = x;
	double mm = l - c / 2, lum = 0;
	static const double weight[3] = {0.2126, 0.7152, 0.0722};
	for (int i = 0; i < 3; i++) {
		rgb[i] += mm;
		lum += weight[i] * rgb[i];
	}
	ob_printf(o, "\"#%02x%02x%02x\"", (unsigned)lround(rgb[0] * 255),
		  (unsigned)lround(rgb[1] * 255), (unsigned)lround(rgb[2] * 255));
	return lum;
}

static void pct(struct dot *d, uint64_t ticks)
{
	ob_ratio(d->o, ticks, d->m->total_time, 2, 2, 0);
	ob_putc(d->o, '%');
}

static void secs(struct dot *d, uint64_t ticks)
{
	ob_decimal(d->o, ticks, d->m->prof->ticks_per_sec);
	ob_puts(d->o, " s");
}

static double weight(const struct model *m, uint64_t ticks)
{
	return m->total_time ? (double)ticks / (double)m->total_time : 0;
}

static void dot_node(struct dot *d, uint32_t cc)
{
	struct ob *o = d->o;
	const struct model_fn *fn = &d->m->fns[cc];
	ob_printf(o, "  f%u [label=\"", (unsigned)cc);
	names_put(o, &d->names, cc);
	ob_puts(o, "\\n");
	pct(d, fn->inherited);
	ob_puts(o, "\\n(");
	pct(d, fn->self);
	ob_puts(o, ")\\n");
	ob_u64(o, fn->calls, 0);
	ob_puts(o, "\xc3\x97\", tooltip=\"");
	names_put(o, &d->names, cc);
	ob_puts(o, "\\ninherited ");
	secs(d, fn->inherited);
	ob_puts(o, "\\nself ");
	secs(d, fn->self);
	ob_puts(o, "\\ncalls ");
	ob_u64(o, fn->calls, 0);
	ob_puts(o, "\", fillcolor=");
	if (dot_color(o, weight(d->m, fn->inherited)) > 0.4)
		ob_puts(o, ", fontcolor=black");
	if (d->hot_fn[cc])
		ob_puts(o, ", color=\"" HOT_COLOR "\", penwidth=3");
	ob_puts(o, "];\n");
}

static void dot_edge(struct dot *d, uint32_t k)
{
	struct ob *o = d->o;
	const struct model_arc *a = &d->m->arcs[k];
	double w = weight(d->m, arc_time(a));
	ob_printf(o, "  f%u -> f%u [label=\"", (unsigned)a->caller, (unsigned)a->callee);
	if (a->caller != a->callee) {
		pct(d, arc_time(a));
		ob_puts(o, "\\n");
		secs(d, arc_time(a));
		ob_puts(o, "\\n");
	}
	ob_u64(o, a->calls, 0);
	ob_puts(o, "\xc3\x97\", tooltip=\"");
	names_put(o, &d->names, a->caller);
	ob_puts(o, " -> ");
	names_put(o, &d->names, a->callee);
	ob_puts(o, "\\n");
	secs(d, arc_time(a));
	ob_puts(o, " (self ");
	secs(d, a->self_in);
	ob_puts(o, ", children ");
	secs(d, a->child_in);
	ob_puts(o, ")\\ncalls ");
	ob_u64(o, a->calls, 0);
	ob_puts(o, "\", color=");
	if (d->hot_arc[k]) {
		ob_puts(o, "\"" HOT_COLOR "\", fontcolor=\"" HOT_COLOR "\", style=bold, "
			   "penwidth=4");
	} else {
		dot_color(o, w);
		ob_printf(o, ", penwidth=%.2f", 1 + 3 * w);
	}
	ob_printf(o, ", arrowsize=%.2f];\n", 0.5 + 0.5 * w);
}

int export_dot(FILE *f, const struct export_input *in, const struct export_opts *opts)
{
	const struct model *m = in->m;
	struct dot *d = xcalloc(1, sizeof *d);
	struct ob *o = ob_open(f);
	d->o = o;
	d->m = m;
	names_init_max(&d->names, m, &escape_dot, DOT_NAME_MAX);
	d->keep = xcalloc(m->nfns + 1, 1);
	d->hot_fn = xcalloc(m->nfns + 1, 1);
	d->hot_arc = xcalloc(m->narcs + 1, 1);
	dot_hot(d);

	ob_puts(o, "digraph callgraph {\n"
		   "  graph [ranksep=0.25, nodesep=0.125, fontname=\"Helvetica\", labelloc=t, "
		   "label=\"");
	/* The program's name is cut as function names are: a file name can
	 * be as long as a quoted string may not. */
	const char *prog = export_program(m);
	size_t len = strlen(prog);
	if (len > DOT_NAME_MAX) {
		len = names_cut(prog, DOT_NAME_MAX);
		char *buf = xmalloc(ESCAPE_MAX(len) + 1);
		ob_write(o, buf, escape_mem(buf, &escape_dot, prog, len));
		ob_puts(o, NAMES_CUT);
		free(buf);
	} else {
		escape_puts(o, &escape_dot, prog);
	}
	ob_puts(o, ": ");
	secs(d, m->total_time);
	ob_puts(o, ", ");
	ob_u64(o, m->total_calls, 0);
	ob_printf(o, " calls; functions below %g%% left out\"];\n", opts->node_threshold);
	ob_puts(o, "  node [shape=box, style=\"filled,rounded\", fontcolor=white, "
		   "fontname=\"Helvetica\"];\n"
		   "  edge [fontname=\"Helvetica\"];\n");
	for (uint32_t i = 0; i < m->nlisted; i++) {
		uint32_t cc = m->by_inherited[i];
		double p = m->total_time ? 100.0 * weight(m, m->fns[cc].inherited) : 100.0;
		if (p + 1e-12 < opts->node_threshold)
			continue;
		d->keep[cc] = 1;
		dot_node(d, cc);
	}
	for (uint32_t k = 0; k < m->narcs; k++) {
		const struct model_arc *a = &m->arcs[k];
		if (a->caller != MODEL_NONE && d->keep[a->caller] && d->keep[a->callee])
			dot_edge(d, k);
	}
	ob_puts(o, "}\n");
	int ret = ob_close(o);
	names_free(&d->names);
	free(d->keep);
	free(d->hot_fn);
	free(d->hot_arc);
	free(d);
	return ret;
}
