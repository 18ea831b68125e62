/*
 * jrep.h - what the JSON report writers share (report_json.c,
 * views_json.c): the writer's state and its small helpers.
 */
#ifndef CCPROF_OUTPUT_JREP_H
#define CCPROF_OUTPUT_JREP_H

#include <stdint.h>

#include "model/model.h"
#include "output/json.h"
#include "output/names.h"

struct model_thread; /* model/view.h */

struct jrep {
	struct json j;
	const struct model *m;
	struct names names; /* quoted JSON strings */
	struct names heads; /* "name":…,"id":… members (names_init_json) */
	struct names entry[2]; /* history entries {…,"marked":false|true} */
	uint64_t tps;
	int alloc; /* the profile has allocation data: the *alloc* members */
	const struct model *heap; /* the live heap at the end under the same view
				   * (model/heap.h): the *live* members; or NULL */
};

/* The name of cc, "<root>" for MODEL_NONE, "…" for MODEL_GAP; as a
 * member "key": name, or as a value (an array's item). */
void jr_name(struct jrep *r, const char *key, uint32_t cc);
void jr_name_value(struct jrep *r, uint32_t cc);
static inline void jr_secs(struct jrep *r, const char *key, uint64_t ticks)
{
	json_kseconds(&r->j, key, ticks, r->tps); /* inline: the key's length is known */
}
/* The id of cc, or null for MODEL_NONE and MODEL_GAP; member or value. */
void jr_id(struct jrep *r, const char *key, uint32_t cc);
void jr_id_value(struct jrep *r, uint32_t cc);
/* An object that stands for cc, opened with its "name" and "id". */
void jr_named_object(struct jrep *r, uint32_t cc);

/* "alloc": {bytes, blocks, outside_bytes, outside_blocks}, m's total
 * allocation and the part outside any context, when m has allocation
 * data (report_json.c; `info --json` writes it too). */
void jr_alloc_member(struct json *j, const struct model *m);
/* "overflow": what the profile lost to max_contexts (model_overflow),
 * when any thread reached it: the limit, the threads, and the calls and
 * time in overflow contexts (report_json.c; `info --json` and the HTML
 * page's data write it too). */
void jr_overflow_member(struct json *j, const struct ccp_profile *p);
/* "functions": the flat profile of r->m (report_json.c). */
void jr_functions(struct jrep *r);
/* A function's costs as in "functions": "self_s", "inherited_s" and,
 * with allocation data, its self and inherited bytes and blocks. */
void jr_fn_costs(struct jrep *r, const struct model_fn *fn);
/* With allocation data, "alloc_bytes" and "alloc_blocks" of a (a
 * context's, a cycle's); nothing without. */
void jr_alloc_fields(struct jrep *r, struct model_alloc a);
/* A context as an object: "history", "entries", "recursive", "time_s"
 * (the items of "contexts", and the hot path's context). */
void jr_context(struct jrep *r, const struct ccp_context *c);
/* The costs of a tree node: "entries", "individual_s", "inherited_s";
 * with allocation data (r->alloc), then "individual_alloc_bytes" and
 * "inherited_alloc_bytes" from a (NULL: 0). */
void jr_node_fields(struct jrep *r, uint64_t entries, uint64_t individual, uint64_t inherited,
		    const struct model_node_alloc *a);

/* The views' members of the top-level object (views_json.c), each
 * present when its pass ran; "view" when the model is a view. */
void jr_view(struct jrep *r);
void jr_hot(struct jrep *r);
void jr_callers(struct jrep *r);
void jr_around(struct jrep *r);
void jr_cycles(struct jrep *r);
void jr_hook_cost(struct jrep *r);
void jr_threads(struct jrep *r);
/* A tree of model_nodes (with their allocations, or NULL), its pruning
 * and its calls per node, as nested objects; live is the heap model's
 * tree numbered alike (jr_heap_callers), or NULL. */
void jr_node_tree(struct jrep *r, const struct model_node *nodes,
		  const struct model_node_alloc *alloc, const struct model_pruned *pr,
		  const uint64_t *calls, const struct model_tree *live);

/* The live heap's members (heap_json.c), each written only with r->heap
 * (Note [The live heap as a cost] in model/heap.h: contexts, nodes, arcs
 * and callers trees numbered alike in both models): of function cc, of
 * context c (one of r->m's), of node k of a tree whose live heap is live
 * (the heap model's node_alloc, NULL: 0) and of its "(n hidden)" line
 * (the heap model's pruning of that tree), of arc k of r->m (all four
 * sides, or from one side for "around"); and the top-level "heap"
 * object. */
void jr_heap_fn(struct jrep *r, uint32_t cc);
void jr_heap_ctx(struct jrep *r, const struct ccp_context *c);
void jr_heap_node(struct jrep *r, const struct model_node_alloc *live, uint32_t k);
void jr_heap_hidden(struct jrep *r, const struct model_pruned *live, uint32_t k);
void jr_heap_arc(struct jrep *r, uint32_t k);
void jr_heap_arc_side(struct jrep *r, uint32_t k, int incoming);
void jr_heap(struct jrep *r);
/* The heap model's callers tree i, numbered as r->m's, or NULL. */
const struct model_tree *jr_heap_callers(const struct jrep *r, uint32_t i);
/* Thread i's "total_live_bytes", and the heap model of that thread (for
 * its functions' members), built into one, which the caller frees with
 * model_thread_free when the result is not NULL; nothing and NULL without
 * r->heap. */
const struct model *jr_heap_thread(struct jrep *r, uint32_t i, struct model_thread *one);

#endif
