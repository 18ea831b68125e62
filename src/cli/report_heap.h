/*
 * report_heap.h - what `ccprof report` adds for a heap profile
 * (model/heap.h): the models of the live heap under the report's view,
 * for report --heap (text) and the JSON report's heap members.
 */
#ifndef CCPROF_CLI_REPORT_HEAP_H
#define CCPROF_CLI_REPORT_HEAP_H

#include <stdio.h>

#include "model/model.h"
#include "output/report.h"

/* What the report asked of the heap. */
struct report_heap_args {
	int json;    /* --json: the heap members, when the profile has heap data */
	int text;    /* --heap in text: the heap report instead of the time one */
};

struct heap_base;

/* Into b the copy of p (read from path) with the live heap at `sample`
 * (model/heap.h, heap_base_build), for report and convert; on failure
 * prints "ccprof: PATH: REASON" and returns 1 (nothing to free).  It
 * cannot fail for a p whose model was built, being built from the same
 * histories, but says so if it does rather than leave out the heap. */
int report_heap_base(const char *path, const struct ccp_profile *p, uint32_t sample,
		     struct heap_base *b);

/* Write the report of vm (a view's model of the profile at path) to out:
 * the time report (text or JSON, with the heap members when the profile
 * has heap data), or with a->text the heap report.  Returns the exit
 * status. */
int report_heap_write(FILE *out, const char *path, const struct model *vm,
		      const struct report_opts *o, const struct report_heap_args *a);

#endif
