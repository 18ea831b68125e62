/*
 * heap.h - the live heap as a cost of contexts (docs/views.md, "Heap").
 *
 * Note [The live heap as a cost]: a heap profile (profile.h, struct
 * ccp_heap) gives each context the bytes and blocks it allocated that
 * were still live at one moment: when the profile was written, or at a
 * sample.  Those add up over contexts exactly as the allocations do
 * (Note [Allocation as a cost] in model.h): a function's self live bytes
 * are those of the contexts running it, its inherited ones those of the
 * contexts where it is active, a selection moves them to the nearest
 * selected caller, a focus keeps those of the contexts it keeps.  So the
 * heap views are not new passes: heap_base_build copies the profile with
 * each context's alloc_bytes and alloc_blocks replaced by its live ones
 * (and the outside allocations by the outside live heap), and
 * heap_view_build makes the same view of the copy as of the original,
 * with the ordinary passes.
 * Every writer then reads the live heap where it reads allocations.
 *
 * A sample has bytes only: its contexts' blocks are 0.
 *
 * The view of the copy has the same contexts, in the same order, and the
 * same stack-tree nodes, numbered alike, as the view it copies
 * (histories decide both, costs neither: model.c, view.c, tree.c), so a
 * writer can read the heap model's ctx[k] and node_alloc[k] beside the
 * original's ctx[k] and nodes[k].  The arcs are numbered alike too
 * (arcs.c makes each at the first context, in context order, whose
 * history has its pair, or whose R makes its recursive arc: histories
 * and R, which the copy keeps), and so are the callers trees' nodes
 * (callers.c, in context order from the histories).  The pruning is the
 * original's too (the same nodes hidden), with the hidden lines' bytes
 * the live ones.
 */
#ifndef CCPROF_MODEL_HEAP_H
#define CCPROF_MODEL_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

#define HEAP_AT_END UINT32_MAX /* the live heap at the write, not a sample */

/* A heap profile's copy with the live heap of one moment as its
 * allocations, and its merged model. */
struct heap_base {
	struct ccp_profile prof;      /* the copy: threads and contexts its own */
	struct ccp_context *contexts; /* every thread's, one array */
	struct model model;           /* model_merge of prof */
};

/* What a command that needs heap data says of a profile without: of a
 * merged one, that merge left it out (cmd_merge.c says why), not that
 * the runs did not follow the heap. */
#define HEAP_MISSING "no heap data: the run did not follow the heap (record with `ccprof record --heap`)"
#define HEAP_MERGED_OUT "no heap data: merge leaves it out, as the runs' heaps over time do not add up (use each run's own profile)"
#define HEAP_NONE(p) ((p)->stats.merged ? HEAP_MERGED_OUT : HEAP_MISSING)

/* Whether the run followed the heap (heap=1). */
static inline int heap_measured(const struct ccp_profile *p)
{
	return p->heap.measured && p->alloc.measured;
}

/*
 * The copy of p with the live heap at `sample` (an index into
 * p->heap.samples, or HEAP_AT_END) in place of the allocations, merged.
 * b must not move afterwards (its model points into it).  Returns 0, or
 * -1 with a reason in err; heap_base_free is safe after either.
 */
int heap_base_build(struct heap_base *b, const struct ccp_profile *p, uint32_t sample, char *err,
		    size_t errlen);
void heap_base_free(struct heap_base *b);

/* Into m the view of `like` (a model of b's original profile: a view's
 * model, a thread's, or the merged one) applied to b, with the passes
 * given and like's pruning; free m with model_free before b. */
void heap_view_build(struct model *m, const struct heap_base *b, const struct model *like,
		     unsigned passes);

/* Into m (heap_view_build's, of like's view) what like's view passes made
 * that the heap members read: the callers trees of the same functions,
 * pruned as like's are, and one model per thread (MODEL_FLAT) when like
 * has them. */
void heap_views_like(struct model *m, const struct model *like);

/* The live heap on arc k of m (a view's model with MODEL_ARCS) from live
 * (heap_view_build's of m's view, with MODEL_ARCS): the same arc, found
 * by number (heap.h: numbered alike) or else by its caller and callee;
 * NULL when live has no arcs or not that one. */
const struct model_arc_alloc *heap_arc_alloc(const struct model *live, const struct model *m,
					     uint32_t k);

/* The live heap in p's contexts at the write, every thread's (the
 * outside part is p->heap.outside_live_*). */
struct model_alloc heap_live_in_contexts(const struct ccp_profile *p);

/* Sample s's live bytes that the view of m keeps (the contexts a focus
 * keeps; all of them without one), and the outside part unless m is
 * focused (as model_alloc_outside). */
uint64_t heap_sample_in_view(const struct model *m, const struct ccp_heap_sample *s);

/* The sample whose total in the view of m (heap_sample_in_view) is the
 * largest, the earliest of equals, or HEAP_AT_END when there is none: a
 * focus on one function's part of the heap looks at its own largest
 * moment, not the whole program's. */
uint32_t heap_largest_sample(const struct model *m);

#endif
