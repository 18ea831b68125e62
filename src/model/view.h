/*
 * view.h - views after the run: selection, focus and pruning as operations
 * on the model, so that every writer (report, convert, diff) shows the
 * same thing for the same options.
 *
 * ---- Interface (stable) -------------------------------------------------
 *
 *   struct model_view_opts o;             what the user asked for
 *   model_view_opts_init(&o);
 *   getopt loop: view_opts_parse(&o, c, optarg, err, sizeof err)
 *                (src/cli/view_opts.h: VIEW_OPTIONS goes in the
 *                command's `struct option` table), or fill o by hand
 *   cli_load(path, 0, &cp);               the base model (merge only)
 *   struct model_view v;
 *   model_view_resolve(&v, &cp.model, &o, err, sizeof err);
 *                                         patterns -> sets of cost centres
 *   struct model vm;
 *   model_view_build(&vm, &cp.model, &v, passes);
 *                                         the model the view shows: its
 *                                         contexts are the base contexts
 *                                         kept, cut and reduced (below),
 *                                         then the passes asked for run
 *                                         on them as on any model
 *   model_prune(&vm, &o.prune);           optional, after MODEL_TREE:
 *                                         vm.tree_pruned marks small nodes
 *   ... any writer reads vm; model_walk visits a (pruned) tree ...
 *   model_free(&vm); model_view_free(&v); model_view_opts_free(&o);
 *
 * view_opts_model() (src/cli/view_opts.h) does resolve, build and prune
 * in one call, with the warnings and errors a command prints.
 *
 * vm borrows names and the profile from the base model: free vm first.
 * With an empty model_view_opts, vm equals the base model.
 *
 * ---- What a view does to each context (docs/semantics.md, "The views") -
 *
 *   focus     kept only if some focused CC is active; the history is cut
 *             before the first marked focused entry, so the stack tree is
 *             rooted at the focused function.  Focused CCs are always
 *             selected.  With several, the lowest one in each stack roots
 *             it (their union is shown).
 *   selection when something is deselected, the history becomes the
 *             compressed stack reduced to its selected CCs, all marked
 *             (Morgan & Jarvis): its last entry is the top-most selected
 *             CC, which gets the time and allocations (COST), and every
 *             entry inherits them (INHERITED); E and R are kept only when the running CC
 *             is selected (calls of a deselected function vanish).  Arcs
 *             are then the adjacent pairs of the reduced stacks.  Thread
 *             roots are always selected; a root entered again (unmarked
 *             first entry) stays in front, unmarked, so that the stack
 *             still starts at it (Note [The thread root of a reduced
 *             stack] in view.c).
 *   thread    (model_view.thread) only that thread's contexts, for the
 *             per-thread breakdown.
 *
 * Contexts that become equal are added up, as model_merge does for
 * threads.
 */
#ifndef CCPROF_MODEL_VIEW_H
#define CCPROF_MODEL_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* A list of option values as given; each is a comma-separated list of
 * names with `*` globs (see model_name_matches, model_fn_matches). */
struct model_patterns {
	const char **v;
	uint32_t n, cap;
};

/* struct model_prune_opts is in model.h (a model remembers its pruning). */

struct model_view_opts {
	struct model_patterns select;   /* --select: only these (and roots) */
	struct model_patterns deselect; /* --deselect, --exclude */
	struct model_patterns module;   /* --module: functions of these modules */
	struct model_patterns focus;    /* --focus, repeatable: union */
	int only_exported;              /* --only-exported: global symbols */
	struct model_prune_opts prune;  /* --min-percent, --min-calls, --min-time */
	/* --short-names: no view of its own; the command shortens its base
	 * models' names before it builds views (model/shortnames.h). */
	int short_names;
};

/* The options resolved against one model's cost centres. */
struct model_view {
	uint32_t nfns;
	uint8_t *selected; /* per CC: 1 selected; NULL: everything selected */
	uint8_t *focus;    /* per CC: 1 focused; NULL: no focus */
	int deselected;    /* some CC that ran is not selected */
	uint32_t thread;   /* profile thread index, or MODEL_NONE: all */
	/* A pattern that matched nothing, per option (NULL if all did), so
	 * the caller can warn (select, deselect, module) or fail (focus); and
	 * a module --only-exported could not read.  Owned by the view. */
	char *unmatched_select, *unmatched_deselect, *unmatched_module;
	char *unmatched_focus;
	char *unreadable_module;
};

