/*
 * model.h - the analysis model: what the report writers read.
 *
 * A model is built from a decoded profile by a fixed sequence of named
 * passes, each a small function that fills in one part and can be run and
 * tested alone on a hand-built profile:
 *
 *   model_merge     contexts of all threads merged by identical history;
 *                   display names of cost centres (unnamed functions
 *                   looked up in their module files)
 *   model_flat      calls / self / inherited per cost centre, sort orders
 *   model_arcs      arc calls and exact arc times (self/child, in/out)
 *   model_arc_lists each function's arcs in and out, by time (the call
 *                   graph's blocks; the JSON report lists arcs without)
 *   model_tree      the stack tree of compressed stacks (GHC style)
 *   model_contexts  the contexts, most expensive first
 *
 * The definitions are those of docs/semantics.md, "The views"; each pass
 * quotes the one it follows.  Views after the run (view.h) build a model of their
 * own from a merged one: selection and focus change its contexts, and the
 * passes above run on them unchanged; the view passes below (callers,
 * cycles, hot path, threads) add structures of their own and never change
 * what the passes above produced.
 *
 * model_build runs only the passes a view asks for (enum model_pass): the
 * default text report needs no arcs and no sorted contexts, which matters
 * at a million contexts.
 *
 * Costs stay in ticks inside the model; writers convert for output.
 * Everything is owned by the model (an arena from format/arena.h plus a
 * few growable arrays) except the histories, which point into the profile,
 * and contexts borrowed from it (Note [Borrowed contexts]): the profile
 * must outlive the model.
 */
#ifndef CCPROF_MODEL_H
#define CCPROF_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/arena.h"
#include "format/profile.h"
#include "model/htab.h"

#define MODEL_NONE UINT32_MAX /* no cost centre / no node / no context */
#define MODEL_GAP (UINT32_MAX - 1) /* "…": a path A4/A5 elided (callers, cycles) */

/*
 * Note [Allocation as a cost]: with allocation profiling (profile.h,
 * struct ccp_alloc) every context also has the bytes and blocks allocated
 * while it ran, and the model adds them up exactly as it adds T(C): self
 * over contexts running F, inherited over contexts where F is active (each
 * once), individual and inherited per stack-tree node, moved to the
 * nearest selected caller by a selection, cut by a focus, carried by the
 * "(n hidden)" lines of pruning and by each thread's model.  The sums stay
 * below 2^64: the reader refuses a file whose allocations add up past it
 * (format.h, ccp_alloc_sums_add).  The fields are 0 when the run did not
 * count allocations: only model_alloc_measured(m) tells 0 bytes from "not
 * measured", and writers show allocation only then.
 */
struct model_alloc {
	uint64_t bytes;  /* bytes allocated */
	uint64_t blocks; /* blocks (malloc, calloc, realloc ... calls that allocated) */
};

static inline void model_alloc_add(struct model_alloc *sum, struct model_alloc a)
{
	sum->bytes += a.bytes;
	sum->blocks += a.blocks;
}

/* A context's allocations as a model_alloc. */
static inline struct model_alloc model_ctx_alloc(const struct ccp_context *c)
{
	return (struct model_alloc){c->alloc_bytes, c->alloc_blocks};
}

/* A cost centre (indexed by its CCP number). */
struct model_fn {
	const char *name;    /* display name, never empty (model_cc_name) */
	const char *full;    /* the whole name, where --short-names shortened
			      * name (shortnames.h); else NULL */
	uint64_t calls;      /* Σ E+R over contexts running it */
	uint64_t self;       /* Σ T over contexts running it */
	uint64_t inherited;  /* Σ T over contexts where it is active */
	struct model_alloc self_alloc;      /* Σ alloc over contexts running it */
	struct model_alloc inherited_alloc; /* Σ alloc over contexts where it is
					     * active, each context once */
	int seen;            /* appears in some history */
	int demangled;       /* name is a demangled C++ name */
};

