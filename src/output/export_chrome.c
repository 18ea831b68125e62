/*
 * export_chrome.c - the Trace Event Format (docs/exports.md, "chrome"),
 * for Perfetto, chrome://tracing and speedscope: the stack tree as a flame
 * chart.
 *
 * ccprof keeps exact costs per calling context, not a timeline of calls,
 * so the timeline written here is synthetic (docs/exports.md, "chrome"):
 * one "X" (complete) event per node of the stack tree (docs/semantics.md,
 * "The views") with time, lasting the node's inherited time, its children
 * laid out one after another from its start in the tree's order (most
 * inherited time first, ties by entries then name; a "(hidden)" stand-in
 * last) and its own time after them.  Every child lies inside its parent
 * and siblings never overlap.  The root's own time (outside every cost
 * centre) is one top-level "<root>" event after the others, so the top
 * level adds up to the total.  Events are written parent first (the tree's
 * preorder).  Nodes whose time rounds to no microsecond are left out, with
 * their subtrees: they would be invisible, and an event of length 0 on a
 * boundary would belong to either side.
 *
 * Positions in whole microseconds: a node's start and end are sums of
 * ticks, each rounded to the microsecond (export_scale_one), and dur is
 * the difference of the rounded ends, so nesting holds exactly in the
 * numbers written, a dur is within 1 µs of the node's own rounded time,
 * and the top level adds up to the total rounded to the µs (the unit of
 * folded).  Whole numbers because readers add ts and dur in binary
 * floating point (speedscope does): with three decimals an end landed a
 * hair past the next sibling's start, and speedscope nested that
 * sibling inside it (tests/chrome_trace.py saw it).  args.self_us
 * is exact to the ns (three decimals): nothing is laid out by it.
 *
 *   pid 1      the synthetic timeline, named after the program; tid 0 the
 *              merged tree ("all threads", or the one thread's label), or
 *              with --threads tid 1, 2, ... each thread's own tree, named
 *              "name [tid]" (tids are the thread's place in the profile:
 *              the kernel reuses thread ids, and one track must nest)
 *   pid 2      "heap (real time)": with heap data, a "C" (counter) event
 *              "live heap" per heap sample at its real time since the
 *              start, args.bytes the bytes live in the view's stacks and
 *              outside any (hp's sample total; an empty sample at 0 first
 *              when the first is later, as hp writes)
 */
#include "output/export.h"

#include <stdlib.h>

#include "model/heap.h"
#include "model/view.h"
#include "model/xalloc.h"
#include "output/heap_bands.h"
#include "output/json.h"
#include "output/names.h"

#define CHROME_PID_TREE 1
#define CHROME_PID_HEAP 2

struct chrome {
	struct json j;
	const struct model *m;  /* the tree being laid out */
	struct names names;     /* quoted JSON names */
	uint64_t tid;
	uint64_t *at;           /* at[d]: where depth d's next node starts, ticks */
	uint32_t cap;           /* of at */
	int alloc;              /* the run counted allocations */
};

/* Nanoseconds as microseconds, "key":value. */
static void chrome_us(struct json *j, const char *key, uint64_t ns)
{
	json_key(j, key);
	json_sep(j);
	ob_decimal(j->o, ns, 1000);
	j->comma = 1;
}

static uint64_t chrome_ns(const struct chrome *c, uint64_t ticks)
{
	return export_scale_one(ticks, 1000000000u, c->m->prof->ticks_per_sec);
}

/* A position on the timeline: ticks in whole microseconds. */
static uint64_t chrome_pos(const struct chrome *c, uint64_t ticks)
{
	return export_scale_one(ticks, 1000000u, c->m->prof->ticks_per_sec);
}

/* An "M" event naming process pid or thread tid. */
static void chrome_meta(struct json *j, const char *what, uint64_t pid, uint64_t tid,
			const char *name)
{
	json_newline(j);
	json_begin_object(j);
	json_kstring(j, "name", what);
	json_kstring(j, "ph", "M");
	json_kuint(j, "pid", pid);
	json_kuint(j, "tid", tid);
	json_key(j, "args");
	json_begin_object(j);
	json_kstring(j, "name", name);
	json_end_object(j);
	json_end_object(j);
}

/* One "X" event: cc (a path entry, or MODEL_NONE for "<root>") over
 * [start, start + len) ticks, with x's own costs in args; none when it
 * rounds to no time (then so does all of x's subtree, which lies in it). */
static void chrome_event(struct chrome *c, uint32_t cc, uint64_t start, uint64_t len,
			 const struct model_node *x, const struct model_node_alloc *a)
{
	struct json *j = &c->j;
	uint64_t us = chrome_pos(c, start), end = chrome_pos(c, start + len);
	if (end == us)
		return;
	json_newline(j);
	json_begin_object(j);
	json_key(j, "name");
	if (cc == MODEL_NONE || cc == EXPORT_HIDDEN) {
		json_string(j, cc == MODEL_NONE ? EXPORT_ROOT_NAME : EXPORT_HIDDEN_NAME);
		json_kstring(j, "cat", "ccprof");
	} else {
		names_json(j, &c->names, cc);
		json_kstring(j, "cat", c->m->prof->ccs[cc].kind == CCP_CC_MANUAL ? "region"
									    : "function");
	}
	json_kstring(j, "ph", "X");
	json_kuint(j, "ts", us);
	json_kuint(j, "dur", end - us);
	json_kuint(j, "pid", CHROME_PID_TREE);
	json_kuint(j, "tid", c->tid);
	json_key(j, "args");
	json_begin_object(j);
	json_kuint(j, "entries", x->entries);
	chrome_us(j, "self_us", chrome_ns(c, x->individual));
	if (c->alloc) {
		json_kuint(j, "self_alloc_bytes", a->individual.bytes);
		json_kuint(j, "inherited_alloc_bytes", a->inherited.bytes);
	}
	json_end_object(j);
	json_end_object(j);
}

