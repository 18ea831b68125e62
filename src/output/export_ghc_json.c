/*
 * export_ghc_json.c - the stack tree as GHC's `+RTS -pj` JSON profile
 * (docs/exports.md, "ghc-json"), laid out as rts/ProfilerReportJson.c
 * prints it.
 *
 * Mapping (docs/exports.md):
 *   cost_centres   every cost centre in some history, id = ccprof's id
 *                  (as in `report --json`), plus GHC's MAIN for the root
 *   profile        the stack tree: MAIN is the empty stack (time outside
 *                  every cost centre), one node per compressed stack
 *   entries        Σ E+R; ticks = its individual time in ticks of
 *                  tick_interval µs; alloc = the bytes its contexts
 *                  allocated (individual, as GHC's), 0 when the run did
 *                  not count allocations
 *   tick_interval  1000 µs: a tick is a millisecond (see GHC_TICK_US)
 *   total_alloc    Σ alloc: the bytes allocated in every context (the
 *                  model's total_alloc; allocations before a thread's
 *                  first cost centre are in no stack, so not here)
 *
 * Ticks are rounded by export_scale, so total_ticks is exactly Σ ticks
 * and ccprof's total time rounded to ticks (docs/exports.md, "ghc-json":
 * total_ticks is the sum of all ticks, as in GHC, and total_alloc = Σ
 * alloc, which holds exactly).  total_time is ccprof's total in seconds,
 * %11.2f.  Every string is escaped, including program and module (GHC
 * forgets those).
 */
#include "output/export.h"

#include <stdlib.h>

#include "model/xalloc.h"
#include "output/escape.h"
#include "output/names.h"
#include "output/ob.h"

struct ghc {
	struct ob *o;
	const struct model *m;
	struct names names;   /* quoted JSON strings */
	struct export_scale ticks;
	uint32_t main_id;     /* MAIN's cost-centre id: one past the last;
			       * the next one is the "(hidden)" stand-in */
	int first;            /* the next node is the first of its siblings */
};

static void ghc_string(struct ob *o, const char *s)
{
	ob_putc(o, '"');
	escape_puts(o, &escape_json, s);
	ob_putc(o, '"');
}

/*
 * A tick is a millisecond, GHC's default, whatever the sampling interval:
 * speedscope shows ticks as milliseconds without reading tick_interval
 * (docs/exports.md, "ghc-json"), so any other tick would show wrong times
 * there.
 */
#define GHC_TICK_US 1000

static void ghc_header(struct ghc *g, uint64_t tick_us, uint64_t total_ticks)
{
	struct ob *o = g->o;
	const struct ccp_profile *p = g->m->prof;
	ob_puts(o, "{\n\"program\": ");
	ghc_string(o, export_program(g->m));
	ob_puts(o, ",\n\"arguments\": [");
	for (uint32_t i = 0; i < p->argc; i++) {
		if (i)
			ob_puts(o, ", ");
		ghc_string(o, p->argv[i]);
	}
	ob_puts(o, "],\n\"rts_arguments\": [],\n\"end_time\": ");
	char date[64];
	export_ghc_date(g->m, date, sizeof date);
	ghc_string(o, date);
	ob_puts(o, ",\n\"initial_capabilities\": 1,\n\"total_time\": ");
	ob_ratio(o, g->m->total_time, p->ticks_per_sec, 0, 2, 11);
	ob_puts(o, ",\n\"total_ticks\": ");
	ob_u64(o, total_ticks, 0);
	ob_puts(o, ",\n\"tick_interval\": ");
	ob_u64(o, tick_us, 0);
	/* GHC prints no space after this colon (as the example in
	 * docs/exports.md, "ghc-json", shows) */
	ob_puts(o, ",\n\"total_alloc\":");
	ob_u64(o, g->m->total_alloc.bytes, 0);
	ob_puts(o, ",\n");
}

