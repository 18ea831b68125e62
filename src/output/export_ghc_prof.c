/*
 * export_ghc_prof.c - the stack tree as GHC's text time and allocation
 * profile in its `+RTS -P` form (docs/exports.md, "ghc-prof"): a header,
 * the flat table of cost centres, then the stack tree, laid out as
 * rts/ProfilerReport.c prints them.
 *
 * Mapping (docs/exports.md), ghc-json's (export_ghc_json.c) where the two
 * formats share a field:
 *   COST CENTRE    the function or region name; MAIN for the empty stack
 *                  (the tree's root), "(hidden)" for pruned stacks
 *   MODULE, SRC    export_ghc_where: the source file without extension
 *                  and file:line when known, else the object file
 *   no.            the row's number in the tree, 1 for MAIN (GHC's
 *                  stack id: one per stack, not per cost centre)
 *   entries        Σ E+R of the stack's contexts
 *   ticks          individual time in ticks of the sampling interval
 *                  (ghcp_tick_us), rounded by export_scale so that they
 *                  add up to the header's total ticks
 *   bytes          the bytes the stack allocated itself, 0 without
 *                  allocation data (the header's total alloc then 0 too)
 *   %time, %alloc  of the header's totals, from ccprof's exact times
 *                  and bytes, so they are `ccprof report`'s; 0.0 when a
 *                  total is 0
 *
 * The `-P` form because its ticks and bytes columns carry the raw
 * numbers; `-p` is the same without them.  Every string goes through
 * escape_line (a control character becomes '?', invalid UTF-8 U+FFFD), so
 * no name can break a line or move a column, and column widths count
 * characters, as GHC's strlen_utf8.
 */
#include "output/export.h"

#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"
#include "output/escape.h"
#include "output/ob.h"

/*
 * Bounds that keep the output linear in the tree's size: every row is
 * as wide as the widest label (indent + name), so one hostile name of a
 * megabyte, or one stack thousands of cost centres deep, would otherwise
 * make every row that wide.  A string longer than GHCP_TEXT_MAX bytes is
 * cut at a character boundary and ends in "…"; rows deeper than
 * GHCP_INDENT_MAX are indented as that depth.  Real profiles stay well
 * inside both.
 */
#define GHCP_TEXT_MAX 1000
#define GHCP_INDENT_MAX 200
#define GHCP_CUT "\xe2\x80\xa6" /* U+2026 */

/* Fixed widths of GHC's numeric columns (rts/ProfilerReport.c; both
 * tables of docs/exports.md, "ghc-prof"). */
#define W_ENTRIES 11
#define W_TICKS 5
#define W_BYTES 9

/* A piece of escaped text in the pool, and its width in characters. */
struct cell {
	size_t off;
	uint32_t len, width;
};

/* What a row shows of its cost centre. */
struct ghcp_cc {
	struct cell label, module, src;
	int made;
};

/* One node of the stack tree, in the order of the walk (depth first). */
struct ghcp_row {
	uint32_t cc;      /* index into ccs: a cost centre, MAIN or HIDDEN */
	uint32_t depth;
	uint64_t entries;
	uint64_t ticks;   /* individual, in GHC ticks */
	uint64_t time;    /* individual and inherited, in the model's ticks */
	uint64_t inherited;
	uint64_t bytes;   /* individual and inherited bytes */
	uint64_t inherited_bytes;
	int keep;         /* it or something under it has a cost: shown */
};

/* Costs of a cost centre over all its stacks (the flat table). */
struct ghcp_flat {
	uint32_t cc;
	uint64_t ticks, time, bytes;
};

struct ghcp {
	struct ob *o;
	const struct model *m;
	struct export_scale scale;
	struct ghcp_cc *ccs; /* m->nfns cost centres, then MAIN and HIDDEN */
	char *pool;
	size_t pool_len, pool_cap;
	struct ghcp_row *rows;
	uint32_t nrows, rows_cap;
	uint32_t *open;      /* rows entered and not yet left */
	uint64_t total_ticks;
};