void model_view_opts_init(struct model_view_opts *o);
void model_view_opts_free(struct model_view_opts *o);
void model_patterns_add(struct model_patterns *p, const char *value);
/* Any selection, focus or pruning asked for. */
int model_view_opts_any(const struct model_view_opts *o);

/*
 * Resolve o against base (names from a merged model; no pass needed).
 * Selection: everything, or what --select matches; then only functions
 * of --module modules, only global symbols with --only-exported (manual
 * regions are kept by both: they were named on purpose); minus what
 * --deselect matches; plus thread roots and focused functions.  Returns
 * 0, or -1 with a message (a module file that cannot be read for
 * --only-exported is not an error: its functions count as not exported).
 */
int model_view_resolve(struct model_view *v, const struct model *base,
		       const struct model_view_opts *o, char *err, size_t errlen);
void model_view_free(struct model_view *v);

/* Build the model a view shows from base (see the top of this file),
 * then run the passes (enum model_pass) on it.  v may be NULL (the whole
 * base model). */
void model_view_build(struct model *m, const struct model *base, const struct model_view *v,
		      unsigned passes);

/* m's functions named as like's (the same profile's cost centres): their
 * names borrowed, short or whole (model/shortnames.h). */
void model_names_like(struct model *m, const struct model *like);

/*
 * One thread's model of the per-thread breakdown (model_threads, after
 * which m->nthread_models is the profile's threads): thread t's contexts
 * under m's view, with m->thread_passes.  A writer builds each thread's
 * when it shows it and frees it before the next (Note [One thread model
 * at a time] in threads.c).  th->m.view points at th->view: th must stay
 * where it is until model_thread_free; m and its base must outlive it.
 */
struct model_thread {
	struct model m;         /* what the writer reads */
	struct model_view view; /* m's view for thread t alone (shares its sets) */
};
void model_thread_build(struct model_thread *th, const struct model *m, uint32_t t);
void model_thread_free(struct model_thread *th);

/* The view's history of one base history h[0..n): written to out (room
 * for n entries); returns its length, or MODEL_NONE if the view drops the
 * context.  *calls is set to whether its E and R count. */
uint32_t model_view_history(const struct model_view *v, const uint32_t *h, uint32_t n,
			    uint32_t *out, int *calls);

/* The contexts a view model was built from, read through one interface:
 * the base model's (threads merged), or one thread's when view->thread
 * is set.  The view's own contexts are built from these, and the callers
 * and cycles passes walk their real histories. */
struct model_src {
	const uint32_t *hist;
	uint32_t len;
	uint64_t entries, recursive, time;
	struct model_alloc alloc;
};
uint32_t model_src_count(const struct model *m);
void model_src_get(const struct model *m, uint32_t k, struct model_src *s);

/* Where the view puts a source history h[0..n): *start is the first
 * entry it keeps (the focus cut), and the result the position of the
 * entry that gets the time (the top-most selected marked entry; n - 1
 * without a selection), or MODEL_NONE if the context is dropped. */
uint32_t model_view_place(const struct model_view *v, const uint32_t *h, uint32_t n,
			  uint32_t *start);

/* Is cc selected in the view (v may be NULL)? */
static inline int model_view_selected(const struct model_view *v, uint32_t cc)
{
	return !v || !v->selected || v->selected[cc];
}

/* Does name match one of the comma-separated `*` patterns in list?  A
 * pattern also matches a C++ name up to its parameter list ("ns::f"
 * matches "ns::f(int)"); commas inside () <> [] do not split. */
int model_name_matches(const char *list, const char *name);

/* Does function cc of m match one of them: by its name, as above, or by
 * the label the report gives it where another function shares its name,
 * "step [twins+0x1159]" (Note [Qualified names in patterns] in
 * select.c)? */
int model_fn_matches(const struct model *m, uint32_t cc, const char *list);

/* The first pattern of list that matches no function that ran in any of
 * the n models (malloc'd), or NULL if each matches in one of them: a
 * list that names several functions must not drop a typo in silence. */
char *model_unmatched_pattern(const struct model *const *ms, uint32_t n, const char *list);

/* Pruning (prune.c): mark the hidden nodes of a tree (with its nodes'
 * allocations, or NULL).  m->tree_pruned for the stack tree. */
void model_prune(struct model *m, const struct model_prune_opts *o);
void model_prune_nodes(struct model *m, const struct model_node *nodes,
		       const struct model_node_alloc *alloc, uint32_t n,
		       const struct model_prune_opts *o, struct model_pruned *out);
int model_prune_any(const struct model_prune_opts *o);

#endif
