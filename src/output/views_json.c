/*
 * views_json.c - the JSON members of the views after the run (docs/json.md):
 * "view", "hot", "callers", "around", "cycles", "threads", "hook_cost".  Each is
 * written only when its pass ran, so a plain report is unchanged; with
 * the live heap (jrep.h, r->heap) each has its live members beside its
 * allocations' (heap_json.c).
 */
#include <string.h>

#include "model/view.h"
#include "output/jrep.h"

/* Names of the seen CCs of base with set[cc] == want. */
static void jr_name_list(struct jrep *r, const char *key, const struct model *base,
			 const uint8_t *set, int want)
{
	json_key(&r->j, key);
	json_begin_array(&r->j);
	for (uint32_t cc = 0; cc < base->nfns; cc++) {
		if (!base->fns[cc].seen || !set[cc] != !want)
			continue;
		jr_name_value(r, cc);
	}
	json_end_array(&r->j);
}

void jr_view(struct jrep *r)
{
	const struct model *m = r->m, *base = m->base;
	const struct model_view *v = m->view;
	if (!v || !base || (!v->focus && !v->selected && !m->pruning))
		return;
	json_newline(&r->j);
	json_key(&r->j, "view");
	json_begin_object(&r->j);
	if (v->focus)
		jr_name_list(r, "focus", base, v->focus, 1);
	if (v->selected)
		jr_name_list(r, "deselected", base, v->selected, 0);
	jr_secs(r, "profile_total_time_s", base->total_time);
	if (r->alloc) {
		json_kuint(&r->j, "profile_alloc_bytes", model_alloc_total(base).bytes);
	}
	if (m->pruning) {
		json_key(&r->j, "prune");
		json_begin_object(&r->j);
		json_kdouble(&r->j, "min_percent", m->prune.min_percent);
		json_kuint(&r->j, "min_calls", m->prune.min_calls);
		json_kdouble(&r->j, "min_time_s", m->prune.min_time);
		json_end_object(&r->j);
	}
	json_end_object(&r->j);
}

