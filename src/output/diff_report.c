/*
 * diff_report.c - `ccprof diff` as text and as JSON (docs/json.md).
 *
 * Changes are B − A, with relative changes against A; a row on one side
 * only says so ("only in A/B"; relative change "new" or −100 %).  The
 * name or stack comes last on each text line, so long C++ names and deep
 * stacks do not push the numbers out of line.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/diff.h"
#include "output/escape.h"
#include "output/json.h"
#include "output/ob.h"
#include "output/report.h"

#define ARROW " \xe2\x86\x92 " /* U+2192, between the names of a stack */

/* ---- text ---------------------------------------------------------------- */

struct dtext {
	struct ob *o;
	int prec;
	int alloc; /* both profiles counted allocations: the bytes column */
	int live;  /* both followed the heap: the live bytes column */
};

/* The columns of a table, each measured over its rows before printing. */
enum { C_DSELF, C_RSELF, C_DINH, C_RINH, C_DCALLS, C_RCALLS, C_DALLOC, C_DLIVE, C_SELFA,
       C_SELFB, C_CALLSA, C_CALLSB, NCOLS };

static const char *const col_head[NCOLS] = {
	"\xce\x94" "self(s)", "%", "\xce\x94" "inherited(s)", "%", "\xce\x94" "calls", "%",
	"\xce\x94" "bytes", "\xce\x94" "live", "self A", "self B", "calls A", "calls B",
};

/* Inherited times are the functions' only; bytes (allocated, live)
 * only when both sides have them. */
static int col_shown(const struct dtext *t, int c, int with_inherited)
{
	if (c == C_DINH || c == C_RINH)
		return with_inherited;
	if (c == C_DLIVE)
		return t->live;
	return c != C_DALLOC || t->alloc;
}

/* b - a with its sign, for counts. */
static int fmt_delta(char *buf, size_t len, uint64_t a, uint64_t b)
{
	return b >= a ? snprintf(buf, len, "+%" PRIu64, b - a)
		      : snprintf(buf, len, "-%" PRIu64, a - b);
}

/* b against a, in %, then `unit` ("%" or nothing).  From zero there is
 * no ratio, and no unit: "new" for a row of B only, "from 0" for one in
 * both (a function A called that spent no time there is not new). */
static int fmt_rel(char *buf, size_t len, double a, double b, int only, const char *unit)
{
	double r = diff_rel(a, b);
	if (isnan(r))
		return snprintf(buf, len, "%s",
				b == 0 ? "0.0" : only == DIFF_ONLY_B ? "new" : "from 0");
	return snprintf(buf, len, "%+.1f%s", 100 * r, unit);
}

/* Cell c of row as text; returns its length. */
static int cell(const struct dtext *t, const struct diff_row *row, int c, char *buf, size_t len)
{
	switch (c) {
	case C_DSELF: return snprintf(buf, len, "%+.*f", t->prec, row->self[1] - row->self[0]);
	case C_RSELF: return fmt_rel(buf, len, row->self[0], row->self[1], row->only, "");
	case C_DINH:
		return snprintf(buf, len, "%+.*f", t->prec, row->inherited[1] - row->inherited[0]);
	case C_RINH: return fmt_rel(buf, len, row->inherited[0], row->inherited[1], row->only, "");
	case C_DCALLS: return fmt_delta(buf, len, row->calls[0], row->calls[1]);
	case C_RCALLS:
		return fmt_rel(buf, len, (double)row->calls[0], (double)row->calls[1], row->only, "");
	case C_DALLOC: return fmt_delta(buf, len, row->alloc[0], row->alloc[1]);
	case C_DLIVE: return fmt_delta(buf, len, row->live[0], row->live[1]);
	case C_SELFA: return snprintf(buf, len, "%.*f", t->prec, row->self[0]);
	case C_SELFB: return snprintf(buf, len, "%.*f", t->prec, row->self[1]);
	case C_CALLSA: return snprintf(buf, len, "%" PRIu64, row->calls[0]);
	default: return snprintf(buf, len, "%" PRIu64, row->calls[1]);
	}
}

/* Display width of a heading (the Greek delta is one column, two bytes). */
static int head_width(const char *h)
{
	return (int)escape_text_width(h);
}