/*
 * A context after merging threads, one per distinct history, is a struct
 * ccp_context (profile.h): its history, E, R, T and allocations.  The
 * histories point into the profile (a view's reduced ones into the view
 * model's arena).
 *
 * Note [Borrowed contexts]: a model whose contexts are another's unchanged
 * points at them instead of copying them (a million contexts are 40 MB):
 * the merge of a single thread's profile, whose contexts are distinct
 * already, borrows the profile's (unless the thread lists a history twice:
 * Note [Duplicate histories] in distinct.c); a view that changes no
 * context borrows its base model's.  own_ctx is what the model made and
 * frees itself.
 */

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

/* An arc's allocations, by the rule of its times with a context's
 * allocations for T(C) (docs/semantics.md, "Costs other than time").  Kept
 * beside the arcs, in model.arc_alloc, and only when the run counted
 * allocations, for the reason of Note [Node allocations]. */
struct model_arc_alloc {
	struct model_alloc self_in, child_in;   /* charged from the callee's item */
	struct model_alloc self_out, child_out; /* charged from the caller's item */
};

/* (caller, callee) -> arc, for arcs[0..n) (arcindex.c): slots of the
 * arc's number + 1 (0: empty) and the top half of its key's hash, whose
 * top bits are its home slot. */
struct model_arc_slot {
	uint32_t arc, tag;
};
struct model_arc_index {
	struct model_arc_slot *slot;
	size_t mask, count;
	unsigned bits; /* log2 of the slots */
};
void model_arc_index_init(struct model_arc_index *x);
void model_arc_index_free(struct model_arc_index *x);
/* The arc caller -> callee among arcs, or MODEL_NONE (also before init). */
uint32_t model_arc_index_find(const struct model_arc_index *x, const struct model_arc *arcs,
			      uint32_t caller, uint32_t callee);
/* Index arcs[k], which is not in x; arcs[0..k) are (growing reads them). */
void model_arc_index_add(struct model_arc_index *x, const struct model_arc *arcs, uint32_t k);
/* Ask the memory for the slot of caller -> callee, to look it up soon. */
void model_arc_index_prefetch(const struct model_arc_index *x, uint32_t caller, uint32_t callee);

/* A node of the stack tree; nodes[0] is the root (the empty stack). */
struct model_node {
	uint32_t cc;           /* MODEL_NONE for the root */
	uint32_t parent;       /* MODEL_NONE for the root */
	uint32_t first_child;  /* children by inherited time, descending */
	uint32_t next_sibling;
	uint32_t depth;        /* root 0 */
	uint32_t nchildren;    /* set by model_nodes_child */
	uint64_t entries;      /* Σ E+R of contexts with this stack */
	uint64_t individual;   /* Σ T of contexts with this stack */
	uint64_t inherited;    /* individual + Σ children's inherited */
};

/*
 * A node's allocations (Note [Allocation as a cost]).
 *
 * Note [Node allocations]: they are kept beside the nodes, in an array
 * parallel to them (node_alloc[k] for nodes[k]) that exists only when the
 * run counted allocations, not in struct model_node: a report walks a
 * million nodes one by one, and 32 more bytes in each made `report` of
 * the bench's million-context profile a third slower and 36 MB bigger,
 * whether or not the profile had any allocation data.
 */
struct model_node_alloc {
	struct model_alloc individual; /* Σ alloc of contexts with this stack
					* (callers trees: of walks ending here) */
	struct model_alloc inherited;  /* individual + Σ children's inherited */
};

/* Node k's allocations from a tree's node_alloc, zero if that is NULL. */
static inline struct model_node_alloc model_node_alloc_at(const struct model_node_alloc *a,
							  uint32_t k)
{
	return a ? a[k] : (struct model_node_alloc){{0, 0}, {0, 0}};
}

