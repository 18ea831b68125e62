/*
 * text.h - what the text writers share (report_text.c, views_text.c):
 * the writer's state and the column helpers.
 *
 * Every column is measured before it is printed and is never narrower
 * than its heading; ratios are computed by ob_ratio from the integers,
 * which guards zero denominators.  Names go through escape_text once per
 * report (names.h).
 */
#ifndef CCPROF_OUTPUT_TEXT_H
#define CCPROF_OUTPUT_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "output/names.h"
#include "output/ob.h"

#define TEXT_NAME_COL_MAX 60 /* longer names overflow their column */
#define TEXT_INDENT_MAX 64   /* deeper tree levels print at this indent */
#define TEXT_ELLIPSIS "\xe2\x80\xa6" /* U+2026 */

struct text {
	struct ob *o;
	const struct model *m;
	struct names names;
	uint64_t tps; /* ticks per second */
	int prec;     /* decimals of seconds */
	int alloc;    /* the profile has allocation data: %alloc columns */
};

/* Set up t for m on f (allocates the buffer and the names); text_end
 * flushes and frees, and returns ob_close's result. */
void text_begin(struct text *t, FILE *f, const struct model *m);
int text_end(struct text *t);

int text_max(int a, int b);
int text_udigits(uint64_t v);
void text_secs(const struct text *t, uint64_t ticks, int width);
void text_pct(const struct text *t, uint64_t ticks); /* of the total, %6.1f */
/* bytes as a share of the model's (all its contexts'), %6.1f: "%alloc" */
void text_alloc_pct(const struct text *t, uint64_t bytes);
/* "N bytes in M blocks" (singular for 1). */
void text_bytes_blocks(struct ob *o, struct model_alloc a);
/* "%time  secs", or with allocation data "%time  %alloc  secs" (a tree's
 * columns, as GHC's). */
void text_pct_alloc_secs(const struct text *t, uint64_t ticks, uint64_t bytes, int width);
/* Their headings, "%time  secs" or "%time  %alloc  secs", and a newline. */
void text_pct_alloc_heads(const struct text *t, int width);
/* A cost in the columns "secs  %time" (text_secs in width, text_pct). */
void text_secs_pct(const struct text *t, uint64_t ticks, int width);
int text_secs_width(const struct text *t, uint64_t max_ticks, const char *heading);

/* Display width of cc's name; MODEL_GAP is "…", MODEL_NONE "<root>". */
size_t text_name_width(const struct text *t, uint32_t cc);
/* A name (or label) left-aligned in a column of width w after indent
 * spaces, then one space at least. */
void text_name(const struct text *t, uint32_t cc, size_t indent, size_t w);
void text_label(const struct text *t, const char *label, size_t indent, size_t w);
size_t text_name_col(size_t widest, const char *heading);

/* An argument as a shell would need it quoted (escape_text inside). */
void text_shell_word(struct ob *o, const char *s);

/* A report's first lines: its title and the date the profile was
 * written, then the program and its command line (no newline after). */
void text_title(struct ob *o, const struct ccp_profile *p, const char *title);

/* Who reached the context budget (model_overflow, ov->threads > 0):
 * "the thread reached max_contexts=N", "all 3 threads ...", or "1 of 2
 * threads reached max_contexts=N: thread 2 worker (tid 4243)", the
 * first TEXT_OVERFLOW_LISTED of them and a count of the rest.  No
 * newline after. */
#define TEXT_OVERFLOW_LISTED 3
void text_overflow_who(struct ob *o, const struct ccp_profile *p,
		       const struct model_overflow *ov);

/* The indent of a tree row at depth (capped at TEXT_INDENT_MAX). */
size_t text_indent(uint32_t depth);

/* "(n hidden)": the pruned children h of a node, as a label at their
 * depth in a name column of width w; and the width it needs. */
void text_hidden(const struct text *t, const struct model_hidden *h, uint32_t depth, size_t w);
size_t text_hidden_width(const struct model_hidden *h, uint32_t depth);

/* Measure a tree of n nodes with its pruning pr (the stack tree, callers
 * trees): the widest indented name of the shown nodes and their "(n
 * hidden)" lines, and in *max_entries (unless NULL) the most entries of
 * any of those rows. */
size_t text_tree_widest(const struct text *t, const struct model_node *nodes, uint32_t n,
			const struct model_pruned *pr, uint64_t *max_entries);

/* The lines of such a tree, depth first: each shown node k's name,
 * indented by its depth, in a name column of width nw, then row(arg, k,
 * NULL) writes the rest of its line; after k's shown children, k's "(n
 * hidden)" line if it has one, the rest by row(arg, k, &pr->rest[k]). */
typedef void text_row(void *arg, uint32_t k, const struct model_hidden *hidden);
void text_tree_lines(const struct text *t, const struct model_node *nodes,
		     const struct model_pruned *pr, size_t nw, text_row *row, void *arg);

/* A history: [marked] entries in brackets, "…" between two unmarked. */
void text_history(const struct text *t, const uint32_t *hist, uint32_t len);

/* The views' sections (views_text.c), each from the pass of its name. */
void text_hot(const struct text *t);
void text_callers(const struct text *t);
void text_cycles(const struct text *t);
struct report_opts;
void text_hook_cost(const struct text *t, unsigned top);
void text_threads(const struct text *t, const struct report_opts *o);
/* The flat table of t->m (report_text.c), o->top rows in o->sort's
 * order; the threads section calls it with t->m set to each thread's
 * model. */
void text_flat(const struct text *t, const struct report_opts *o);
/* The view's lines of the header (views_text.c): what it focuses on and
 * deselects (text_view_sets), then its share of the profile's time and,
 * with allocation data, of its bytes allocated. */
void text_view_header(const struct text *t);
void text_view_sets(const struct text *t);

/* What `info` and `report --heap` say after the count of allocations the
 * runtime did not follow (STATS key 16; Note [A table without memory]
 * in src/runtime/heap.c). */
#define TEXT_UNTRACKED_WHY                                                   \
	"allocations not followed (no memory for them, or too many before the " \
	"start): the peak and the live heap may be short of them"

#endif
