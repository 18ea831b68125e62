/*
 * export_speedscope.c - speedscope's own file format (docs/exports.md,
 * "speedscope"; https://www.speedscope.app/file-format-schema.json).
 *
 * One sampled profile: each compressed stack with individual time is a
 * sample (frame indices, root first) whose weight is that time in
 * nanoseconds (export_scale: the weights add up to ccprof's total, which
 * is the profile's endValue).  With --threads, one profile per thread from
 * its own stack tree, each summing to that thread's time.
 *
 * With allocation data, a second sampled profile ("<program> allocation
 * (bytes)", or one per thread after the threads' time profiles): each
 * stack that allocated is a sample weighted by its bytes (unit "bytes"),
 * endValue the bytes of every context.  The time profile stays first,
 * the one speedscope opens (activeProfileIndex 0).
 *
 * Frames are shared: one per cost centre in some history, then "<root>"
 * for time outside every cost centre.  A frame's file is the source file
 * when known, else the object file; line only when known.
 */
#include "output/export.h"

#include <stdlib.h>
#include <string.h>

#include "model/view.h"
#include "model/xalloc.h"
#include "output/json.h"
#include "output/names.h"

struct ss {
	struct json j;
	const struct model *m;  /* the model being written */
	struct names names;     /* quoted JSON strings */
	uint32_t *frame;        /* cc -> frame index */
	uint32_t root_frame;   /* "<root>"; "(hidden)" is the next one */
	struct export_scale ns;
	int samples;            /* writing samples (else weights) */
	int alloc;              /* weights are bytes allocated (else ns) */
};

static void ss_frames(struct ss *s)
{
	struct json *j = &s->j;
	const struct model *m = s->m;
	uint32_t n = 0;
	s->frame = xnmalloc(m->nfns ? m->nfns : 1, sizeof *s->frame);
	json_key(j, "shared");
	json_begin_object(j);
	json_key(j, "frames");
	json_begin_array(j);
	for (uint32_t cc = 0; cc < m->nfns; cc++) {
		s->frame[cc] = MODEL_NONE;
		if (!m->fns[cc].seen)
			continue;
		s->frame[cc] = n++;
		const struct ccp_cc *c = &m->prof->ccs[cc];
		json_newline(j);
		json_begin_object(j);
		json_key(j, "name");
		names_json(j, &s->names, cc);
		json_kstring(j, "file", export_file(m, cc));
		if (c->line)
			json_kuint(j, "line", c->line);
		json_end_object(j);
	}
	s->root_frame = n;
	json_newline(j);
	json_begin_object(j);
	json_kstring(j, "name", EXPORT_ROOT_NAME);
	json_end_object(j);
	json_newline(j);
	json_begin_object(j);
	json_kstring(j, "name", EXPORT_HIDDEN_NAME);
	json_end_object(j);
	json_end_array(j);
	json_end_object(j);
}

/* One sample (or its weight) per stack with a weight. */
static void ss_sample(void *arg, const struct model_node *x, const struct model_node_alloc *a,
		      const uint32_t *path, uint32_t depth, int leaving)
{
	struct ss *s = arg;
	if (leaving)
		return;
	uint64_t w = export_node_weight(&s->ns, s->alloc, x, a);
	if (!w)
		return;
	struct json *j = &s->j;
	if (!s->samples) {
		json_uint(j, w);
		return;
	}
	json_newline(j);
	json_begin_array(j);
	if (depth == 0)
		json_uint(j, s->root_frame);
	for (uint32_t i = 0; i < depth; i++)
		json_uint(j, path[i] == EXPORT_HIDDEN ? s->root_frame + 1 : s->frame[path[i]]);
	json_end_array(j);
}

/* "samples" or "weights": one walk over s->m's tree, the scale restarted
 * so that both lists skip the same stacks. */
static void ss_list(struct ss *s, const char *key, int samples)
{
	json_key(&s->j, key);
	json_begin_array(&s->j);
	s->samples = samples;
	export_scale_ns(&s->ns, s->m);
	export_walk_tree(s->m, ss_sample, s);
	json_end_array(&s->j);
}

/* A profile of m's stacks, weighted by time or (s->alloc) by bytes. */
static void ss_profile(struct ss *s, const struct model *m, const char *name)
{
	struct json *j = &s->j;
	s->m = m;
	json_newline(j);
	json_begin_object(j);
	json_kstring(j, "type", "sampled");
	json_kstring(j, "name", name);
	json_kstring(j, "unit", s->alloc ? "bytes" : "nanoseconds");
	json_kuint(j, "startValue", 0);
	json_kuint(j, "endValue", s->alloc ? m->total_alloc.bytes
					   : export_scale_one(m->total_time, 1000000000u,
							      m->prof->ticks_per_sec));
	/* Two walks over the same tree give the samples and their weights in
	 * the same order. */
	ss_list(s, "samples", 1);
	json_newline(j);
	ss_list(s, "weights", 0);
	json_end_object(j);
}

/* A profile named base, " allocation (bytes)" added for bytes. */
static void ss_named_profile(struct ss *s, const struct model *m, const char *base)
{
	static const char suffix[] = " allocation (bytes)";
	size_t n = strlen(base);
	char *name = xmalloc(n + sizeof suffix);
	memcpy(name, base, n);
	memcpy(name + n, suffix, sizeof suffix);
	if (!s->alloc)
		name[n] = '\0';
	ss_profile(s, m, name);
	free(name);
}

/* The profile of the whole run, or one per thread (--threads). */
static void ss_profiles(struct ss *s, const struct export_input *in,
			const struct export_opts *opts)
{
	if (!opts->threads) {
		ss_named_profile(s, in->m, export_program(in->m));
		return;
	}
	for (uint32_t t = 0; t < in->nthreads; t++) {
		struct model_thread one;
		char label[128];
		model_thread_build(&one, in->m, t);
		export_thread_label(&in->threads[t], label, sizeof label);
		ss_named_profile(s, &one.m, label);
		model_thread_free(&one);
	}
}

int export_speedscope(FILE *f, const struct export_input *in, const struct export_opts *opts)
{
	const struct model *m = in->m;
	struct ob *o = ob_open(f);
	struct ss *s = xcalloc(1, sizeof *s);
	json_init(&s->j, o);
	s->m = m;
	names_init(&s->names, m, &escape_json, 1);

	struct json *j = &s->j;
	json_begin_object(j);
	json_kstring(j, "$schema", "https://www.speedscope.app/file-format-schema.json");
	json_kstring(j, "name", export_program(m));
	json_kstring(j, "exporter", "ccprof " CCPROF_VERSION);
	json_kuint(j, "activeProfileIndex", 0);
	json_newline(j);
	ss_frames(s);
	json_newline(j);
	json_key(j, "profiles");
	json_begin_array(j);
	ss_profiles(s, in, opts);
	if (model_alloc_measured(m)) {
		s->alloc = 1;
		ss_profiles(s, in, opts);
	}
	json_end_array(j);
	json_end_object(j);
	ob_putc(o, '\n');
	int ret = ob_close(o);
	names_free(&s->names);
	free(s->frame);
	free(s);
	return ret;
}