/* MODULE and SRC as export_ghc_where finds them. */
static void ghc_where(struct ob *o, const struct model *m, uint32_t cc)
{
	struct export_ghc_where w;
	export_ghc_where(m, cc, &w);
	ob_puts(o, ", \"module\": \"");
	escape_write(o, &escape_json, w.module, w.module_len);
	ob_puts(o, "\", \"src_loc\": \"");
	escape_puts(o, &escape_json, w.src);
	if (w.line) {
		ob_putc(o, ':');
		ob_u64(o, w.line, 0);
	}
	ob_putc(o, '"');
}

/* MAIN, or the stand-in for pruned stacks: module MAIN, no source. */
static void ghc_pseudo_cc(struct ob *o, uint32_t id, const char *label, const char *src)
{
	ob_puts(o, "{\"id\": ");
	ob_u64(o, id, 0);
	ob_puts(o, ", \"label\": ");
	ghc_string(o, label);
	ob_puts(o, ", \"module\": \"" EXPORT_GHC_MAIN "\", \"src_loc\": ");
	ghc_string(o, src);
	ob_puts(o, ", \"is_caf\": false}");
}

static void ghc_cost_centres(struct ghc *g)
{
	struct ob *o = g->o;
	const struct model *m = g->m;
	ob_puts(o, "\"cost_centres\": [\n");
	ghc_pseudo_cc(o, g->main_id, EXPORT_GHC_MAIN, EXPORT_GHC_MAIN_SRC);
	for (uint32_t cc = 0; cc < m->nfns; cc++) {
		if (!m->fns[cc].seen)
			continue;
		ob_puts(o, ",\n{\"id\": ");
		ob_u64(o, cc, 0);
		ob_puts(o, ", \"label\": ");
		names_put(o, &g->names, cc);
		ghc_where(o, m, cc);
		ob_puts(o, ", \"is_caf\": false}");
	}
	if (m->tree_pruned.hidden) {
		ob_puts(o, ",\n");
		ghc_pseudo_cc(o, g->main_id + 1, EXPORT_HIDDEN_NAME, EXPORT_GHC_HIDDEN_SRC);
	}
	ob_puts(o, "]\n,\n");
}

static void ghc_node(void *arg, const struct model_node *x, const struct model_node_alloc *a,
		     const uint32_t *path, uint32_t depth, int leaving)
{
	struct ghc *g = arg;
	struct ob *o = g->o;
	(void)path;
	(void)depth;
	if (leaving) {
		ob_puts(o, "]}");
		g->first = 0;
		return;
	}
	if (!g->first)
		ob_puts(o, ",\n");
	ob_puts(o, "{\"id\": ");
	uint32_t id = x->cc == MODEL_NONE ? g->main_id
		      : x->cc == EXPORT_HIDDEN ? g->main_id + 1
					       : x->cc;
	ob_u64(o, id, 0);
	ob_puts(o, ", \"entries\": ");
	ob_u64(o, x->entries, 0);
	ob_puts(o, ", \"alloc\": ");
	ob_u64(o, a->individual.bytes, 0);
	ob_puts(o, ", \"ticks\": ");
	ob_u64(o, export_scale(&g->ticks, x->individual), 0);
	ob_puts(o, ", \"children\": [");
	if (x->first_child != MODEL_NONE)
		ob_putc(o, '\n');
	g->first = 1;
}

int export_ghc_json(FILE *f, const struct export_input *in, const struct export_opts *opts)
{
	(void)opts;
	const struct model *m = in->m;
	struct ghc *g = xcalloc(1, sizeof *g);
	struct ob *o = ob_open(f);
	uint64_t tick_us = GHC_TICK_US;

	g->o = o;
	g->m = m;
	g->main_id = m->nfns;
	names_init(&g->names, m, &escape_json, 1);
	/* ticks = time × 10^6 / (ticks_per_sec × tick_us) */
	uint64_t den = m->prof->ticks_per_sec * tick_us;
	export_scale_init(&g->ticks, 1000000u, den);

	ghc_header(g, tick_us, export_scale_one(m->total_time, 1000000u, den));
	ghc_cost_centres(g);
	ob_puts(o, "\"profile\": ");
	g->first = 1;
	export_walk_tree(m, ghc_node, g);
	ob_puts(o, "\n}\n");
	int ret = ob_close(o);
	names_free(&g->names);
	free(g);
	return ret;
}