/* Pruning of trees (stack tree, callers trees): a node is hidden when its
 * inherited time is below min_percent of the total (and, with allocation
 * data, its inherited bytes below min_percent of the root's too) or below
 * min_time seconds, or when the entries in its subtree are fewer than
 * min_calls.
 * Hidden nodes take their subtrees with them; their costs stay visible in
 * the parent as one "(n hidden)" line, so totals add up. */
struct model_prune_opts {
	double min_percent; /* 0: off */
	double min_time;    /* seconds; 0: off */
	uint64_t min_calls; /* 0: off */
};

/* Pruning of a tree (model_prune, view.h): per node, whether it is hidden,
 * and for each node the hidden children it stands for, added up. */
struct model_hidden {
	uint32_t count;      /* hidden children */
	uint64_t entries;    /* Σ entries over their subtrees */
	uint64_t time;       /* Σ inherited over them */
	struct model_alloc alloc; /* Σ inherited_alloc over them */
};

struct model_pruned {
	uint8_t *hidden;            /* per node; NULL: nothing pruned */
	struct model_hidden *rest;  /* per node */
};

/* A tree other than the stack tree (callers trees): same node layout,
 * cc may be MODEL_GAP; nodes[0] is the root. */
struct model_tree {
	uint32_t cc;                /* the function at the root */
	uint32_t nnodes;
	struct model_node *nodes;
	struct model_node_alloc *node_alloc; /* parallel to nodes; NULL unless
					      * model_alloc_measured */
	uint64_t *calls;            /* per node: Σ entries of its subtree */
	struct model_pruned pruned;
};

/* A cycle of recursion that really ran (model_cycles). */
struct model_cycle {
	uint32_t len;
	uint32_t *items;   /* CCs in call order, MODEL_GAP for "…" */
	uint64_t entries;  /* Σ E over the contexts that close it */
	uint64_t time;     /* Σ T while it is in progress */
	struct model_alloc alloc; /* Σ alloc while it is in progress (Note
				   * [Allocation as a cost]) */
};

/* What the hooks cost and which could go (model_hook_cost, hookcost.c). */
struct model_hook_cost {
	double per_call;       /* ticks per hooked call, the runtime's estimate; 0: unknown */
	uint64_t calls;        /* Σ calls over the rows */
	double run;            /* ticks of the run (clock=cycles: with what it subtracted) */
	double sample_ticks;   /* the sampling interval in ticks; 0 for clock=cycles */
	double debt_bound;     /* clock=cycles: what an estimate too high may have
				* taken from any one function's self time (Note
				* [A debt that ate work] in hookcost.c) */
	uint32_t nrows;
	uint32_t *rows;        /* functions called, most calls first */
	uint8_t *candidate;    /* per CC: its hooks outweigh its work (Note [Hooks
				* that outweigh] in hookcost.c) */
	uint32_t nfiles;
	const char **files;    /* to leave out by file (all theirs candidates) */
	uint32_t nnames;
	const char **names;    /* to leave out by name (C functions) */
	uint32_t nclashing;
	uint32_t *clashing;    /* candidates neither list can name alone */
};

struct model_view;

struct model {
	const struct ccp_profile *prof;
	struct ccp_arena *arena;

	/* model_merge */
	uint32_t nfns;             /* = prof->nccs */
	struct model_fn *fns;
	uint32_t nctx;
	const struct ccp_context *ctx; /* in first-seen order */
	struct ccp_context *own_ctx;   /* ctx if the model made it, else NULL */
	uint32_t root_ctx;         /* the empty history, or MODEL_NONE */
	uint64_t total_time;       /* Σ T over all contexts */
	uint64_t root_time;        /* T of the empty history: outside any CC */
	uint64_t total_calls;      /* Σ E+R over non-root contexts */
	/* Note [Allocation as a cost]; the profile's outside allocations
	 * (prof->alloc.outside_*) are in no context, so in neither. */
	struct model_alloc total_alloc; /* Σ alloc over all contexts */
	struct model_alloc root_alloc;  /* alloc of the empty history: in a
					 * thread, outside any CC */