#define GHCP_MAIN(m) ((m)->nfns)
#define GHCP_HIDDEN(m) ((m)->nfns + 1)

/* ---- text cells ----------------------------------------------------------- */

/* Characters of valid UTF-8 text: the bytes that start one. */
static uint32_t utf8_chars(const char *s, size_t n)
{
	uint32_t w = 0;
	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* Room for n more bytes at the end of the pool. */
static char *pool_reserve(struct ghcp *g, size_t n)
{
	if (g->pool_cap - g->pool_len < n) {
		g->pool_cap = (g->pool_cap + n) * 2;
		g->pool = xrealloc(g->pool, g->pool_cap, 1);
	}
	return g->pool + g->pool_len;
}

/* s[0..n) escaped onto the pool, cut to GHCP_TEXT_MAX bytes (before a
 * character that would cross the limit) and "…" added. */
static struct cell cell_make(struct ghcp *g, const char *s, size_t n)
{
	struct cell c = {.off = g->pool_len};
	int cut = n > GHCP_TEXT_MAX;
	if (cut) {
		n = GHCP_TEXT_MAX;
		for (int back = 0; back < 3 && n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80; back++)
			n--;
	}
	char *out = pool_reserve(g, ESCAPE_MAX(n) + sizeof GHCP_CUT);
	size_t k = escape_mem(out, &escape_line, s, n);
	if (cut) {
		memcpy(out + k, GHCP_CUT, sizeof GHCP_CUT - 1);
		k += sizeof GHCP_CUT - 1;
	}
	g->pool_len += k;
	c.len = (uint32_t)k;
	c.width = utf8_chars(out, k);
	return c;
}

static struct cell cell_str(struct ghcp *g, const char *s)
{
	return cell_make(g, s, strlen(s));
}

/* SRC: file:line (the file cut alone: the line is the useful end). */
static struct cell cell_src(struct ghcp *g, const struct export_ghc_where *w)
{
	struct cell c = cell_str(g, w->src);
	if (w->line) {
		char num[16];
		int n = snprintf(num, sizeof num, ":%u", (unsigned)w->line);
		memcpy(pool_reserve(g, (size_t)n), num, (size_t)n);
		g->pool_len += (size_t)n;
		c.len += (uint32_t)n;
		c.width += (uint32_t)n;
	}
	return c;
}

/* The cells of cost centre i, made on first use. */
static const struct ghcp_cc *cc_cells(struct ghcp *g, uint32_t i)
{
	struct ghcp_cc *c = &g->ccs[i];
	const struct model *m = g->m;
	if (c->made)
		return c;
	c->made = 1;
	if (i >= GHCP_MAIN(m)) {
		c->label = cell_str(g, i == GHCP_MAIN(m) ? EXPORT_GHC_MAIN : EXPORT_HIDDEN_NAME);
		c->module = cell_str(g, EXPORT_GHC_MAIN);
		c->src = cell_str(g, i == GHCP_MAIN(m) ? EXPORT_GHC_MAIN_SRC : EXPORT_GHC_HIDDEN_SRC);
		return c;
	}
	struct export_ghc_where w;
	export_ghc_where(m, i, &w);
	c->label = cell_str(g, m->fns[i].name);
	c->module = cell_make(g, w.module, w.module_len);
	c->src = cell_src(g, &w);
	return c;
}

/* A cell left-aligned in a column of width w, after indent spaces. */
static void put_cell(struct ghcp *g, struct cell c, size_t indent, size_t w)
{
	ob_spaces(g->o, indent);
	ob_write(g->o, g->pool + c.off, c.len);
	if (indent + c.width < w)
		ob_spaces(g->o, w - indent - c.width);
}

/* A heading left-aligned in a column of width w. */
static void put_heading(struct ob *o, const char *s, size_t w)
{
	size_t n = strlen(s);
	ob_puts(o, s);
	if (n < w)
		ob_spaces(o, w - n);
}

static size_t max_size(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* ---- the rows: one walk of the stack tree --------------------------------- */

static void row_enter(struct ghcp *g, const struct model_node *x,
		      const struct model_node_alloc *a, uint32_t depth)
{
	const struct model *m = g->m;
	if (g->nrows == g->rows_cap) {
		g->rows_cap = g->rows_cap ? 2 * g->rows_cap : 256;
		g->rows = xrealloc(g->rows, g->rows_cap, sizeof *g->rows);
		g->open = xrealloc(g->open, g->rows_cap, sizeof *g->open);
	}
	g->open[depth] = g->nrows;
	g->rows[g->nrows++] = (struct ghcp_row){
		.cc = x->cc == MODEL_NONE ? GHCP_MAIN(m)
		      : x->cc == EXPORT_HIDDEN ? GHCP_HIDDEN(m) : x->cc,
		.depth = depth,
		.entries = x->entries,
		/* in the walk's order, as ghc-json, so both give the same ticks */
		.ticks = export_scale(&g->scale, x->individual),
		.time = x->individual,
		.inherited = x->inherited,
		.bytes = a->individual.bytes,
		.inherited_bytes = a->inherited.bytes,
		.keep = depth == 0, /* MAIN always: the tree has a root */
	};
}

/*
 * GHC leaves out a stack with no entries, no time and no allocation
 * whose children are all left out (docs/exports.md, "ghc-prof": "a subtree
 * with no entries, no time and no bytes is left out").  A node's children
 * are left before it, so each one that is kept has marked its parent by
 * then.
 */
static void row_leave(struct ghcp *g, uint32_t depth)
{
	struct ghcp_row *r = &g->rows[g->open[depth]];
	if (r->entries || r->time || r->bytes)
		r->keep = 1;
	if (r->keep && depth > 0)
		g->rows[g->open[depth - 1]].keep = 1;
}

static void ghcp_visit(void *arg, const struct model_node *x, const struct model_node_alloc *a,
		       const uint32_t *path, uint32_t depth, int leaving)
{
	struct ghcp *g = arg;
	(void)path;
	if (leaving)
		row_leave(g, depth);
	else
		row_enter(g, x, a, depth);
}

/* ---- header -------------------------------------------------------------- */

/* v with a comma between each group of three digits, right-aligned. */
static void put_commas(struct ob *o, uint64_t v, int width)
{
	char digits[32], out[40];
	int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v), k = 0;
	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			out[k++] = ',';
		out[k++] = digits[i];
	}
	if (k < width)
		ob_spaces(o, (size_t)(width - k));
	ob_write(o, out, (size_t)k);
}

