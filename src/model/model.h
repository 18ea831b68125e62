/*
 * model.h - the analysis model: what the report writers read.
 *
 * A model is built from a decoded profile by a fixed sequence of passes
 * (STYLE.md 9), each a small function that fills in one part and can be
 * run and tested alone on a hand-built profile:
 *
 *   model_merge     contexts of all threads merged by identical history;
 *                   display names of cost centres (unnamed functions
 *                   looked up in their module files)
 *   model_flat      calls / self / inherited per cost centre, sort orders
 *   model_arcs      arc calls and exact arc times (self/child, in/out)
 *   model_tree      the stack tree of compressed stacks (GHC style)
 *   model_contexts  the contexts, most expensive first
 *
 * The definitions are DESIGN.md §3; each pass quotes the one it follows.
 * Later views (selection, focus, callers, cycles) are further passes over
 * the merged contexts: they read `ctx` and write structures of their own,
 * and never change what the passes above produced.
 *
 * model_build runs only the passes a view asks for (enum model_pass): the
 * default text report needs no arcs and no sorted contexts, which matters
 * at a million contexts.
 *
 * Costs stay in ticks inside the model; writers convert for output.
 * Everything is owned by the model (an arena from format/arena.h plus a
 * few growable arrays) except the histories, which point into the profile:
 * the profile must outlive the model.
 */
#ifndef CCPROF_MODEL_H
#define CCPROF_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "format/arena.h"
#include "format/profile.h"
#include "model/htab.h"

#define MODEL_NONE UINT32_MAX /* no cost centre / no node / no context */

/* A cost centre (indexed by its CCP number). */
struct model_fn {
	const char *name;    /* display name, never empty (model_cc_name) */
	uint64_t calls;      /* Σ E+R over contexts running it */
	uint64_t self;       /* Σ T over contexts running it */
	uint64_t inherited;  /* Σ T over contexts where it is active */
	int seen;            /* appears in some history */
};

/* A context after merging threads: one per distinct history. */
struct model_ctx {
	const uint32_t *hist; /* CCP_ENTRY(cc, mark); points into the profile */
	uint32_t len;
	uint32_t threads;     /* how many thread contexts were merged here */
	uint64_t entries;     /* E */
	uint64_t recursive;   /* R */
	uint64_t time;        /* T, ticks */
};

/*
 * An arc caller -> callee.  caller == MODEL_NONE is the "spontaneous" arc
 * into a thread root: its calls are the root's entries and its _in times
 * the root activation's, so summing callers always gives calls(callee).
 */
struct model_arc {
	uint32_t caller, callee;
	uint64_t calls;
	uint64_t self_in, child_in;   /* charged from the callee's item */
	uint64_t self_out, child_out; /* charged from the caller's item */
};

/* A node of the stack tree; nodes[0] is the root (the empty stack). */
struct model_node {
	uint32_t cc;           /* MODEL_NONE for the root */
	uint32_t parent;       /* MODEL_NONE for the root */
	uint32_t first_child;  /* children by inherited time, descending */
	uint32_t next_sibling;
	uint32_t depth;        /* root 0 */
	uint64_t entries;      /* Σ E+R of contexts with this stack */
	uint64_t individual;   /* Σ T of contexts with this stack */
	uint64_t inherited;    /* individual + Σ children's inherited */
};

struct model {
	const struct ccp_profile *prof;
	struct ccp_arena *arena;

	/* model_merge */
	uint32_t nfns;             /* = prof->nccs */
	struct model_fn *fns;
	uint32_t nctx;
	struct model_ctx *ctx;     /* in first-seen order */
	uint32_t root_ctx;         /* the empty history, or MODEL_NONE */
	uint64_t total_time;       /* Σ T over all contexts */
	uint64_t root_time;        /* T of the empty history: outside any CC */
	uint64_t total_calls;      /* Σ E+R over non-root contexts */

	/* model_flat: seen cost centres in report orders. */
	uint32_t nlisted;
	uint32_t *by_self;         /* self desc, calls desc, name */
	uint32_t *by_inherited;    /* inherited desc, self desc, name */

	/* model_arcs.  Arcs into f: arcs[in[in_start[f] .. in_start[f+1])],
	 * out of f likewise with out/out_start; both by time, descending. */
	uint32_t narcs;
	struct model_arc *arcs;
	struct htab arc_tab;       /* (caller, callee) -> arc index */
	uint32_t *in_start, *in;
	uint32_t *out_start, *out;

	/* model_tree */
	uint32_t nnodes;
	struct model_node *nodes;

	/* model_contexts */
	uint32_t *ctx_by_time;     /* time desc, entries desc, first seen */
};

/* Passes beyond the merge, for model_build; a view asks for what it shows. */
enum model_pass {
	MODEL_FLAT = 1u << 0,
	MODEL_ARCS = 1u << 1,
	MODEL_TREE = 1u << 2,
	MODEL_CONTEXTS = 1u << 3,
	MODEL_ALL = (1u << 4) - 1,
};

/*
 * Build a model: the merge, then the passes asked for (a set of enum
 * model_pass), in the order below.  Returns 0, or -1 with a reason in err
 * when the profile is inconsistent (e.g. a history names a cost centre
 * that does not exist).  model_free is safe after either result.
 */
int model_build(struct model *m, const struct ccp_profile *p, unsigned passes, char *err,
		size_t errlen);
void model_free(struct model *m);

/* The passes, in the order model_build runs them.  Each runs at most once;
 * the fields it fills stay zero (NULL) until it has run. */
int model_merge(struct model *m, const struct ccp_profile *p, char *err, size_t errlen);
void model_flat(struct model *m);
void model_arcs(struct model *m);
void model_tree(struct model *m);
void model_contexts(struct model *m);

/* n zeroed elements in the model's arena; dies on out-of-memory. */
void *model_calloc(struct model *m, size_t n, size_t size);

/* The name to show for a cost centre: its name, or 0x<offset>@<module
 * basename> when the name is empty.  Allocated in the arena. */
const char *model_cc_name(struct model *m, uint32_t cc);

/* Name of cc, or fallback for MODEL_NONE. */
static inline const char *model_name(const struct model *m, uint32_t cc, const char *fallback)
{
	return cc == MODEL_NONE ? fallback : m->fns[cc].name;
}

/* Arc from caller to callee, or NULL. */
const struct model_arc *model_find_arc(const struct model *m, uint32_t caller, uint32_t callee);

/* Entries two histories share from the start (Note [Shared prefix] in
 * tree.c: the passes resume where the previous context differs). */
static inline uint32_t model_common_prefix(const uint32_t *a, uint32_t alen, const uint32_t *b,
					   uint32_t blen)
{
	uint32_t n = alen < blen ? alen : blen, i = 0;
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* Ticks to seconds; 0 when the clock rate is unknown. */
double model_seconds(const struct model *m, uint64_t ticks);
/* Share of the total time in percent; 0 when the total is 0. */
double model_percent(const struct model *m, uint64_t ticks);

#endif
