/*
 * export_svg.c - a flame graph of the stack tree, drawn by ccprof: one
 * self-contained SVG file (no script, no external reference) that any
 * browser or image viewer shows.
 *
 * Each compressed stack is a box as wide as its inherited time, on top of
 * its parent's (--inverted: below, an icicle graph), children from the
 * left in the model's order (most time first).  The bottom box "all" is
 * the whole run; time outside every cost centre is its part not covered.
 * Boxes narrower than 0.1 px are left out.  Hovering shows the <title>:
 * name, exact inherited and individual seconds with percentages, and
 * entries.  Labels are cut to the box (by characters, never inside one)
 * and every name goes through escape_xml.
 *
 * Allocations: with allocation data the tooltips add the bytes and
 * blocks, inherited and individual; --weight alloc makes the widths the
 * inherited bytes instead of the inherited time (a flame graph of
 * allocation).  Without allocation data the file is as before.
 *
 * Colours are flamegraph.pl's "hot" palette, chosen by a hash of the
 * name, so a function has the same colour everywhere.
 */
#include "output/export.h"

#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"
#include "output/escape.h"
#include "output/ob.h"
#include "output/report.h"

#define SVG_WIDTH 1200
#define SVG_PAD 10
#define SVG_HEADER 56
#define SVG_FOOTER 10
#define FRAME_H 16
#define FONT_SIZE 12
#define CHAR_W (FONT_SIZE * 0.59) /* average glyph width of Verdana */
#define MIN_W 0.1

struct svg {
	struct ob *o;
	const struct model *m;
	double scale;        /* px per unit of weight: tick, or byte */
	uint32_t depth_max;  /* deepest drawn box */
	int inverted;
	int alloc;           /* widths are bytes (--weight alloc) */
	int measured;        /* allocation data: in the tooltips */
	uint64_t *cum;       /* per depth: weight to the left of the next box */
	uint32_t cap;
};

static double box_width(const struct svg *s, uint64_t weight)
{
	return (double)weight * s->scale;
}

/* What a box's width stands for: inherited time, or inherited bytes. */
static uint64_t box_weight(const struct svg *s, const struct model_node *x,
			   const struct model_node_alloc *a)
{
	return s->alloc ? a->inherited.bytes : x->inherited;
}

/* The label: as many characters as fit in w px, ".." when cut. */
static void svg_label(struct ob *o, const char *name, double w)
{
	if (w >= 3 * CHAR_W)
		export_xml_cut(o, name, (size_t)((w - 6) / CHAR_W));
}

/* "S s (P%)": exact seconds and the share of the total. */
static void svg_time(struct svg *s, uint64_t ticks)
{
	ob_decimal(s->o, ticks, s->m->prof->ticks_per_sec);
	ob_puts(s->o, " s (");
	ob_ratio(s->o, ticks, s->m->total_time, 2, 2, 0);
	ob_puts(s->o, "%)");
}

/* "B bytes (P%)": bytes and their share of the bytes of all contexts. */
static void svg_bytes(struct svg *s, uint64_t bytes)
{
	ob_u64(s->o, bytes, 0);
	ob_puts(s->o, " bytes (");
	ob_ratio(s->o, bytes, s->m->total_alloc.bytes, 2, 2, 0);
	ob_puts(s->o, "%)");
}

/* The tooltip's allocation lines. */
static void svg_alloc(struct svg *s, const struct model_node_alloc *a)
{
	struct ob *o = s->o;
	ob_puts(o, "\nallocated ");
	svg_bytes(s, a->inherited.bytes);
	ob_puts(o, " in ");
	ob_u64(o, a->inherited.blocks, 0);
	ob_puts(o, " blocks\nindividually ");
	svg_bytes(s, a->individual.bytes);
	ob_puts(o, " in ");
	ob_u64(o, a->individual.blocks, 0);
	ob_puts(o, " blocks");
}

static void svg_box(struct svg *s, const struct model_node *x, const struct model_node_alloc *a,
		    const char *name, double px, uint32_t depth)
{
	struct ob *o = s->o;
	double w = box_width(s, box_weight(s, x, a));
	uint32_t row = s->inverted ? depth : s->depth_max - depth;
	double y = SVG_HEADER + (double)row * FRAME_H;
	uint32_t h = export_name_hash(name);
	unsigned r = 205 + (h & 0xff) * 50 / 255, g = ((h >> 8) & 0xff) * 230 / 255,
		 b = ((h >> 16) & 0xff) * 55 / 255;

	ob_puts(o, "<g><title>");
	escape_puts(o, &escape_xml, name);
	ob_puts(o, "\ninherited ");
	svg_time(s, x->inherited);
	ob_puts(o, "\nindividual ");
	svg_time(s, x->individual);
	ob_puts(o, "\nentries ");
	ob_u64(o, x->entries, 0);
	if (s->measured)
		svg_alloc(s, a);
	ob_printf(o, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
		     "fill=\"rgb(%u,%u,%u)\" rx=\"2\" ry=\"2\"/>",
		  px, y, w, FRAME_H - 1, r, g, b);
	if (w >= 3 * CHAR_W) {
		ob_printf(o, "<text x=\"%.2f\" y=\"%.1f\">", px + 3, y + FRAME_H - 4.5);
		svg_label(o, name, w);
		ob_puts(o, "</text>");
	}
	ob_puts(o, "</g>\n");
}