void jr_hot(struct jrep *r)
{
	const struct model *m = r->m;
	struct json *j = &r->j;
	if (!m->hot_done)
		return;
	json_newline(j);
	json_key(j, "hot");
	json_begin_object(j);
	json_key(j, "context");
	if (m->ctx_by_time && m->nctx)
		jr_context(r, &m->ctx[m->ctx_by_time[0]]);
	else
		json_null(j);
	json_key(j, "arm");
	json_begin_array(j);
	for (uint32_t i = 0; i < m->narm; i++) {
		const struct model_node *x = &m->nodes[m->arm[i]];
		struct model_node_alloc a = model_node_alloc_at(m->node_alloc, m->arm[i]);
		jr_named_object(r, x->cc); /* never the root: the arm starts below it */
		jr_node_fields(r, x->entries, x->individual, x->inherited, &a);
		jr_heap_node(r, r->heap ? r->heap->node_alloc : NULL, m->arm[i]);
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
}

void jr_callers(struct jrep *r)
{
	const struct model *m = r->m;
	if (!m->ncallers)
		return;
	json_newline(&r->j);
	json_key(&r->j, "callers");
	json_begin_array(&r->j);
	for (uint32_t i = 0; i < m->ncallers; i++) {
		const struct model_tree *t = &m->callers[i];
		jr_node_tree(r, t->nodes, t->node_alloc, &t->pruned, t->calls, jr_heap_callers(r, i));
	}
	json_end_array(&r->j);
}

/* One side of a function's block: each arc with the times (and bytes)
 * charged from that side, _in for its callers, _out for its callees. */
static void jr_arc_side(struct jrep *r, const char *key, const uint32_t *list, uint32_t lo,
			uint32_t hi, uint32_t self_cc, int incoming)
{
	const struct model *m = r->m;
	struct json *j = &r->j;
	json_key(j, key);
	json_begin_array(j);
	for (uint32_t i = lo; i < hi; i++) {
		const struct model_arc *a = &m->arcs[list[i]];
		uint32_t other = incoming ? a->caller : a->callee;
		if (other == self_cc)
			continue; /* direct recursion: "recursive_calls" */
		jr_named_object(r, other);
		json_kuint(j, "calls", a->calls);
		jr_secs(r, "self_s", incoming ? a->self_in : a->self_out);
		jr_secs(r, "child_s", incoming ? a->child_in : a->child_out);
		if (r->alloc) {
			const struct model_arc_alloc *x = &m->arc_alloc[list[i]];
			json_kuint(j, "self_alloc_bytes", (incoming ? x->self_in : x->self_out).bytes);
			json_kuint(j, "child_alloc_bytes",
				   (incoming ? x->child_in : x->child_out).bytes);
		}
		jr_heap_arc_side(r, list[i], incoming);
		json_end_object(j);
	}
	json_end_array(j);
}

void jr_around(struct jrep *r)
{
	const struct model *m = r->m;
	struct json *j = &r->j;
	if (!m->naround || !m->in_start)
		return;
	json_newline(j);
	json_key(j, "around");
	json_begin_array(j);
	for (uint32_t i = 0; i < m->naround; i++) {
		uint32_t cc = m->around[i];
		const struct model_fn *fn = &m->fns[cc];
		const struct model_arc *rec = model_find_arc(m, cc, cc);
		json_newline(j);
		json_begin_object(j);
		jr_name(r, "name", cc);
		json_kuint(j, "id", cc);
		json_kuint(j, "calls", fn->calls);
		json_kuint(j, "recursive_calls", rec ? rec->calls : 0);
		jr_fn_costs(r, fn);
		jr_heap_fn(r, cc);
		jr_arc_side(r, "callers", m->in, m->in_start[cc], m->in_start[cc + 1], cc, 1);
		jr_arc_side(r, "callees", m->out, m->out_start[cc], m->out_start[cc + 1], cc, 0);
		json_end_object(j);
	}
	json_end_array(j);
}

void jr_cycles(struct jrep *r)
{
	const struct model *m = r->m;
	struct json *j = &r->j;
	if (!m->cycles_done)
		return;
	json_newline(j);
	json_key(j, "cycles");
	json_begin_array(j);
	for (uint32_t i = 0; i < m->ncycles; i++) {
		const struct model_cycle *c = &m->cycles[i];
		json_newline(j);
		json_begin_object(j);
		json_key(j, "functions");
		json_begin_array(j);
		for (uint32_t k = 0; k < c->len; k++)
			jr_name_value(r, c->items[k]);
		json_end_array(j);
		json_key(j, "ids");
		json_begin_array(j);
		for (uint32_t k = 0; k < c->len; k++)
			jr_id_value(r, c->items[k]);
		json_end_array(j);
		jr_secs(r, "time_s", c->time);
		json_kuint(j, "entries", c->entries);
		jr_alloc_fields(r, c->alloc);
		json_end_object(j);
	}
	json_end_array(j);
}

void jr_threads(struct jrep *r)
{
	const struct model *m = r->m;
	struct json *j = &r->j;
	if (!m->nthread_models)
		return;
	json_newline(j);
	json_key(j, "threads"); /* replaces the count (jr_header) */
	json_begin_array(j);
	for (uint32_t i = 0; i < m->nthread_models; i++) {
		const struct ccp_thread *th = &m->prof->threads[i];
		/* Note [One thread model at a time]: the thread's, and its live
		 * heap's with a heap, built here and freed before the next */
		struct model_thread one, live;
		model_thread_build(&one, m, i);
		const struct model *tm = &one.m;
		json_newline(j);
		json_begin_object(j);
		json_kuint(j, "tid", th->tid);
		json_kstring(j, "name", th->name ? th->name : "");
		jr_secs(r, "total_time_s", tm->total_time);
		json_kuint(j, "total_calls", tm->total_calls);
		if (r->alloc)
			json_kuint(j, "total_alloc_bytes", tm->total_alloc.bytes);
		struct jrep sub = *r; /* same writer and names, the thread's models */
		sub.m = tm;
		sub.heap = jr_heap_thread(&sub, i, &live);
		jr_functions(&sub);
		r->j = sub.j; /* the writer's separator state moves on */
		json_end_object(j);
		if (sub.heap)
			model_thread_free(&live);
		model_thread_free(&one);
	}
	json_end_array(j);
}

void jr_hook_cost(struct jrep *r)
{
	const struct model *m = r->m;
	const struct model_hook_cost *h = m->hook_cost;
	struct json *j = &r->j;
	const struct ccp_profile *p = m->prof;
	double tick_s = p->ticks_per_sec ? 1.0 / (double)p->ticks_per_sec : 0;
	if (!h)
		return;
	json_newline(j);
	json_key(j, "hook_cost");
	json_begin_object(j);
	json_kdouble(j, "ns_per_call", h->per_call * tick_s * 1e9);
	json_kuint(j, "calls", h->calls);
	json_kdouble(j, "hooks_s", h->per_call * (double)h->calls * tick_s);
	json_key(j, "functions");
	json_begin_array(j);
	for (uint32_t i = 0; i < h->nrows; i++) {
		uint32_t cc = h->rows[i];
		const struct model_fn *f = &m->fns[cc];
		json_newline(j);
		jr_named_object(r, cc);
		json_kuint(j, "calls", f->calls);
		json_kdouble(j, "hooks_s", h->per_call * (double)f->calls * tick_s);
		json_kdouble(j, "self_per_call_ns", (double)f->self / (double)f->calls * tick_s * 1e9);
		json_kdouble(j, "self_bound_per_call_ns",
			     model_hook_self_bound(m, cc) / (double)f->calls * tick_s * 1e9);
		json_key(j, "hooks_outweigh");
		json_bool(j, h->candidate[cc]);
		json_end_object(j);
	}
	json_end_array(j);
	json_newline(j);
	json_kstrings(j, "exclude_file_list", h->files, h->nfiles);
	json_kstrings(j, "exclude_function_list", h->names, h->nnames);
	json_key(j, "unnamed");
	json_begin_array(j);
	for (uint32_t i = 0; i < h->nclashing; i++)
		jr_name_value(r, h->clashing[i]);
	json_end_array(j);
	json_end_object(j);
}
