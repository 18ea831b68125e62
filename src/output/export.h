/*
 * export.h - `ccprof convert`: the profile in other tools' formats.
 *
 * One interface for every format: a table of {name, writer}, each writer
 * in a file of its own (export_<format>.c) that only reads a finished
 * model.  docs/exports.md describes each format, how ccprof's figures map
 * onto it, and how to open the result.
 *
 *   ghc-json    GHC's `+RTS -pj` profile: the stack tree          (speedscope)
 *   ghc-prof    GHC's `+RTS -P` text profile: flat table and stack tree
 *                                          (a pager; GHC profile readers)
 *   callgrind   self cost per function, exact inclusive cost per arc
 *                                          (callgrind_annotate, KCachegrind)
 *   folded      `a;b;c N` per compressed stack    (flamegraph.pl, inferno)
 *   speedscope  speedscope's JSON, sampled, one profile per thread
 *   chrome      Trace Event Format: the stack tree as a synthetic timeline
 *                                 (Perfetto, chrome://tracing, speedscope)
 *   pprof       gzip-compressed profile.proto           (go tool pprof)
 *   dot         Graphviz call graph with the expensive arm highlighted
 *   svg         a flame graph (or icicle) drawn by ccprof itself
 *   hp          GHC's heap profile: the live heap over time by stack (hp2ps)
 *   heap-svg    the live heap over time by stack, an area chart drawn by ccprof
 *   html        an interactive report: every view, computed in the page
 *
 * Times: the model keeps ticks; each format gets the integer unit it
 * needs through export_scale, which rounds so that the parts add up to
 * exactly the rounded total (a consumer's total equals ccprof's).
 *
 * Allocations (Note [Allocation as a cost] in model.h): when the run
 * counted them (model_alloc_measured), each format that has a place for
 * them gets the bytes and blocks of each stack, function or arc, exact
 * integers that add up to the model's total_alloc; without allocation
 * data the output is what it was before allocation profiling, byte for
 * byte.  Folded stacks and the svg flame graph have one number per
 * stack, so they take allocation instead of time on request (--weight).
 */
#ifndef CCPROF_OUTPUT_EXPORT_H
#define CCPROF_OUTPUT_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "model/model.h"
#include "output/ob.h"

/* Options a format may accept (export_format.accepts). */
enum export_opt {
	EXPORT_OPT_THREADS = 1u << 0,   /* --threads */
	EXPORT_OPT_INVERTED = 1u << 1,  /* --inverted */
	EXPORT_OPT_THRESHOLD = 1u << 2, /* --node-threshold */
	EXPORT_OPT_WEIGHT = 1u << 3,    /* --weight */
	EXPORT_OPT_NAME_LENGTH = 1u << 4, /* --name-length */
};

/* What a one-number-per-stack format counts (--weight). */
enum export_weight {
	EXPORT_WEIGHT_TIME,  /* the default */
	EXPORT_WEIGHT_ALLOC, /* bytes allocated: only with allocation data */
};

struct export_opts {
	int threads;           /* one profile (or label) per thread */
	int inverted;          /* svg: icicle, the root at the top */
	double node_threshold; /* dot: drop functions below this % inherited */
	enum export_weight weight; /* folded, svg */
	size_t name_length;    /* hp: cut each band's stack at this many bytes
				* (0: whole), as GHC's +RTS -L */
};

#define EXPORT_NODE_THRESHOLD_DEFAULT 0.5

/* One thread of the breakdown (--threads).  Its own model is built by
 * the writer when it comes to the thread, model_thread_build(&one,
 * in->m, t) (model/view.h), and freed before the next (Note [One thread
 * model at a time] in model/threads.c). */
struct export_thread {
	uint64_t tid;
	const char *name; /* pthread name, or "" */
};

struct model_view_opts;
struct heap_base;

struct export_input {
	const struct model *m;   /* every thread merged */
	/* html: the model before the view, and the view options, which the
	 * page applies itself (export_html.c) */
	const struct model *base;
	const struct model_view_opts *view_opts;
	const char *source; /* html: FILE as given to convert, or NULL */
	uint32_t nthreads;       /* threads of the breakdown (in->m's
				  * model_threads), only with --threads */
	const struct export_thread *threads;
	/* export_format.live_end: the copy of the profile with the live heap
	 * at the end (model/heap.h), or NULL when the run did not follow the
	 * heap; the writer applies in->m's view to it (heap_view_build) */
	const struct heap_base *live_end;
};

/* Write the export; returns 0, or -1 if the stream had an error. */
typedef int export_writer(FILE *out, const struct export_input *in, const struct export_opts *o);

struct export_format {
	const char *name;       /* --to NAME */
	export_writer *write;
	unsigned passes;        /* model passes it reads (enum model_pass) */
	unsigned thread_passes; /* passes of the per-thread models */
	unsigned accepts;       /* enum export_opt */
	int binary;
	int hot;                /* reads model_hot's expensive arm */
	int heap;               /* needs heap data (model/heap.h) */
	int live_end;           /* reads in->live_end when there is heap data */
	int whole;              /* reads the whole profile and applies the view
				 * itself (in->base, in->view_opts): no pruning */
};

extern const struct export_format export_formats[];
extern const unsigned export_nformats;

/* The format called name, or NULL. */
const struct export_format *export_find(const char *name);

export_writer export_ghc_json;   /* export_ghc_json.c */
export_writer export_ghc_prof;   /* export_ghc_prof.c */
export_writer export_callgrind;  /* export_callgrind.c */
export_writer export_folded;     /* export_folded.c */
export_writer export_speedscope; /* export_speedscope.c */
export_writer export_chrome;     /* export_chrome.c */
export_writer export_pprof;      /* export_pprof.c */
export_writer export_dot;        /* export_dot.c */
export_writer export_svg;        /* export_svg.c */
export_writer export_hp;         /* export_hp.c */
export_writer export_heap_svg;   /* export_heap_svg.c */
export_writer export_html;       /* export_html.c */