static void row_label(const struct dtext *t, const struct diff_row *row)
{
	if (row->name) {
		escape_puts(t->o, &escape_text, row->name);
	} else {
		for (uint32_t i = 0; i < row->depth; i++) {
			if (i)
				ob_puts(t->o, ARROW);
			escape_puts(t->o, &escape_text, row->stack[i]);
		}
	}
	if (row->only)
		ob_puts(t->o, row->only == DIFF_ONLY_A ? "  (only in A)" : "  (only in B)");
	ob_putc(t->o, '\n');
}

static void text_table(const struct dtext *t, const char *title, const struct diff_row *rows,
		       uint32_t nrows, unsigned top, int with_inherited)
{
	uint32_t n = top && top < nrows ? top : nrows;
	int w[NCOLS];
	char buf[64];
	for (int c = 0; c < NCOLS; c++)
		w[c] = head_width(col_head[c]);
	for (uint32_t i = 0; i < n; i++)
		for (int c = 0; c < NCOLS; c++)
			w[c] = w[c] > cell(t, &rows[i], c, buf, sizeof buf)
				       ? w[c]
				       : cell(t, &rows[i], c, buf, sizeof buf);
	ob_printf(t->o, "%s, largest change first (%" PRIu32 " of %" PRIu32 ")\n\n", title, n, nrows);
	for (int c = 0; c < NCOLS; c++) {
		if (!col_shown(t, c, with_inherited))
			continue;
		ob_spaces(t->o, (size_t)(w[c] - head_width(col_head[c])));
		ob_puts(t->o, col_head[c]);
		ob_spaces(t->o, 2);
	}
	ob_puts(t->o, with_inherited ? "function\n" : "stack (bottom first)\n");
	for (uint32_t i = 0; i < n; i++) {
		for (int c = 0; c < NCOLS; c++) {
			if (!col_shown(t, c, with_inherited))
				continue;
			int len = cell(t, &rows[i], c, buf, sizeof buf);
			ob_spaces(t->o, (size_t)(w[c] - len));
			ob_puts(t->o, buf);
			ob_spaces(t->o, 2);
		}
		row_label(t, &rows[i]);
	}
	ob_putc(t->o, '\n');
}

static void text_side(const struct dtext *t, const struct diff_input *in, int side)
{
	const struct ccp_profile *p = in->prof[side];
	ob_puts(t->o, side ? "    B           " : "    A           ");
	escape_puts(t->o, &escape_text, in->path[side]);
	ob_puts(t->o, "  (");
	escape_puts(t->o, &escape_text, p->program ? p->program : "");
	ob_printf(t->o, ", %.*f secs, %" PRIu64 " calls)\n", t->prec, in->d->total[side],
		  in->d->total_calls[side]);
}

int diff_text(FILE *f, const struct diff_input *in)
{
	const struct diff *d = in->d;
	struct dtext t = {.o = ob_open(f), .alloc = d->alloc, .live = d->live};
	int cycles = in->prof[0]->clock == CCP_CLOCK_CYCLES || in->prof[1]->clock == CCP_CLOCK_CYCLES;
	t.prec = cycles ? 6 : 3;
	ob_puts(t.o, "ccprof diff: B against A\n\n");
	text_side(&t, in, 0);
	text_side(&t, in, 1);
	char rel[32];
	fmt_rel(rel, sizeof rel, d->total[0], d->total[1], DIFF_BOTH, "%");
	/* The runs' own totals, which the scaling below leaves apart: said so,
	 * or a reader takes it for a change after scaling (helper-96). */
	ob_printf(t.o, "    change      %+.*f secs (%s)%s\n", t.prec, d->total[1] - d->total[0], rel,
		  in->normalized ? " in the runs' totals, before scaling" : "");
	if (in->normalized)
		ob_printf(t.o, "    normalized  B's times x %.6g, so both totals are A's; compare "
			       "shares of the run\n",
			  d->scale);
	ob_putc(t.o, '\n');
	text_table(&t, "Functions", d->fns, d->nfns, in->top, 1);
	text_table(&t, "Compressed stacks", d->stacks, d->nstacks, in->top, 0);
	return ob_close(t.o);
}

/* ---- JSON ---------------------------------------------------------------- */

static void j_signed(struct json *j, const char *key, uint64_t a, uint64_t b)
{
	char buf[32];
	int n = b >= a ? snprintf(buf, sizeof buf, "%" PRIu64, b - a)
		       : snprintf(buf, sizeof buf, "-%" PRIu64, a - b);
	json_key(j, key);
	json_raw(j, buf, (size_t)n);
}