static void svg_visit(void *arg, const struct model_node *x, const struct model_node_alloc *a,
		      const uint32_t *path, uint32_t depth, int leaving)
{
	struct svg *s = arg;
	if (leaving)
		return;
	if (depth + 1 >= s->cap) {
		s->cap = 2 * (depth + 1);
		s->cum = xrealloc(s->cum, s->cap, sizeof *s->cum);
	}
	uint64_t weight = box_weight(s, x, a);
	uint64_t left = depth ? s->cum[depth] : 0;
	s->cum[depth] = left + weight; /* the next sibling starts here */
	s->cum[depth + 1] = left;      /* the first child starts here */
	if (box_width(s, weight) < MIN_W && depth > 0)
		return;
	const char *name = depth ? export_path_name(s->m, path[depth - 1]) : "all";
	svg_box(s, x, a, name, SVG_PAD + box_width(s, left), depth);
}

/* The deepest box drawn: pruned nodes are not, their stand-ins are. */
static uint32_t svg_depth(const struct svg *s)
{
	const struct model *m = s->m;
	const uint8_t *hidden = m->tree_pruned.hidden;
	uint32_t d = 0;
	for (uint32_t k = 0; k < m->nnodes; k++) {
		const struct model_node *x = &m->nodes[k];
		if (hidden && hidden[k])
			continue;
		struct model_node_alloc a = model_node_alloc_at(m->node_alloc, k);
		if (x->depth > d && box_width(s, box_weight(s, x, &a)) >= MIN_W)
			d = x->depth;
		if (!hidden || !m->tree_pruned.rest[k].count)
			continue;
		const struct model_hidden *r = &m->tree_pruned.rest[k];
		if (x->depth + 1 > d && box_width(s, s->alloc ? r->alloc.bytes : r->time) >= MIN_W)
			d = x->depth + 1;
	}
	return d;
}

int export_svg(FILE *f, const struct export_input *in, const struct export_opts *opts)
{
	const struct model *m = in->m;
	struct svg *s = xcalloc(1, sizeof *s);
	struct ob *o = ob_open(f);
	s->o = o;
	s->m = m;
	s->inverted = opts->inverted;
	s->alloc = opts->weight == EXPORT_WEIGHT_ALLOC;
	s->measured = model_alloc_measured(m);
	uint64_t total = s->alloc ? m->total_alloc.bytes : m->total_time;
	s->scale = total ? (SVG_WIDTH - 2.0 * SVG_PAD) / (double)total : 0;
	s->depth_max = svg_depth(s);
	unsigned height = SVG_HEADER + (s->depth_max + 1) * FRAME_H + SVG_FOOTER;

	ob_printf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		     "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		     "height=\"%u\" viewBox=\"0 0 %d %u\">\n",
		  SVG_WIDTH, height, SVG_WIDTH, height);
	ob_printf(o, "<style>text{font-family:Verdana,sans-serif;font-size:%dpx;fill:#000}"
		     "g:hover rect{stroke:#000;stroke-width:0.5}"
		     ".h{font-size:17px;text-anchor:middle}.i{fill:#444}</style>\n",
		  FONT_SIZE);
	ob_printf(o, "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n"
		     "<text class=\"h\" x=\"%d\" y=\"24\">%s%s: ",
		  SVG_WIDTH / 2, opts->inverted ? "Icicle graph" : "Flame graph",
		  s->alloc ? " of bytes allocated" : "");
	escape_puts(o, &escape_xml, export_program(m));
	ob_printf(o, "</text>\n<text class=\"i\" x=\"%d\" y=\"44\">total ", SVG_PAD);
	ob_decimal(o, m->total_time, m->prof->ticks_per_sec);
	ob_puts(o, " s (");
	ob_puts(o, report_clock_name(m->prof->clock));
	ob_puts(o, "), ");
	ob_u64(o, m->total_calls, 0);
	ob_puts(o, " calls");
	if (s->measured) {
		ob_puts(o, ", ");
		ob_u64(o, m->total_alloc.bytes, 0);
		ob_puts(o, s->alloc ? " bytes allocated (the widths)" : " bytes allocated");
	}
	ob_puts(o, ". Stacks are compressed (a function appears once per stack, at its "
		   "most recent entry); hover for exact figures.</text>\n");
	export_walk_tree(m, svg_visit, s);
	ob_puts(o, "</svg>\n");
	int ret = ob_close(o);
	free(s->cum);
	free(s);
	return ret;
}