/* ---- helpers the writers share (export.c) ------------------------------- */

/*
 * Ticks into an integer unit, rounding the running sum rather than each
 * part: the k-th value is round(S_k × num / den) − round(S_(k−1) × num /
 * den), where S_k is the sum of the ticks given so far.  Each value is
 * within one unit of its own rounding, and the values add up to the
 * rounded total whatever the order.  den == 0 (unknown clock rate) gives
 * zeros, as ccprof's reports show 0 s then.
 */
struct export_scale {
	uint64_t num, den;
	uint64_t ticks; /* S so far */
	uint64_t done;  /* Σ values returned */
};

void export_scale_init(struct export_scale *s, uint64_t num, uint64_t den);
uint64_t export_scale(struct export_scale *s, uint64_t ticks);
/* round(ticks × num / den) on its own. */
uint64_t export_scale_one(uint64_t ticks, uint64_t num, uint64_t den);

/* Nanoseconds from ticks: an export_scale for the model's clock. */
void export_scale_ns(struct export_scale *s, const struct model *m);

/*
 * Depth-first walk of the stack tree without recursion (model_walk, with
 * the path kept along): visit(arg, x, a, path, depth, leaving) is called
 * on entering each node (leaving = 0) and again after its subtree
 * (leaving = 1), children in the model's order.  a is the node's
 * allocations (model_node_alloc_at: zero without allocation data), never
 * NULL.  path[0 .. depth) are the cost centres from the top of the stack
 * down to the node; the root (the empty stack) has depth 0.
 *
 * Pruning (--min-percent etc., view.h): hidden nodes are skipped with
 * their subtrees, and a parent that lost some gets one more child after
 * the others, a stand-in whose path entry is EXPORT_HIDDEN, with the
 * hidden subtrees' time and allocations as its individual ones and their
 * entries, so the totals still add up.  Writers name it
 * EXPORT_HIDDEN_NAME.
 */
#define EXPORT_HIDDEN (MODEL_NONE - 1)
#define EXPORT_HIDDEN_NAME "(hidden)"

typedef void export_visit(void *arg, const struct model_node *x,
			  const struct model_node_alloc *a, const uint32_t *path, uint32_t depth,
			  int leaving);
void export_walk_tree(const struct model *m, export_visit *visit, void *arg);

/* A node's weight in the formats with one number per stack (folded,
 * speedscope's samples): its bytes allocated when alloc, else its
 * individual time through the scale s (0 for a stack without time, s
 * untouched). */
uint64_t export_node_weight(struct export_scale *s, int alloc, const struct model_node *x,
			    const struct model_node_alloc *a);

/* The display name of a path entry: a cost centre's, or the stand-in's. */
const char *export_path_name(const struct model *m, uint32_t cc);

/* The program's file name, without directories. */
const char *export_program(const struct model *m);

/* The object file a cost centre is in: its module, else the program
 * (also for MODEL_NONE, the root), else "???". */
const char *export_object(const struct model *m, uint32_t cc);

/* Where a cost centre is, for formats that want one file name: its
 * source file when known, else export_object. */
const char *export_file(const struct model *m, uint32_t cc);

/* FNV-1a of a name: the SVG writers' colour, the same for a name in
 * every file. */
uint32_t export_name_hash(const char *name);

/* s as SVG text (escape_xml), cut to at most max_chars characters
 * (never inside one) ending in ".." when it does not fit. */
void export_xml_cut(struct ob *o, const char *s, size_t max_chars);

/* Distinct strings numbered in order of first use (pprof's string table,
 * callgrind's file ids).  The strings are not copied: the caller keeps
 * them alive until export_strtab_free. */
struct export_strtab {
	struct htab tab;
	const char **s;
	uint32_t n, cap;
};

void export_strtab_init(struct export_strtab *t);
/* The index of s, added if new. */
uint32_t export_strtab_add(struct export_strtab *t, const char *s);
void export_strtab_free(struct export_strtab *t);

/* "name [tid]" for a thread (name "thread" when it has none). */
void export_thread_label(const struct export_thread *th, char *buf, size_t size);

/* ---- what GHC's two profiles share (ghc-json, ghc-prof) ------------------- */

/*
 * The stack tree's root, the empty stack, is GHC's MAIN cost centre, and
 * the stand-in for pruned stacks (EXPORT_HIDDEN) one in module MAIN too.
 */
#define EXPORT_GHC_MAIN "MAIN"
#define EXPORT_GHC_MAIN_SRC "<built-in>"
#define EXPORT_GHC_HIDDEN_SRC "<pruned>"

/* Where a cost centre is, as GHC's MODULE and SRC (unescaped). */
struct export_ghc_where {
	const char *module; /* module[0 .. module_len) */
	size_t module_len;
	const char *src;    /* followed by ":line" when line != 0 */
	uint32_t line;
};

/* module: the source file's base name without its extension ("demo" for
 * demo.c), else the object file's base name (libm.so.6), else the
 * program's; src: the source file and line when known, else "<region>"
 * for a region, the object file's base name, or "<unknown>". */
void export_ghc_where(const struct model *m, uint32_t cc, struct export_ghc_where *w);

/* The time the profile was written, as GHC dates its profiles ("Sat Nov
 * 21 10:00 2026", local time); "" when the profile does not say. */
void export_ghc_date(const struct model *m, char *buf, size_t size);

/* Name shown for time outside every cost centre (the root context). */
#define EXPORT_ROOT_NAME "<root>"

#endif
