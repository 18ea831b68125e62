/*
 * export_pprof.c - pprof's profile.proto, gzip-compressed
 * (docs/exports.md, "pprof";
 * https://github.com/google/pprof/blob/main/proto/profile.proto).
 *
 * Mapping (docs/exports.md):
 *   sample_type   [cpu|wall|time nanoseconds, calls count], and with
 *                 allocation data alloc_objects count, alloc_space bytes
 *                 (the names Go's heap profiles give allocations, so
 *                 pprof's -sample_index=alloc_space and its alloc
 *                 options work), and with heap data inuse_objects count,
 *                 inuse_space bytes (pprof's names for a heap profile's
 *                 live data: the live heap at the end, model/heap.h); the
 *                 time one is the default
 *   sample        one per compressed stack with time, entries or
 *                 allocations: location_id leaf first, values
 *                 [individual time in ns, entries Σ E+R] and then
 *                 [blocks, bytes] it allocated itself, and [blocks,
 *                 bytes] of those still live at the end; with --threads,
 *                 per thread from its own stack tree, labelled
 *                 thread = "name [tid]"
 *   function      one per cost centre (id = ccprof id + 1), file = source
 *                 file when known, else the object file
 *   location      one per function, same id, one line (no addresses: a
 *                 ccprof profile has cost centres, not instructions)
 *   "[root]"      a function for time outside every cost centre (and
 *                 "[hidden]", "[overflow]", "[unnamed region]": the
 *                 tool's names in brackets, PPROF_ROOT_NAME)
 *   "[outside]"   a function for the allocations in no context, with
 *                 a sample of its own (Note [Outside in pprof])
 *
 * Nanoseconds are rounded by export_scale, so the samples add up to
 * ccprof's total (exact for the cpu and wall clocks, whose ticks are ns).
 * Sample values are int64 in profile.proto and ccprof's counts uint64: a
 * value over INT64_MAX is written as INT64_MAX (pp_int64).
 * No mappings: pprof makes one up.  The message is built in memory
 * (pbuf.h) and written as gzip with stored blocks (gzip.h).
 */
#include "output/export.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/heap.h"
#include "model/view.h"
#include "model/xalloc.h"
#include "output/escape.h"
#include "output/gzip.h"
#include "output/names.h"
#include "output/pbuf.h"

/* The root and a pruned subtree's stand-in, named without the angle
 * brackets and parentheses of EXPORT_ROOT_NAME and EXPORT_HIDDEN_NAME:
 * go tool pprof, by default, simplifies names as C++ ones, dropping
 * template arguments and parameter lists, and showed "<root>" as
 * "<unknown>". */
#define PPROF_ROOT_NAME "[root]"
#define PPROF_HIDDEN_NAME "[hidden]"
#define PPROF_OUTSIDE_NAME "[outside]"

/* The same for the model's own stand-ins in angle brackets, for a cost
 * centre with no name of its own ("<overflow>", "<unnamed region>":
 * model_cc_name): pprof showed "<overflow>", most of a run past
 * --max-contexts, as "<unknown>".  NULL for any other. */
static char *pp_stand_in(const struct model *m, uint32_t cc)
{
	const char *own = m->prof->ccs[cc].name, *shown = m->fns[cc].name;
	size_t len = strlen(shown);
	if ((own && own[0]) || len < 2 || shown[0] != '<' || shown[len - 1] != '>')
		return NULL;
	char *s = xstrdup(shown);
	s[0] = '[';
	s[len - 1] = ']';
	return s;
}

/* Field numbers of profile.proto (the link above). */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUETYPE_TYPE = 1, VALUETYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2,
	LOCATION_ID = 1, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
	FUNCTION_START_LINE = 5,
};

struct pp {
	struct pbuf b;
	const struct model *m;
	struct export_strtab str;
	struct export_scale ns;
	uint32_t root_id;     /* function/location id of "<root>"; +1 "(hidden)",
			       * +2 "[outside]" */
	int64_t label_key;    /* "thread", or -1 */
	int64_t label_str;
	int alloc;            /* the alloc_objects and alloc_space values too */
	const struct model *heap; /* while pp_samples walks m: the live heap
				   * under m's view, whose nodes are m's
				   * (heap.h), the inuse_* values; or NULL */
};