	/* model_flat: seen cost centres in report orders. */
	uint32_t nlisted;
	uint32_t *by_self;         /* self desc, calls desc, name */
	uint32_t *by_inherited;    /* inherited desc, self desc, name */
	uint32_t *by_calls;        /* calls desc, self desc, name */
	uint32_t *by_self_alloc;   /* self_alloc bytes desc, self desc, name;
				    * NULL unless model_alloc_measured */

	/* model_arcs */
	int arcs_done;
	uint32_t narcs;
	struct model_arc *arcs;
	struct model_arc_alloc *arc_alloc; /* parallel to arcs; NULL unless
					    * model_alloc_measured */
	struct model_arc_index arc_index; /* (caller, callee) -> arc (arcindex.c) */
	/* model_arc_lists.  Arcs into f: arcs[in[in_start[f] .. in_start[f+1])],
	 * out of f likewise with out/out_start; both by time, descending. */
	uint32_t *in_start, *in;
	uint32_t *out_start, *out;

	/* model_tree */
	uint32_t nnodes;
	struct model_node *nodes;
	struct model_node_alloc *node_alloc; /* parallel to nodes (Note [Node
					      * allocations]); NULL unless
					      * model_alloc_measured */

	/* model_contexts */
	uint32_t *ctx_by_time;     /* time desc, entries desc, first seen */

	/* Views (view.h).  A view's model borrows names (fns[].name) and the
	 * profile from its base, which must outlive it. */
	const struct model *base;      /* built from this model, or NULL */
	const struct model_view *view; /* the view applied, or NULL */
	int pruning;                   /* model_prune ran: prune, callers too */
	struct model_prune_opts prune;
	struct model_pruned tree_pruned; /* model_prune */

	/* model_callers: one inverted tree per function asked for */
	uint32_t ncallers;
	struct model_tree *callers;
	/* model_around: the functions asked for */
	uint32_t naround;
	uint32_t *around;
	/* model_cycles */
	int cycles_done;
	uint32_t ncycles;
	struct model_cycle *cycles;
	/* model_hot: the expensive arm, tree nodes from the root's child */
	int hot_done;
	uint32_t narm;
	uint32_t *arm;
	/* model_hook_cost */
	struct model_hook_cost *hook_cost;
	/* model_threads: the per-thread breakdown asked for, one model per
	 * thread of the profile with these passes, which a writer builds
	 * when it shows the thread (model_thread_build, view.h) */
	uint32_t nthread_models; /* 0: not asked for */
	unsigned thread_passes;
};

