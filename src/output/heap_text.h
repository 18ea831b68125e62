/*
 * heap_text.h - the text writer of the heap view of a heap profile
 * (model/heap.h): `ccprof report --heap` (heap_text.c).  The heap
 * members of `report --json` are heap_json.c's, declared in jrep.h with
 * the other JSON report writers; cli/report_heap.c builds the models
 * both read.
 */
#ifndef CCPROF_OUTPUT_HEAP_TEXT_H
#define CCPROF_OUTPUT_HEAP_TEXT_H

#include <stdint.h>
#include <stdio.h>

#include "model/model.h"
#include "output/report.h"

/* The models a heap report reads, all under the same view (heap.h):
 * their contexts and nodes are numbered alike. */
struct heap_report {
	const struct model *m;      /* the view's model (time, names, the view) */
	const struct model *live;   /* the live heap at the end (FLAT, TREE) */
	const struct model *sample; /* the largest sample (TREE), or NULL: none */
	uint32_t sample_index;
};

/* report --heap: the header, the live heap at the end by function and
 * by stack, with --threads each thread's (live's thread models), then
 * the largest sample by stack; o->top rows per table (0: all). */
int heap_text(FILE *out, const struct heap_report *h, const struct report_opts *o);

#endif