/* The live heap of node x of p->m (or of the stand-in for the hidden
 * children of its parent). */
static struct model_alloc pp_live(const struct pp *p, const struct model_node *x)
{
	const struct model *h = p->heap;
	if (x->cc == EXPORT_HIDDEN)
		return h->tree_pruned.rest ? h->tree_pruned.rest[x->parent].alloc
					   : (struct model_alloc){0, 0};
	return model_node_alloc_at(h->node_alloc, (uint32_t)(x - p->m->nodes)).individual;
}

static void pp_value_type(struct pp *p, uint32_t field, const char *type, const char *unit)
{
	size_t mk = pb_begin(&p->b, field);
	pb_uint(&p->b, VALUETYPE_TYPE, export_strtab_add(&p->str, type));
	pb_uint(&p->b, VALUETYPE_UNIT, export_strtab_add(&p->str, unit));
	pb_end(&p->b, mk);
}

/* An int64 field's value from a uint64 count, saturated: 2^63 and more
 * as a varint would be read back as a negative number (two's complement),
 * which pprof would subtract from the totals; INT64_MAX is as near as an
 * int64 gets. */
static uint64_t pp_int64(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : v;
}

/* A sample's values: time in ns, calls, and the blocks and bytes
 * allocated (with allocation data) and live at the end (with_live). */
static void pp_values(struct pp *p, uint64_t ns, uint64_t calls, struct model_alloc alloc,
		      struct model_alloc live, int with_live)
{
	struct pbuf *b = &p->b;
	size_t vals = pb_begin(b, SAMPLE_VALUE); /* packed */
	pb_varint(b, pp_int64(ns));
	pb_varint(b, pp_int64(calls));
	if (p->alloc) {
		pb_varint(b, pp_int64(alloc.blocks));
		pb_varint(b, pp_int64(alloc.bytes));
	}
	if (with_live) {
		pb_varint(b, pp_int64(live.blocks));
		pb_varint(b, pp_int64(live.bytes));
	}
	pb_end(b, vals);
}

/* Location ids: cost centre + 1, the root nfns + 1 (ids are non-zero). */
static void pp_sample(void *arg, const struct model_node *x, const struct model_node_alloc *a,
		      const uint32_t *path, uint32_t depth, int leaving)
{
	struct pp *p = arg;
	/* zero without allocation data: then a stack needs time or entries */
	int allocated = a->individual.bytes || a->individual.blocks;
	if (leaving || (!x->individual && !x->entries && !allocated))
		return;
	uint64_t ns = export_scale(&p->ns, x->individual);
	if (!ns && !x->entries && !allocated)
		return;
	struct pbuf *b = &p->b;
	size_t mk = pb_begin(b, PROFILE_SAMPLE);
	size_t ids = pb_begin(b, SAMPLE_LOCATION_ID); /* packed, leaf first */
	if (depth == 0)
		pb_varint(b, p->root_id);
	for (uint32_t i = depth; i-- > 0;)
		pb_varint(b, path[i] == EXPORT_HIDDEN ? p->root_id + 1 : (uint64_t)path[i] + 1);
	pb_end(b, ids);
	/* live within allocated: a stack with any has a sample */
	pp_values(p, ns, x->entries, a->individual,
		  p->heap ? pp_live(p, x) : (struct model_alloc){0, 0}, p->heap != NULL);
	if (p->label_key >= 0) {
		size_t lab = pb_begin(b, SAMPLE_LABEL);
		pb_uint(b, LABEL_KEY, (uint64_t)p->label_key);
		pb_uint(b, LABEL_STR, (uint64_t)p->label_str);
		pb_end(b, lab);
	}
	pb_end(b, mk);
}

