/*
 * export_html.c - the interactive HTML report: one self-contained page
 * that computes every ccprof view in the browser (docs/html.md).
 *
 * The page is a shell around three files compiled into the tool
 * (html_assets.h): model.js, which computes the views from the contexts
 * exactly as src/model/ does (tests/html_model.py holds it to
 * `report --json`), ui.js, which draws them, and style.css.  This file
 * writes the shell and the data: every context of the whole profile with
 * its history, E, R, T and allocations, every cost centre with its
 * module, source line and whether it is exported, and the view options
 * given on the command line, which the page opens with.  So a
 * --deselect in the browser is the same computation as on the command
 * line, on the same contexts, without going back to the tool.
 *
 * Nothing in a profile can become markup: the data is JSON escaped for a
 * <script> element (escape_json writes < > & U+2028 U+2029 as \u
 * escapes), the title goes through escape_xml, and the scripts put
 * profile strings only into text nodes (tests/html_page.py and
 * tests/html_ui.py check both).  A Content-Security-Policy forbids any
 * network access and any script but the page's own.
 */
#include "output/export.h"

#include <stdlib.h>
#include <string.h>

#include "model/heap.h"
#include "model/htab.h"
#include "model/symtabs.h"
#include "model/view.h"
#include "model/xalloc.h"
#include "output/escape.h"
#include "output/html_assets.h"
#include "output/jrep.h"
#include "output/json.h"
#include "output/ob.h"
#include "output/report.h"

/* Bumped when DATA changes incompatibly (the scripts check it). */
#define HTML_DATA_VERSION 1

static const struct html_asset *asset(const char *name)
{
	for (const struct html_asset *a = html_assets; a->name; a++)
		if (strcmp(a->name, name) == 0)
			return a;
	return NULL;
}

/* "exported": whether the module's symbol table calls the function
 * global, what --only-exported keeps (select.c keep_exported); null when
 * that table cannot be read, which the command warns about (the page
 * too) before it counts the function as not exported. */
static void put_exported(struct json *j, struct symtabs *tabs, const struct ccp_profile *p,
			 const struct ccp_cc *c)
{
	json_key(j, "exported");
	if (c->kind != CCP_CC_FUNCTION || c->module < 0 ||
	    (uint32_t)c->module >= p->nmodules) {
		json_bool(j, 0);
		return;
	}
	const struct elfsym_table *tab = symtabs_get(tabs, (uint32_t)c->module);
	const struct elfsym *s = tab ? elfsym_lookup(tab, c->offset) : NULL;
	if (tab)
		json_bool(j, s && s->global);
	else
		json_null(j);
}

