/*
 * report.h - the report writers: one interface, one function per output
 * format.  A writer only reads a finished model (model.h) and writes to a
 * stream; choosing the format is the caller's one decision.
 */
#ifndef CCPROF_OUTPUT_REPORT_H
#define CCPROF_OUTPUT_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "model/model.h"

/* The order of the top cost centres tables (--sort; text only, JSON lists
 * functions by self time): self time, self bytes allocated (only for a
 * profile with allocation data), calls. */
enum report_sort { REPORT_SORT_TIME = 0, REPORT_SORT_ALLOC, REPORT_SORT_CALLS };

struct report_opts {
	unsigned top;   /* rows of the flat table; 0 = all (text only) */
	enum report_sort sort; /* the flat tables' order (text only) */
	int graph;      /* text: add the call graph */
	int contexts;   /* text: add the contexts listing */
	int no_tree;    /* text: leave out the stack tree */
	int no_flat;    /* text: leave out the flat table */
	const struct model *heap; /* JSON: the live heap at the end under the same
				   * view (model/heap.h), or NULL */
};

/* Write the report; returns 0, or -1 if the stream had an error. */
typedef int report_writer(FILE *out, const struct model *m, const struct report_opts *o);

report_writer report_text; /* GHC-style text (report_text.c) */
report_writer report_json; /* the same data as JSON (report_json.c, docs/json.md) */

/* The model passes (enum model_pass) each writer reads. */
unsigned report_text_passes(const struct report_opts *o);
/* JSON lists the arcs, not each function's (--around adds MODEL_ARC_LISTS). */
#define REPORT_JSON_PASSES (MODEL_ALL & ~MODEL_ARC_LISTS)

/* "cpu", "cycles", "wall", or "unknown". */
const char *report_clock_name(uint32_t clock);

/* What `ccprof info` shows: the profile, its model (MODEL_FLAT) and the
 * file. */
struct info_input {
	const struct model *m;
	const char *path;
	uint64_t file_size;
};

typedef int info_writer(FILE *out, const struct info_input *in);

info_writer info_text; /* info.c */
info_writer info_json;

/* What `ccprof diff` shows (model/diff.h), with where it came from. */
struct diff;
struct diff_input {
	const struct diff *d;
	const char *path[2];
	const struct ccp_profile *prof[2];
	int normalized;
	unsigned top;   /* rows per table; 0 = all (text only) */
};

typedef int diff_writer(FILE *out, const struct diff_input *in);

diff_writer diff_text; /* diff_report.c */
diff_writer diff_json;

#endif