static void pp_function(struct pp *p, uint64_t id, const char *name, const char *file,
			uint32_t line)
{
	struct pbuf *b = &p->b;
	uint32_t s = export_strtab_add(&p->str, name);
	size_t mk = pb_begin(b, PROFILE_LOCATION);
	pb_uint(b, LOCATION_ID, id);
	size_t ln = pb_begin(b, LOCATION_LINE);
	pb_uint(b, LINE_FUNCTION_ID, id);
	if (line)
		pb_uint(b, LINE_LINE, line);
	pb_end(b, ln);
	pb_end(b, mk);
	mk = pb_begin(b, PROFILE_FUNCTION);
	pb_uint(b, FUNCTION_ID, id);
	pb_uint(b, FUNCTION_NAME, s);
	pb_uint(b, FUNCTION_SYSTEM_NAME, s);
	pb_uint(b, FUNCTION_FILENAME, export_strtab_add(&p->str, file));
	if (line)
		pb_uint(b, FUNCTION_START_LINE, line);
	pb_end(b, mk);
}

static void pp_string_table(struct pp *p)
{
	size_t cap = 256;
	char *tmp = xmalloc(cap);
	for (uint32_t i = 0; i < p->str.n; i++) {
		size_t len = strlen(p->str.s[i]);
		if (ESCAPE_MAX(len) > cap) {
			cap = ESCAPE_MAX(len);
			tmp = xrealloc(tmp, cap, 1);
		}
		size_t n = escape_mem(tmp, &escape_utf8, p->str.s[i], len);
		pb_bytes(&p->b, PROFILE_STRING_TABLE, tmp, n);
	}
	free(tmp);
}

static const char *pp_time_type(uint32_t clock)
{
	return clock == CCP_CLOCK_CPU ? "cpu" : clock == CCP_CLOCK_WALL ? "wall" : "time";
}

/* The samples of model m (the merged one, or a thread's), with its live
 * heap from the copy b when there is one. */
static void pp_samples(struct pp *p, const struct model *m, const struct heap_base *b)
{
	struct model live;
	p->m = m;
	if (b) {
		heap_view_build(&live, b, m, MODEL_TREE);
		p->heap = &live;
	}
	export_walk_tree(m, pp_sample, p);
	if (b) {
		p->heap = NULL; /* live ends here */
		model_free(&live);
	}
}

/* Note [Outside in pprof]: the allocations in no context (profile.h,
 * struct ccp_alloc; the live ones, struct ccp_heap) belong to no stack,
 * but `ccprof report` counts them in its totals (model_alloc_total, the
 * heap's live at end), and so must pprof's samples: one sample whose
 * stack is the pseudo-function "[outside]", with 0 time and calls, the
 * outside blocks and bytes allocated and those live at the end; none
 * when all of these are 0 (the file is then what it was before).  A
 * focus keeps none of them, as everywhere (model_alloc_outside,
 * heap_bands_outside).  The profile counts them per process, not per
 * thread (one ALLOC section total, docs/format.md), so under --threads
 * the sample is written once, with no thread label: it belongs to no
 * thread that can be named, and the totals still add up (a
 * -tagfocus=thread=... leaves it out, as it should).  Returns whether it
 * wrote the sample (then the function is needed). */
static int pp_outside(struct pp *p, const struct model *m, const struct heap_base *live)
{
	struct model_alloc a = {0, 0}, l = {0, 0};
	if (p->alloc)
		a = model_alloc_outside(m);
	if (live && !(m->view && m->view->focus))
		l = model_alloc_outside(&live->model); /* the copy's: live ones */
	if (!a.bytes && !a.blocks && !l.bytes && !l.blocks)
		return 0;
	struct pbuf *b = &p->b;
	size_t mk = pb_begin(b, PROFILE_SAMPLE);
	size_t ids = pb_begin(b, SAMPLE_LOCATION_ID); /* packed, as pp_sample's */
	pb_varint(b, (uint64_t)p->root_id + 2);
	pb_end(b, ids);
	pp_values(p, 0, 0, a, l, live != NULL);
	pb_end(b, mk);
	return 1;
}

