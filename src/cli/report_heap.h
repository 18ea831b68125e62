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

/* Write the report of vm (a view's model of the profile at path) to out:
 * the time report (text or JSON, with the heap members when the profile
 * has heap data), or with a->text the heap report.  Returns the exit
 * status. */
int report_heap_write(FILE *out, const char *path, const struct model *vm,
		      const struct report_opts *o, const struct report_heap_args *a);

#endif