/* export_visit: each node with time at its depth's cursor. */
static void chrome_node(void *arg, const struct model_node *x, const struct model_node_alloc *a,
			const uint32_t *path, uint32_t depth, int leaving)
{
	struct chrome *c = arg;
	if (depth + 2 > c->cap) {
		c->cap = 2 * (depth + 2);
		c->at = xrealloc(c->at, c->cap, sizeof *c->at);
	}
	if (depth == 0) { /* the root: its children from 0, its own time last */
		if (!leaving)
			c->at[1] = 0;
		else if (x->individual)
			chrome_event(c, MODEL_NONE, c->at[1], x->individual, x, a);
		return;
	}
	if (leaving || !x->inherited)
		return; /* without time: so is its subtree */
	uint64_t start = c->at[depth];
	c->at[depth] += x->inherited;
	c->at[depth + 1] = start;
	chrome_event(c, path[depth - 1], start, x->inherited, x, a);
}

/* A track: m's stack tree laid out on thread tid, named label. */
static void chrome_track(struct chrome *c, const struct model *m, uint64_t tid, const char *label)
{
	chrome_meta(&c->j, "thread_name", CHROME_PID_TREE, tid, label);
	c->m = m;
	c->tid = tid;
	export_walk_tree(m, chrome_node, c);
}

/* "live heap" at ns since the start. */
static void chrome_counter(struct json *j, uint64_t ns, uint64_t bytes)
{
	json_newline(j);
	json_begin_object(j);
	json_kstring(j, "name", "live heap");
	json_kstring(j, "ph", "C");
	chrome_us(j, "ts", ns);
	json_kuint(j, "pid", CHROME_PID_HEAP);
	json_kuint(j, "tid", 0);
	json_key(j, "args");
	json_begin_object(j);
	json_kuint(j, "bytes", bytes);
	json_end_object(j);
	json_end_object(j);
}

/* The heap samples as counters: each the bytes hp's sample adds up to. */
static void chrome_heap(struct json *j, const struct model *m)
{
	const struct ccp_heap *heap = &m->prof->heap;
	struct heap_bands b;
	chrome_meta(j, "process_name", CHROME_PID_HEAP, 0, "heap (real time)");
	heap_bands_init(&b, m);
	if (heap->nsamples == 0 || heap->samples[0].time_ns > 0)
		chrome_counter(j, 0, 0);
	for (uint32_t k = 0; k < heap->nsamples; k++) {
		const struct ccp_heap_sample *s = &heap->samples[k];
		uint64_t bytes = heap_bands_outside(&b) ? s->outside_bytes : 0;
		heap_bands_sample(&b, s);
		for (uint32_t i = 0; i < b.ntouched; i++)
			bytes += b.bytes[b.touched[i]];
		heap_bands_clear(&b);
		chrome_counter(j, s->time_ns, bytes);
	}
	heap_bands_free(&b);
}

int export_chrome(FILE *f, const struct export_input *in, const struct export_opts *opts)
{
	const struct model *m = in->m;
	const struct ccp_profile *p = m->prof;
	struct ob *o = ob_open(f);
	struct chrome c = {.m = m, .alloc = model_alloc_measured(m), .cap = 64};
	struct json *j = &c.j;
	char label[128];
	c.at = xnmalloc(c.cap, sizeof *c.at);
	json_init(j, o);
	names_init(&c.names, m, &escape_json, 1);

	json_begin_object(j);
	json_key(j, "traceEvents");
	json_begin_array(j);
	chrome_meta(j, "process_name", CHROME_PID_TREE, 0, export_program(m));
	if (opts->threads) {
		for (uint32_t t = 0; t < in->nthreads; t++) {
			struct model_thread one;
			model_thread_build(&one, m, t);
			export_thread_label(&in->threads[t], label, sizeof label);
			chrome_track(&c, &one.m, t + 1, label);
			model_thread_free(&one);
		}
	} else if (p->nthreads == 1) {
		struct export_thread one = {.tid = p->threads[0].tid, .name = p->threads[0].name};
		export_thread_label(&one, label, sizeof label);
		chrome_track(&c, m, 0, label);
	} else {
		chrome_track(&c, m, 0, "all threads");
	}
	if (heap_measured(p))
		chrome_heap(j, m);
	json_end_array(j);
	json_newline(j);
	json_kstring(j, "displayTimeUnit", "ms");
	json_key(j, "otherData");
	json_begin_object(j);
	json_kstring(j, "exporter", "ccprof " CCPROF_VERSION);
	json_kstring(j, "timeline", "synthetic: each stack's inherited time laid out from its "
				    "parent's start, largest first; not when the calls ran");
	json_end_object(j);
	json_end_object(j);
	ob_putc(o, '\n');
	int ret = ob_close(o);
	names_free(&c.names);
	free(c.at);
	return ret;
}