static void put_line_text(struct ob *o, const char *s)
{
	escape_puts(o, &escape_line, s ? s : "");
}

/*
 * processors: GHC's capabilities (+RTS -N), by which it divides its
 * ticks to give wall-clock seconds.  ccprof's total is the time of every
 * thread added up, which is what GHC's formula gives with one, so 1.
 */
static void ghcp_header(struct ghcp *g, uint64_t tick_us)
{
	struct ob *o = g->o;
	const struct model *m = g->m;
	const struct ccp_profile *p = m->prof;
	char date[64];
	export_ghc_date(m, date, sizeof date);
	ob_putc(o, '\t');
	ob_puts(o, date);
	ob_puts(o, " Time and Allocation Profiling Report  (Final)\n\n\t   ");
	put_line_text(o, export_program(m));
	for (uint32_t i = 1; i < p->argc; i++) {
		ob_putc(o, ' ');
		put_line_text(o, p->argv[i]);
	}
	ob_puts(o, "\n\n\ttotal time  = ");
	ob_ratio(o, m->total_time, p->ticks_per_sec, 0, 2, 11);
	ob_puts(o, " secs   (");
	ob_u64(o, g->total_ticks, 0);
	ob_puts(o, " ticks @ ");
	ob_u64(o, tick_us, 0);
	ob_puts(o, " us, 1 processor)\n\ttotal alloc = ");
	put_commas(o, m->total_alloc.bytes, 11);
	ob_puts(o, " bytes  (excludes profiling overheads)\n\n");
}