/* Passes beyond the merge, for model_build; a view asks for what it shows. */
enum model_pass {
	MODEL_FLAT = 1u << 0,
	MODEL_ARCS = 1u << 1,
	MODEL_TREE = 1u << 2,
	MODEL_CONTEXTS = 1u << 3,
	MODEL_ARC_LISTS = 1u << 4, /* implies MODEL_ARCS */
	MODEL_ALL = (1u << 5) - 1,
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
/* The passes after the merge that model_build runs, on contexts already
 * in m (a view's model runs them on its own: view.h). */
void model_passes(struct model *m, unsigned passes);

/* The passes, in the order model_build runs them.  Each runs at most once;
 * the fields it fills stay zero (NULL) until it has run. */
int model_merge(struct model *m, const struct ccp_profile *p, char *err, size_t errlen);
void model_flat(struct model *m);
void model_arcs(struct model *m);
void model_arc_lists(struct model *m); /* after model_arcs */
void model_tree(struct model *m);
void model_contexts(struct model *m);

/*
 * View passes (callers.c, cycles.c, hot.c, threads.c).  They read the
 * contexts of m->base through m->view (real histories, where the callers
 * and cycles views need them) or m's own tree and contexts, and fill the
 * fields named after them.
 *
 *   model_callers  the inverted tree of each function in fns
 *                  (docs/views.md, "Callers"); needs nothing
 *   model_around   records fns for the butterfly view; needs
 *                  MODEL_ARC_LISTS
 *   model_cycles   the cycles that ran (§3 "cycles")
 *   model_hot      the expensive arm; needs MODEL_TREE (and
 *                  MODEL_CONTEXTS for the most expensive context)
 *   model_threads  one model per thread with the passes given, each
 *                  built by the writer that shows it (model_thread_build
 *                  in view.h; Note [One thread model at a time] in
 *                  threads.c)
 */
void model_callers(struct model *m, const uint32_t *fns, uint32_t n);
void model_around(struct model *m, const uint32_t *fns, uint32_t n);
void model_cycles(struct model *m);
/* The least rotation of a[0..n) into out, in linear time (cycles.c). */
void model_least_rotation(const uint32_t *a, uint32_t n, uint32_t *out);
void model_hot(struct model *m);
void model_threads(struct model *m, unsigned passes);
/* Under a sampling clock, the threads other than the process's first
 * that ran for less than two intervals, and the time at their roots: most
 * of theirs (Note [Short threads] in threads.c). */
struct model_short_threads {
	uint32_t threads;
	uint64_t root_time;
};
struct model_short_threads model_short_threads(const struct ccp_profile *p);
/* What the profile lost to the context budget (Note [Saying the
 * overflow] in overflow.c): the threads that reached it, and the calls
 * and time in their overflow contexts, whose callers are lost; all 0
 * (threads too) in a profile that kept every context. */
struct model_overflow {
	uint32_t threads;      /* threads with an overflow context */
	uint32_t first_thread; /* the first of them (an index), if any */
	uint32_t functions;    /* distinct functions entered past the limit */
	uint64_t calls;        /* E + R of the overflow contexts */
	uint64_t time;         /* their ticks (the runtime's stats.lost_time) */
	uint64_t total_time;   /* every context's ticks, for the share */
	uint64_t max_contexts; /* the limit in the profile's options, or the default */
};
struct model_overflow model_overflow(const struct ccp_profile *p);
/* Whether thread t (an index) has an overflow context. */
int model_thread_overflowed(const struct ccp_profile *p, uint32_t t);
/*   model_hook_cost what the hooks cost per function, and the gcc
 *                  exclusions that would drop those costing more than
 *                  the function's own work; needs MODEL_FLAT */
void model_hook_cost(struct model *m);
/* cc's self time at the upper bound the marks compare (ticks; Note
 * [Hooks that outweigh] in hookcost.c): the time itself for clock=cycles. */
double model_hook_self_bound(const struct model *m, uint32_t cc);

/* Cost centres whose name matches a pattern list (view.h), into a new
 * array in the arena; returns how many. */
uint32_t model_find_fns(struct model *m, const char *patterns, uint32_t **out);

/* For any tree of model_nodes numbered parent-first (individual and
 * entries filled in, and the individual allocations in alloc unless it is
 * NULL): inherited = individual + Σ children, and the child links, most
 * inherited time first (tree.c). */
void model_tree_finish(const struct model *m, struct model_node *nodes,
		       struct model_node_alloc *alloc, uint32_t n);
/* Add to out[k] the entries of node k's subtree (out zeroed: the sums). */
void model_subtree_entries(const struct model_node *nodes, uint32_t n, uint64_t *out);

/*
 * Walk a tree of model_nodes (numbered parent-first, linked by
 * model_tree_finish) depth first without recursion, skipping hidden nodes
 * (a pruning's, view.h, or NULL): visit(arg, k, 0) when entering node k,
 * visit(arg, k, 1) when leaving it, after its shown children (where a
 * writer puts k's "(n hidden)" line, pruned->rest[k]).
 */
typedef void model_visit(void *arg, uint32_t k, int leaving);
void model_walk(const struct model_node *nodes, const uint8_t *hidden, model_visit *visit,
		void *arg);

/* Building such a tree (tree.c; the stack tree and callers trees): nodes
 * in a growable array, parent first, each (parent, cc) child made once.
 * model_nodes_init makes the root (nodes[0]) with root_cc, and with
 * with_alloc an array of their allocations beside them, zeroed; the
 * caller frees children and takes nodes and alloc.  While building, each
 * node's children are linked in no particular order (model_tree_finish
 * orders them). */
struct model_nodes {
	struct htab children; /* parent << 32 | cc -> node, wide parents only */
	struct model_node *nodes;
	struct model_node_alloc *alloc; /* parallel to nodes, or NULL */
	uint32_t n, cap;
};
void model_nodes_init(struct model_nodes *b, uint32_t root_cc, int with_alloc);
/* The child of parent for cc, made if new (may move b->nodes). */
uint32_t model_nodes_child(struct model_nodes *b, uint32_t parent, uint32_t cc);

/* n zeroed elements in the model's arena; dies on out-of-memory. */
void *model_calloc(struct model *m, size_t n, size_t size);

/* What the merge and a view's build share (model.c, view.c):
 *   model_init     an empty model of p with an arena and nfns zeroed
 *                  cost centres, no contexts yet
 *   model_ctx_find the context of m with history h[0..n) in t (a table of
 *                  indexes into m->ctx by htab_hash_words), or MODEL_NONE
 *                  with the hash and the empty slot to htab_put it in
 *   model_totals   total_time, root_ctx, root_time and total_calls from
 *                  the contexts, once they are complete */
void model_init(struct model *m, const struct ccp_profile *p, uint32_t nfns);
uint32_t model_ctx_find(const struct model *m, const struct htab *t, const uint32_t *h,
			uint32_t n, uint64_t *hash, size_t *slot);
void model_totals(struct model *m);

/* Are the histories a[0..alen) and b[0..blen) the same? */
static inline int model_same_history(const uint32_t *a, uint32_t alen, const uint32_t *b,
				     uint32_t blen)
{
	return alen == blen && (alen == 0 || memcmp(a, b, alen * sizeof *a) == 0);
}

/* The last component of a path ("" for NULL). */
const char *model_basename(const char *path);

/* The path of the module (object file) cost centre cc is in, "" if none. */
const char *model_module_path(const struct model *m, uint32_t cc);

/* Its module's build-id, lowercase hex, "" if none is known. */
const char *model_module_build_id(const struct model *m, uint32_t cc);

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

/* Before visiting context order[i] of a walk over all contexts in
 * order (contexts.c, Note [Prefetch]). */
void model_ctx_prefetch(const struct model *m, const uint32_t *order, uint32_t i);

/* Whether the run counted allocations (Note [Allocation as a cost]). */
static inline int model_alloc_measured(const struct model *m)
{
	return m->prof && m->prof->alloc.measured;
}

/* The allocations outside any context (profile.h) that m shows: the
 * profile's, unless m is a focused view, which keeps only some contexts
 * and none of these (view.c).  m's total allocation is total_alloc plus
 * these. */
struct model_alloc model_alloc_outside(const struct model *m);
/* m's total allocation: total_alloc and model_alloc_outside. */
struct model_alloc model_alloc_total(const struct model *m);

/* Share of the bytes allocated in m's contexts in percent (0 when none
 * were): %alloc, as model_percent is %time. */
double model_alloc_percent(const struct model *m, uint64_t bytes);

/* Ticks to seconds; 0 when the clock rate is unknown. */
double model_seconds(const struct model *m, uint64_t ticks);
/* Share of the total time in percent; 0 when the total is 0. */
double model_percent(const struct model *m, uint64_t ticks);

#endif