int export_pprof(FILE *f, const struct export_input *in, const struct export_opts *opts)
{
	const struct model *m = in->m;
	const struct ccp_profile *prof = m->prof;
	struct pp *p = xcalloc(1, sizeof *p);
	struct pbuf *b = &p->b;
	const char *time_type = pp_time_type(prof->clock);
	uint32_t nlabels = opts->threads ? in->nthreads : 0;
	char (*labels)[96] = xnmalloc(nlabels ? nlabels : 1, sizeof *labels);
	static const char comment[] =
		"ccprof " CCPROF_VERSION ": stacks are compressed (each function at most once)";

	/* Every message below adds the strings it refers to; the table goes
	 * last, when it is complete (protobuf fields may come in any order). */
	p->m = m;
	p->label_key = -1;
	p->root_id = m->nfns + 1;
	export_strtab_init(&p->str);
	export_strtab_add(&p->str, ""); /* string_table[0] must be "" */
	export_scale_ns(&p->ns, m);

	pp_value_type(p, PROFILE_SAMPLE_TYPE, time_type, "nanoseconds");
	pp_value_type(p, PROFILE_SAMPLE_TYPE, "calls", "count");
	p->alloc = model_alloc_measured(m);
	if (p->alloc) {
		pp_value_type(p, PROFILE_SAMPLE_TYPE, "alloc_objects", "count");
		pp_value_type(p, PROFILE_SAMPLE_TYPE, "alloc_space", "bytes");
	}
	const struct heap_base *live = in->live_end;
	if (live) {
		pp_value_type(p, PROFILE_SAMPLE_TYPE, "inuse_objects", "count");
		pp_value_type(p, PROFILE_SAMPLE_TYPE, "inuse_space", "bytes");
	}
	if (!opts->threads)
		pp_samples(p, m, live);
	for (uint32_t t = 0; t < nlabels; t++) {
		struct model_thread one;
		model_thread_build(&one, m, t);
		export_thread_label(&in->threads[t], labels[t], sizeof labels[t]);
		p->label_key = export_strtab_add(&p->str, "thread");
		p->label_str = export_strtab_add(&p->str, labels[t]);
		pp_samples(p, &one.m, live);
		model_thread_free(&one);
	}
	p->m = m;
	int outside = pp_outside(p, m, live);
	/* pprof adds up the functions of one name (go tool pprof -top showed
	 * a header's two static helpers as one): Note [Names that collide]
	 * in names.c.  The string table keeps pointers: the names live on to
	 * its write. */
	struct names nm;
	names_init_qualified(&nm, m, &escape_utf8);
	char **fname = xcalloc(m->nfns ? m->nfns : 1, sizeof *fname);
	for (uint32_t cc = 0; cc < m->nfns; cc++)
		if (m->fns[cc].seen) {
			fname[cc] = pp_stand_in(m, cc);
			if (!fname[cc])
				fname[cc] = names_strdup(&nm, cc);
			pp_function(p, (uint64_t)cc + 1, fname[cc], export_file(m, cc),
				    prof->ccs[cc].line);
		}
	names_free(&nm);
	pp_function(p, p->root_id, PPROF_ROOT_NAME, prof->program ? prof->program : "", 0);
	if (m->tree_pruned.hidden)
		pp_function(p, (uint64_t)p->root_id + 1, PPROF_HIDDEN_NAME, "", 0);
	if (outside)
		pp_function(p, (uint64_t)p->root_id + 2, PPROF_OUTSIDE_NAME, "", 0);
	if (prof->start_ns)
		pb_uint(b, PROFILE_TIME_NANOS, pp_int64(prof->start_ns));
	if (prof->end_ns > prof->start_ns)
		pb_uint(b, PROFILE_DURATION_NANOS, pp_int64(prof->end_ns - prof->start_ns));
	if (prof->clock != CCP_CLOCK_CYCLES && prof->interval_ns) {
		pp_value_type(p, PROFILE_PERIOD_TYPE, time_type, "nanoseconds");
		pb_uint(b, PROFILE_PERIOD, pp_int64(prof->interval_ns));
	}
	pb_uint(b, PROFILE_COMMENT, export_strtab_add(&p->str, comment));
	pb_uint(b, PROFILE_DEFAULT_SAMPLE_TYPE, export_strtab_add(&p->str, time_type));
	pp_string_table(p);

	int r = gzip_write(f, b->p, b->len);
	pb_free(b);
	export_strtab_free(&p->str);
	for (uint32_t cc = 0; cc < m->nfns; cc++)
		free(fname[cc]);
	free(fname);
	free(labels);
	free(p);
	return r;
}