/* Seconds to the nanosecond, like the report's (docs/json.md), signed. */
static void j_secs(struct json *j, const char *key, double v)
{
	char buf[64];
	int n = snprintf(buf, sizeof buf, "%.9f", fabs(v) < 5e-10 ? 0.0 : v);
	while (n > 1 && buf[n - 1] == '0')
		n--;
	if (buf[n - 1] == '.')
		n--;
	json_key(j, key);
	json_raw(j, buf, (size_t)n);
}

/* The keys of one compared value: "a_WHAT_UNIT", "b_WHAT_UNIT",
 * "delta_WHAT_UNIT" and "rel_WHAT". */
struct pair_keys {
	char a[48], b[48], delta[48], rel[48];
};

static void pair_keys(struct pair_keys *k, const char *what, const char *unit)
{
	snprintf(k->a, sizeof k->a, "a_%s_%s", what, unit);
	snprintf(k->b, sizeof k->b, "b_%s_%s", what, unit);
	snprintf(k->delta, sizeof k->delta, "delta_%s_%s", what, unit);
	snprintf(k->rel, sizeof k->rel, "rel_%s", what);
}

static void j_pair(struct json *j, const char *what, const double v[2])
{
	struct pair_keys k;
	pair_keys(&k, what, "s");
	j_secs(j, k.a, v[0]);
	j_secs(j, k.b, v[1]);
	j_secs(j, k.delta, v[1] - v[0]);
	json_kdouble(j, k.rel, diff_rel(v[0], v[1])); /* NaN writes null */
}

/* Bytes on each side, their change and its ratio. */
static void j_bytes(struct json *j, const char *what, const uint64_t v[2])
{
	struct pair_keys k;
	pair_keys(&k, what, "bytes");
	json_kuint(j, k.a, v[0]);
	json_kuint(j, k.b, v[1]);
	j_signed(j, k.delta, v[0], v[1]);
	json_kdouble(j, k.rel, diff_rel((double)v[0], (double)v[1]));
}

/* A row; its bytes allocated when both profiles counted them, and live
 * at the end when both followed the heap. */
static void j_row(struct json *j, const struct diff_row *row, const struct diff *d)
{
	json_newline(j);
	json_begin_object(j);
	if (row->name) {
		json_kstring(j, "name", row->name);
	} else {
		json_kstrings(j, "stack", row->stack, row->depth);
	}
	json_key(j, "only_in");
	if (row->only)
		json_string(j, row->only == DIFF_ONLY_A ? "a" : "b");
	else
		json_null(j);
	j_pair(j, "self", row->self);
	j_pair(j, "inherited", row->inherited);
	json_kuint(j, "a_calls", row->calls[0]);
	json_kuint(j, "b_calls", row->calls[1]);
	j_signed(j, "delta_calls", row->calls[0], row->calls[1]);
	json_kdouble(j, "rel_calls", diff_rel((double)row->calls[0], (double)row->calls[1]));
	if (d->alloc)
		j_bytes(j, "alloc", row->alloc);
	if (d->live)
		j_bytes(j, "live", row->live);
	json_end_object(j);
}

static void j_side(struct json *j, const struct diff_input *in, int side)
{
	json_key(j, side ? "b" : "a");
	json_begin_object(j);
	json_kstring(j, "file", in->path[side]);
	json_kstring(j, "program", in->prof[side]->program);
	j_secs(j, "total_time_s", in->d->total[side]);
	json_kuint(j, "total_calls", in->d->total_calls[side]);
	json_end_object(j);
}

static void j_rows(struct json *j, const char *key, const struct diff_row *rows, uint32_t n,
		   const struct diff *d)
{
	json_newline(j);
	json_key(j, key);
	json_begin_array(j);
	for (uint32_t i = 0; i < n; i++)
		j_row(j, &rows[i], d);
	json_end_array(j);
}

int diff_json(FILE *f, const struct diff_input *in)
{
	struct ob *o = ob_open(f);
	struct json j;
	json_init(&j, o);
	json_begin_object(&j);
	json_newline(&j);
	json_kstring(&j, "ccprof_version", CCPROF_VERSION);
	json_newline(&j);
	j_side(&j, in, 0);
	json_newline(&j);
	j_side(&j, in, 1);
	json_newline(&j);
	json_key(&j, "normalized");
	json_bool(&j, in->normalized);
	json_kdouble(&j, "scale", in->d->scale);
	j_rows(&j, "functions", in->d->fns, in->d->nfns, in->d);
	j_rows(&j, "stacks", in->d->stacks, in->d->nstacks, in->d);
	json_end_object(&j);
	ob_putc(o, '\n');
	return ob_close(o);
}
