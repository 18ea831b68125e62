/*
 * report_heap.c - the heap models of a report (report_heap.h): the live
 * heap at the end and at the largest sample, each under the report's
 * view (heap.h, Note [The live heap as a cost]), handed to the writers.
 */
#include "cli/report_heap.h"

#include "cli/cli.h"
#include "model/heap.h"
#include "model/view.h"
#include "output/heap_text.h"

int report_heap_base(const char *path, const struct ccp_profile *p, uint32_t sample,
		     struct heap_base *b)
{
	char err[256] = "";
	if (heap_base_build(b, p, sample, err, sizeof err) != 0) {
		cli_error("ccprof: %s: %s", path, err);
		heap_base_free(b);
		return CLI_EXIT_FAIL;
	}
	return 0;
}

/* The live heap at `sample` under vm's view, into b and m; 0, or 1
 * after saying why not (report_heap_base). */
static int heap_view(const char *path, const struct model *vm, uint32_t sample, unsigned passes,
		     struct heap_base *b, struct model *m)
{
	if (report_heap_base(path, vm->prof, sample, b) != 0)
		return CLI_EXIT_FAIL;
	heap_view_build(m, b, vm, passes);
	return 0;
}

/* report --heap: the heap report, from the live heap at the end (with
 * each thread's, for --threads: heap_views_like) and at the largest
 * sample. */
static int write_text(FILE *out, const char *path, const struct model *vm,
		      const struct report_opts *o, struct model *live)
{
	struct heap_report h = {.m = vm, .live = live};
	struct heap_base big;
	struct model sample;
	h.sample_index = heap_largest_sample(vm);
	if (h.sample_index != HEAP_AT_END) {
		if (heap_view(path, vm, h.sample_index, MODEL_TREE, &big, &sample) != 0)
			return CLI_EXIT_FAIL;
		h.sample = &sample;
	}
	heap_text(out, &h, o);
	if (h.sample) {
		model_free(&sample);
		heap_base_free(&big);
	}
	return 0;
}

/* The passes of the live heap at the end: its functions and its tree,
 * and for JSON its arcs when vm has them (the arcs' live bytes). */
static unsigned end_passes(const struct model *vm, const struct report_heap_args *a)
{
	unsigned passes = MODEL_FLAT | MODEL_TREE;
	return a->json && vm->arcs_done ? passes | MODEL_ARCS : passes;
}

int report_heap_write(FILE *out, const char *path, const struct model *vm,
		      const struct report_opts *o, const struct report_heap_args *a)
{
	struct report_opts with = *o;
	struct heap_base end;
	struct model live;
	int status;
	if (!heap_measured(vm->prof) || (!a->json && !a->text)) {
		(a->json ? report_json : report_text)(out, vm, o);
		return 0;
	}
	if (heap_view(path, vm, HEAP_AT_END, end_passes(vm, a), &end, &live) != 0)
		return CLI_EXIT_FAIL;
	heap_views_like(&live, vm);
	if (a->json) {
		with.heap = &live;
		report_json(out, vm, &with);
		status = 0;
	} else {
		status = write_text(out, path, vm, o, &live);
	}
	model_free(&live);
	heap_base_free(&end);
	return status;
}
