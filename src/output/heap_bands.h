/*
 * heap_bands.h - a heap sample's records as bands, one per stack of the
 * view: what the exports of the live heap over time share (hp, heap-svg;
 * docs/exports.md).
 *
 * A band is a node of the view's stack tree, so threads are merged (one
 * stack's bytes in every thread are one band, as the tree adds them up)
 * and a selection or focus applies as everywhere.  A pruned subtree is
 * one band, the stand-in under its nearest shown ancestor.  Each record
 * goes to the node of its context under the view, found through the
 * view's history and the tree's children once per context.
 *
 * Band numbers are the node numbers, then nnodes + k for the stand-in
 * under node k: the same in every sample, so a stack keeps its band (and
 * its colour) over time.
 */
#ifndef CCPROF_OUTPUT_HEAP_BANDS_H
#define CCPROF_OUTPUT_HEAP_BANDS_H

#include <stdint.h>

#include "format/profile.h"
#include "model/htab.h"
#include "model/model.h"
#include "output/names.h"
#include "output/ob.h"

#define HEAP_BAND_DROPPED (UINT32_MAX - 1) /* the view drops the context */

struct heap_bands {
	const struct model *m;
	uint32_t nbands;       /* 2 * nnodes: the nodes, then a stand-in under each */
	struct htab children;  /* parent << 32 | cc -> node of m's tree */
	uint32_t *band;        /* per profile context, threads one after another */
	uint32_t *first;       /* per thread: its first context's place in band */
	uint32_t *buf, buf_cap; /* one view history */
	/* the sample added up by heap_bands_sample: */
	uint64_t *bytes;       /* per band */
	uint32_t *touched, ntouched; /* bands with bytes, in band order */
};

/* For the view m (with MODEL_TREE); free with heap_bands_free. */
void heap_bands_init(struct heap_bands *b, const struct model *m);
void heap_bands_free(struct heap_bands *b);

/* The band of a record's context, or HEAP_BAND_DROPPED. */
uint32_t heap_bands_record(struct heap_bands *b, const struct ccp_heap_record *r);

/* Sample s's records added up by band into bytes[], the bands that have
 * any listed in touched[], in band order; heap_bands_clear before the
 * next sample. */
void heap_bands_sample(struct heap_bands *b, const struct ccp_heap_sample *s);
void heap_bands_clear(struct heap_bands *b);

/* Whether the view keeps the bytes live in no context: not under a
 * focus, which keeps only the contexts where the focused function is
 * active (as model_alloc_outside). */
int heap_bands_outside(const struct heap_bands *b);

/* A band's name, as GHC's -hc names a cost-centre stack: "(k)" then the
 * stack innermost first, '/' between, from names escaped for the output
 * (nm); "(0)<root>" for the root context, "(k)(hidden)/parent/..." for a
 * stand-in.  With max > 0, a stack longer than max bytes is cut, as
 * GHC's +RTS -L cuts it: what fits in max - 3 bytes (at a UTF-8
 * character boundary), then "...".  Max is at least 4. */
#define HEAP_BANDS_CUT "..."
void heap_bands_name(struct ob *o, const struct heap_bands *b, const struct names *nm,
		     uint32_t band, size_t max);

#endif