/* A %time and %alloc pair, shares of the header's totals, each after
 * sep, in width columns (the flat table's %6.1f, the tree's %5.1f). */
static void put_pct(struct ghcp *g, const char *sep, uint64_t time, uint64_t bytes, int width)
{
	ob_puts(g->o, sep);
	ob_ratio(g->o, time, g->m->total_time, 2, 1, width);
	ob_puts(g->o, sep);
	ob_ratio(g->o, bytes, g->m->total_alloc.bytes, 2, 1, width);
}

/* The -P columns, which end every row. */
static void put_ticks_bytes(struct ob *o, uint64_t ticks, uint64_t bytes)
{
	ob_spaces(o, 2);
	ob_u64(o, ticks, W_TICKS);
	ob_putc(o, ' ');
	ob_u64(o, bytes, W_BYTES);
	ob_putc(o, '\n');
}

/* ---- flat table ------------------------------------------------------------ */

/* Largest ticks first; ties by exact time, bytes, then cost centre. */
static int flat_order(const void *pa, const void *pb)
{
	const struct ghcp_flat *a = pa, *b = pb;
	if (a->ticks != b->ticks)
		return a->ticks < b->ticks ? 1 : -1;
	if (a->time != b->time)
		return a->time < b->time ? 1 : -1;
	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	return (a->cc > b->cc) - (a->cc < b->cc);
}

/* Each cost centre's costs over its stacks; those GHC lists (more than
 * 1 % of the ticks or of the bytes, integer division) first, sorted;
 * returns how many are listed. */
static uint32_t flat_costs(struct ghcp *g, struct ghcp_flat *f, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		f[i] = (struct ghcp_flat){.cc = i};
	for (uint32_t r = 0; r < g->nrows; r++) {
		struct ghcp_flat *x = &f[g->rows[r].cc];
		x->ticks += g->rows[r].ticks;
		x->time += g->rows[r].time;
		x->bytes += g->rows[r].bytes;
	}
	uint32_t listed = 0;
	for (uint32_t i = 0; i < n; i++)
		if (f[i].ticks > g->total_ticks / 100 ||
		    f[i].bytes > g->m->total_alloc.bytes / 100)
			f[listed++] = f[i];
	qsort(f, listed, sizeof *f, flat_order);
	return listed;
}

static void ghcp_flat(struct ghcp *g)
{
	struct ob *o = g->o;
	uint32_t n = GHCP_HIDDEN(g->m) + 1;
	struct ghcp_flat *f = xnmalloc(n, sizeof *f);
	uint32_t listed = flat_costs(g, f, n);
	size_t lw = 11, mw = 6, sw = 3; /* the headings' widths */
	for (uint32_t i = 0; i < listed; i++) {
		const struct ghcp_cc *c = cc_cells(g, f[i].cc);
		lw = max_size(lw, c->label.width);
		mw = max_size(mw, c->module.width);
		sw = max_size(sw, c->src.width);
	}
	put_heading(o, "COST CENTRE", lw + 1);
	put_heading(o, "MODULE", mw + 1);
	put_heading(o, "SRC", sw);
	ob_puts(o, "  %time %alloc  ticks     bytes\n\n");
	for (uint32_t i = 0; i < listed; i++) {
		const struct ghcp_cc *c = cc_cells(g, f[i].cc);
		put_cell(g, c->label, 0, lw + 1);
		put_cell(g, c->module, 0, mw + 1);
		put_cell(g, c->src, 0, sw);
		put_pct(g, " ", f[i].time, f[i].bytes, 6);
		put_ticks_bytes(o, f[i].ticks, f[i].bytes);
	}
	ob_puts(o, "\n\n");
	free(f);
}

/* ---- stack tree ------------------------------------------------------------ */

static uint32_t indent_of(uint32_t depth)
{
	return depth < GHCP_INDENT_MAX ? depth : GHCP_INDENT_MAX;
}

struct tree_widths {
	size_t label, module, src, no;
};