struct named {
	const char *name;
	uint32_t cc;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

/*
 * Each cost centre's place among the names in strcmp's order (equal
 * names, equal places).  The views break ties by name as the C model
 * does, by bytes; the page has the names as JavaScript strings, where a
 * byte that is not UTF-8 is already U+FFFD and the order of the bytes is
 * lost, so it sorts by this instead.
 */
static uint32_t *name_ranks(const struct model *m)
{
	struct named *order = xnmalloc(m->nfns ? m->nfns : 1, sizeof *order);
	uint32_t *rank = xnmalloc(m->nfns ? m->nfns : 1, sizeof *rank);
	for (uint32_t cc = 0; cc < m->nfns; cc++)
		order[cc] = (struct named){m->fns[cc].name, cc};
	qsort(order, m->nfns, sizeof *order, by_name);
	for (uint32_t i = 0; i < m->nfns; i++)
		rank[order[i].cc] = i > 0 && by_name(&order[i - 1], &order[i]) == 0
					    ? rank[order[i - 1].cc]
					    : i;
	free(order);
	return rank;
}

static void data_functions(struct json *j, const struct model *m)
{
	const struct ccp_profile *p = m->prof;
	uint32_t *rank = name_ranks(m);
	struct symtabs tabs;

	symtabs_init(&tabs, p);
	json_key(j, "functions");
	json_begin_array(j);
	for (uint32_t cc = 0; cc < m->nfns; cc++) {
		const struct ccp_cc *c = &p->ccs[cc];
		json_newline(j);
		json_begin_object(j);
		json_kstring(j, "name", m->fns[cc].name);
		if (m->fns[cc].full) /* --short-names: patterns match it too */
			json_kstring(j, "full", m->fns[cc].full);
		json_kstring(j, "module", model_module_path(m, cc));
		json_kstring(j, "build_id", model_module_build_id(m, cc));
		json_key(j, "offset");
		if (c->kind == CCP_CC_FUNCTION)
			json_uint(j, c->offset);
		else
			json_null(j);
		json_kstring(j, "file", ccp_cc_has_source(c) ? c->file : "");
		json_kuint(j, "line", ccp_cc_has_source(c) ? c->line : 0);
		json_kuint(j, "name_rank", rank[cc]);
		/* --only-exported is a checkbox in the page: every module's
		 * symbols are read, once each (symtabs). */
		put_exported(j, &tabs, p, c);
		json_key(j, "region");
		json_bool(j, c->kind == CCP_CC_MANUAL);
		json_end_object(j);
	}
	json_end_array(j);
	symtabs_free(&tabs);
	free(rank);
}

/* A context's E, R, T, bytes and blocks, each an array item. */
static void data_counts(struct json *j, const struct ccp_context *c)
{
	json_uint(j, c->entries);
	json_uint(j, c->recursive);
	json_uint(j, c->time);
	json_uint(j, c->alloc_bytes);
	json_uint(j, c->alloc_blocks);
}

/* [history, E, R, T, bytes, blocks]; an unmarked entry is -1 - id. */
static void data_context(struct json *j, const struct ccp_context *c)
{
	json_begin_array(j);
	json_begin_array(j);
	for (uint32_t i = 0; i < c->len; i++) {
		uint32_t cc = CCP_ENTRY_CC(c->hist[i]);
		json_sep(j);
		if (!CCP_ENTRY_MARKED(c->hist[i]))
			ob_putc(j->o, '-');
		ob_u64(j->o, CCP_ENTRY_MARKED(c->hist[i]) ? cc : (uint64_t)cc + 1, 0);
		j->comma = 1;
	}
	json_end_array(j);
	data_counts(j, c);
	json_end_array(j);
}

/* [k, E, R, T, bytes, blocks]: a thread's context, k the index in
 * "contexts" of the merged context with its history. */
static void data_thread_context(struct json *j, uint32_t k, const struct ccp_context *c)
{
	json_begin_array(j);
	json_uint(j, k);
	data_counts(j, c);
	json_end_array(j);
}

/*
 * Each thread's contexts as indexes of the merged ones (m->ctx) with the
 * same history: idx[t][i] for context i of thread t.  When the model
 * borrowed the only thread's contexts (model.c model_merge) they are the
 * same, and *borrowed says so.
 */
static uint32_t **merged_indexes(const struct model *m, int *borrowed)
{
	const struct ccp_profile *p = m->prof;
	uint32_t **idx = xnmalloc(p->nthreads ? p->nthreads : 1, sizeof *idx);
	struct htab tab;

	*borrowed = p->nthreads == 1 && m->ctx == p->threads[0].contexts;
	htab_init(&tab, *borrowed ? 1 : m->nctx);
	for (uint32_t k = 0; !*borrowed && k < m->nctx; k++) {
		uint64_t h;
		size_t i;
		if (model_ctx_find(m, &tab, m->ctx[k].hist, m->ctx[k].len, &h, &i) == MODEL_NONE)
			htab_put(&tab, i, h, k);
	}
	for (uint32_t t = 0; t < p->nthreads; t++) {
		const struct ccp_thread *th = &p->threads[t];
		idx[t] = xnmalloc(th->ncontexts ? th->ncontexts : 1, sizeof **idx);
		for (uint32_t i = 0; i < th->ncontexts; i++) {
			uint64_t h;
			size_t slot;
			idx[t][i] = *borrowed ? i : model_ctx_find(m, &tab, th->contexts[i].hist,
								   th->contexts[i].len, &h, &slot);
		}
	}
	htab_free(&tab);
	return idx;
}

static void free_indexes(uint32_t **idx, uint32_t nthreads)
{
	for (uint32_t t = 0; t < nthreads; t++)
		free(idx[t]);
	free(idx);
}

/*
 * "per_thread": each thread's tid, name and own contexts, for the
 * per-thread breakdown (report --threads: the view over one thread's
 * contexts, model/threads.c).  A thread's context is written as the index
 * of the merged context with its history and its own counters; when the
 * model borrowed the only thread's contexts, they are "contexts"
 * themselves, written null.
 */
static void data_threads(struct json *j, const struct model *m, uint32_t **idx, int borrowed)
{
	const struct ccp_profile *p = m->prof;
	json_key(j, "per_thread");
	json_begin_array(j);
	for (uint32_t t = 0; t < p->nthreads; t++) {
		const struct ccp_thread *th = &p->threads[t];
		json_newline(j);
		json_begin_object(j);
		json_kuint(j, "tid", th->tid);
		json_kstring(j, "name", th->name ? th->name : "");
		json_key(j, "contexts");
		if (borrowed) {
			json_null(j);
		} else {
			json_begin_array(j);
			for (uint32_t i = 0; i < th->ncontexts; i++) {
				json_newline(j);
				data_thread_context(j, idx[t][i], &th->contexts[i]);
			}
			json_end_array(j);
		}
		json_end_object(j);
	}
	json_end_array(j);
}

/* [k, bytes, blocks] of each merged context k holding live bytes or
 * blocks at the write, every thread's added up (as heap.c's copy merges). */
static void data_live(struct json *j, const struct model *m, uint32_t **idx)
{
	const struct ccp_profile *p = m->prof;
	uint64_t *live = xcalloc(m->nctx ? 2 * (size_t)m->nctx : 1, sizeof *live);
	for (uint32_t t = 0; t < p->nthreads; t++)
		for (uint32_t i = 0; i < p->threads[t].ncontexts; i++) {
			live[2 * (size_t)idx[t][i]] += p->threads[t].contexts[i].live_bytes;
			live[2 * (size_t)idx[t][i] + 1] += p->threads[t].contexts[i].live_blocks;
		}
	json_key(j, "live");
	json_begin_array(j);
	for (uint32_t k = 0; k < m->nctx; k++) {
		if (!live[2 * (size_t)k] && !live[2 * (size_t)k + 1])
			continue;
		json_begin_array(j);
		json_uint(j, k);
		json_uint(j, live[2 * (size_t)k]);
		json_uint(j, live[2 * (size_t)k + 1]);
		json_end_array(j);
	}
	json_end_array(j);
	free(live);
}

/*
 * "thread_live": for each thread, [i, bytes, blocks] of each of its own
 * contexts i (per_thread's) holding live bytes or blocks at the write,
 * for each thread's live heap (report --heap --threads); null when the
 * only thread's contexts are "contexts" (its live heap is "live").
 */
static void data_thread_live(struct json *j, const struct ccp_profile *p, int borrowed)
{
	json_key(j, "thread_live");
	if (borrowed) {
		json_null(j);
		return;
	}
	json_begin_array(j);
	for (uint32_t t = 0; t < p->nthreads; t++) {
		const struct ccp_thread *th = &p->threads[t];
		json_newline(j);
		json_begin_array(j);
		for (uint32_t i = 0; i < th->ncontexts; i++) {
			const struct ccp_context *c = &th->contexts[i];
			if (!c->live_bytes && !c->live_blocks)
				continue;
			json_begin_array(j);
			json_uint(j, i);
			json_uint(j, c->live_bytes);
			json_uint(j, c->live_blocks);
			json_end_array(j);
		}
		json_end_array(j);
	}
	json_end_array(j);
}

/*
 * "heap": the live heap of a heap profile (record --heap; null without):
 * the peak, the live heap at the write by merged context and outside any,
 * by each thread's own contexts, and each sample's records as [k, bytes]
 * of merged contexts, for the Heap tab (report --heap --threads,
 * model/heap.h).
 */
static void data_heap(struct json *j, const struct model *m, uint32_t **idx, int borrowed)
{
	const struct ccp_heap *h = &m->prof->heap;
	json_key(j, "heap");
	if (!heap_measured(m->prof)) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	json_kuint(j, "peak_bytes", h->peak_bytes);
	json_kuint(j, "untracked_allocs", m->prof->stats.untracked_allocs);
	json_kuint(j, "interval_ns", h->interval_ns);
	json_kuint(j, "outside_live_bytes", h->outside_live_bytes);
	json_kuint(j, "outside_live_blocks", h->outside_live_blocks);
	json_newline(j);
	data_live(j, m, idx);
	json_newline(j);
	data_thread_live(j, m->prof, borrowed);
	json_newline(j);
	json_key(j, "samples");
	json_begin_array(j);
	for (uint32_t s = 0; s < h->nsamples; s++) {
		const struct ccp_heap_sample *x = &h->samples[s];
		json_newline(j);
		json_begin_object(j);
		json_kuint(j, "time_ns", x->time_ns);
		json_kuint(j, "outside_bytes", x->outside_bytes);
		json_key(j, "records");
		json_begin_array(j);
		for (uint32_t r = 0; r < x->nrecords; r++) {
			json_begin_array(j);
			json_uint(j, idx[x->records[r].thread][x->records[r].context]);
			json_uint(j, x->records[r].bytes);
			json_end_array(j);
		}
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
}

/*
 * "hook_cost": what report --hook-cost reads beyond the views (model/
 * hookcost.c): the runtime's estimate per hooked call, what clock=cycles
 * subtracted, and the symbol of each function whose "name" is not its
 * symbol (demangled, or none: null), which the suggested exclude lists
 * match against.
 */
static void data_hook_cost(struct json *j, const struct model *m)
{
	const struct ccp_profile *p = m->prof;
	json_key(j, "hook_cost");
	json_begin_object(j);
	json_kuint(j, "overhead_milliticks", p->overhead_milliticks);
	json_kuint(j, "subtracted", p->stats.subtracted);
	json_key(j, "symbols");
	json_begin_array(j);
	for (uint32_t cc = 0; cc < m->nfns; cc++) {
		const char *s = p->ccs[cc].name;
		if (s && strcmp(s, m->fns[cc].name) == 0)
			continue;
		json_begin_array(j);
		json_uint(j, cc);
		if (s)
			json_string(j, s);
		else
			json_null(j);
		json_end_array(j);
	}
	json_end_array(j);
	json_end_object(j);
}

static void data_view(struct json *j, const struct model_view_opts *vo)
{
	static const struct model_view_opts none;
	if (!vo)
		vo = &none;
	json_key(j, "view");
	json_begin_object(j);
	json_kstrings(j, "select", vo->select.v, vo->select.n);
	json_kstrings(j, "deselect", vo->deselect.v, vo->deselect.n);
	json_kstrings(j, "module", vo->module.v, vo->module.n);
	json_key(j, "only_exported");
	json_bool(j, vo->only_exported);
	json_kstrings(j, "focus", vo->focus.v, vo->focus.n);
	json_key(j, "short_names");
	json_bool(j, vo->short_names);
	json_end_object(j);
}

static void write_data(struct ob *o, const struct model *m, const struct model_view_opts *vo,
		       const char *source)
{
	const struct ccp_profile *p = m->prof;
	struct json j;

	json_init(&j, o);
	json_begin_object(&j);
	json_kstring(&j, "format", "ccprof-html");
	json_kuint(&j, "version", HTML_DATA_VERSION);
	json_kstring(&j, "ccprof_version", CCPROF_VERSION);
	json_newline(&j);
	/* For the command line the page shows ("ccprof report ... FILE"). */
	json_kstring(&j, "profile", source ? source : "");
	json_newline(&j);
	json_kstring(&j, "program", p->program);
	json_newline(&j);
	json_kstrings(&j, "argv", p->argv, p->argc);
	json_newline(&j);
	json_kuint(&j, "pid", p->pid);
	json_kuint(&j, "merged_profiles", p->stats.merged);
	json_kstring(&j, "clock", report_clock_name(p->clock));
	json_kuint(&j, "ticks_per_sec", p->ticks_per_sec);
	json_kuint(&j, "interval_ns", p->interval_ns);
	json_kuint(&j, "samples", p->stats.samples);
	json_kuint(&j, "own_time_ticks", p->stats.own_time);
	json_kuint(&j, "threads", p->nthreads);
	jr_overflow_member(&j, p); /* the header's overflow line (ui.js) */
	json_key(&j, "alloc");
	json_bool(&j, model_alloc_measured(m));
	/* Allocated before a thread's first call, in no context: report's
	 * header counts them in the total (model_alloc_outside). */
	json_kuint(&j, "outside_alloc_bytes", p->alloc.outside_bytes);
	json_kuint(&j, "outside_alloc_blocks", p->alloc.outside_blocks);
	json_newline(&j);
	data_functions(&j, m);
	json_newline(&j);
	json_key(&j, "contexts");
	json_begin_array(&j);
	for (uint32_t k = 0; k < m->nctx; k++) {
		json_newline(&j);
		data_context(&j, &m->ctx[k]);
	}
	json_end_array(&j);
	json_newline(&j);
	int borrowed;
	uint32_t **idx = merged_indexes(m, &borrowed);
	data_threads(&j, m, idx, borrowed);
	json_newline(&j);
	data_heap(&j, m, idx, borrowed);
	free_indexes(idx, p->nthreads);
	json_newline(&j);
	data_hook_cost(&j, m);
	json_newline(&j);
	data_view(&j, vo);
	json_end_object(&j);
}

/*
 * The Content-Security-Policy: nothing may be loaded, and the only script
 * that runs and the only style applied are the page's own, named by
 * their hashes (tools/embed.c), so that even markup that got into the
 * page could run nothing.  (The data element is JSON, which no browser
 * runs.)
 */
static void put_policy(struct ob *o)
{
	ob_puts(o, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		   "script-src '");
	ob_puts(o, asset("model.js")->csp_hash);
	ob_puts(o, "' '");
	ob_puts(o, asset("ui.js")->csp_hash);
	ob_puts(o, "'; style-src '");
	ob_puts(o, asset("style.css")->csp_hash);
	ob_puts(o, "'; base-uri 'none'; form-action 'none'\">\n");
}

/* The Makefile embeds the three files by name, so each is there. */
static void put_asset(struct ob *o, const char *open, const char *name, const char *close)
{
	const struct html_asset *a = asset(name);
	ob_puts(o, open);
	ob_write(o, a->data, a->len);
	ob_puts(o, close);
}

int export_html(FILE *f, const struct export_input *in, const struct export_opts *opts)
{
	(void)opts;
	const struct model *m = in->base ? in->base : in->m;
	struct ob *o = ob_open(f);

	ob_puts(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
	put_policy(o);
	ob_puts(o, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		   "<meta name=\"generator\" content=\"ccprof " CCPROF_VERSION "\">\n<title>ccprof: ");
	escape_puts(o, &escape_xml, export_program(m));
	ob_puts(o, "</title>\n");
	put_asset(o, "<style>\n", "style.css", "</style>\n");
	ob_puts(o, "</head>\n<body>\n<noscript>This report needs JavaScript: its views are "
		   "computed in the page.</noscript>\n<div id=\"app\"></div>\n"
		   "<script type=\"application/json\" id=\"ccprof-data\">");
	write_data(o, m, in->view_opts, in->source);
	ob_puts(o, "</script>\n");
	put_asset(o, "<script>\n", "model.js", "</script>\n");
	put_asset(o, "<script>\n", "ui.js", "</script>\n");
	ob_puts(o, "</body>\n</html>\n");
	return ob_close(o);
}