static struct tree_widths tree_measure(struct ghcp *g)
{
	struct tree_widths w = {11, 6, 3, 3};
	uint32_t shown = 0;
	for (uint32_t r = 0; r < g->nrows; r++) {
		if (!g->rows[r].keep)
			continue;
		const struct ghcp_cc *c = cc_cells(g, g->rows[r].cc);
		w.label = max_size(w.label, indent_of(g->rows[r].depth) + c->label.width);
		w.module = max_size(w.module, c->module.width);
		w.src = max_size(w.src, c->src.width);
		shown++;
	}
	char num[24];
	w.no = max_size(w.no, (size_t)snprintf(num, sizeof num, "%u", (unsigned)shown));
	return w;
}

static void tree_headings(struct ob *o, const struct tree_widths *w)
{
	/* GHC: "%-*s %-*s %-*s %-*s %11s  %12s   %12s" with empty names */
	ob_spaces(o, w->label + w->module + w->src + w->no + 4 + W_ENTRIES + 4);
	ob_puts(o, "individual      inherited\n");
	put_heading(o, "COST CENTRE", w->label + 1);
	put_heading(o, "MODULE", w->module + 1);
	put_heading(o, "SRC", w->src + 1);
	put_heading(o, "no.", w->no);
	ob_puts(o, "     entries  %time %alloc   %time %alloc  ticks     bytes\n\n");
}

static void ghcp_tree(struct ghcp *g)
{
	struct ob *o = g->o;
	struct tree_widths w = tree_measure(g);
	tree_headings(o, &w);
	uint64_t no = 0;
	for (uint32_t i = 0; i < g->nrows; i++) {
		const struct ghcp_row *r = &g->rows[i];
		if (!r->keep)
			continue;
		const struct ghcp_cc *c = cc_cells(g, r->cc);
		put_cell(g, c->label, indent_of(r->depth), w.label + 1);
		put_cell(g, c->module, 0, w.module + 1);
		put_cell(g, c->src, 0, w.src);
		ob_putc(o, ' ');
		ob_u64(o, ++no, (int)w.no);
		ob_putc(o, ' ');
		ob_u64(o, r->entries, W_ENTRIES);
		put_pct(g, "  ", r->time, r->bytes, 5);
		ob_putc(o, ' ');
		put_pct(g, "  ", r->inherited, r->inherited_bytes, 5);
		put_ticks_bytes(o, r->ticks, r->bytes);
	}
}

/* ---- the writer -------------------------------------------------------------- */

/*
 * A tick is the sampling interval, as GHC's are its timer's
 * (docs/exports.md, "ghc-prof"), so that ticks count samples; the cycles
 * clock has none, nor has an interval that is not a whole number of µs:
 * 1000 µs, GHC's default.
 */
static uint64_t ghcp_tick_us(const struct ccp_profile *p)
{
	if (p->clock != CCP_CLOCK_CYCLES && p->interval_ns >= 1000 && p->interval_ns % 1000 == 0)
		return p->interval_ns / 1000;
	return 1000;
}

int export_ghc_prof(FILE *f, const struct export_input *in, const struct export_opts *opts)
{
	(void)opts;
	const struct model *m = in->m;
	struct ghcp *g = xcalloc(1, sizeof *g);
	uint64_t tick_us = ghcp_tick_us(m->prof);
	/* ticks = time × 10^6 / (ticks_per_sec × tick_us) */
	uint64_t den = m->prof->ticks_per_sec * tick_us;

	g->o = ob_open(f);
	g->m = m;
	g->ccs = xcalloc((size_t)GHCP_HIDDEN(m) + 1, sizeof *g->ccs);
	export_scale_init(&g->scale, 1000000u, den);
	g->total_ticks = export_scale_one(m->total_time, 1000000u, den);
	export_walk_tree(m, ghcp_visit, g);

	ghcp_header(g, tick_us);
	ghcp_flat(g);
	ghcp_tree(g);
	int ret = ob_close(g->o);
	free(g->rows);
	free(g->open);
	free(g->pool);
	free(g->ccs);
	free(g);
	return ret;
}
