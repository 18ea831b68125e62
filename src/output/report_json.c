/*
 * report_json.c - the report as JSON; the schema is docs/json.md.
 *
 * The same data as the text report, unabridged: every function, arc and
 * context whatever --top says, since a program reading this does its own
 * selecting.  Times are seconds (..._s), exact to the nanosecond; cost
 * centres also carry their profile id, because names need not be unique
 * (two static functions).  The model's spontaneous arcs (into thread
 * roots) are not arcs between two functions: JSON gives their calls as a
 * function's root_calls.  Each item of a top-level list is on a line of
 * its own.
 */
#include "output/report.h"

#include <stdlib.h>

#include "model/view.h"
#include "model/xalloc.h"
#include "output/jrep.h"

void jr_name_value(struct jrep *r, uint32_t cc)
{
	if (cc == MODEL_NONE)
		json_string(&r->j, "<root>");
	else if (cc == MODEL_GAP)
		json_string(&r->j, "\xe2\x80\xa6"); /* … */
	else
		names_json(&r->j, &r->names, cc);
}

void jr_name(struct jrep *r, const char *key, uint32_t cc)
{
	json_key(&r->j, key);
	jr_name_value(r, cc);
}

void jr_id_value(struct jrep *r, uint32_t cc)
{
	if (cc == MODEL_NONE || cc == MODEL_GAP)
		json_null(&r->j);
	else
		json_uint(&r->j, cc);
}

void jr_id(struct jrep *r, const char *key, uint32_t cc)
{
	json_key(&r->j, key);
	jr_id_value(r, cc);
}

void jr_named_object(struct jrep *r, uint32_t cc)
{
	if (cc == MODEL_NONE || cc == MODEL_GAP) {
		json_begin_object(&r->j);
		jr_name(r, "name", cc);
		jr_id(r, "id", cc);
	} else {
		names_json_head(&r->j, &r->heads, cc);
	}
}

void jr_alloc_member(struct json *j, const struct model *m)
{
	struct model_alloc total = model_alloc_total(m), outside = model_alloc_outside(m);
	if (!model_alloc_measured(m))
		return;
	json_newline(j);
	json_key(j, "alloc");
	json_begin_object(j);
	json_kuint(j, "bytes", total.bytes);
	json_kuint(j, "blocks", total.blocks);
	json_kuint(j, "outside_bytes", outside.bytes);
	json_kuint(j, "outside_blocks", outside.blocks);
	json_end_object(j);
}

/* Note [Saying the overflow] in src/model/overflow.c. */
void jr_overflow_member(struct json *j, const struct ccp_profile *p)
{
	struct model_overflow ov = model_overflow(p);

	if (ov.threads == 0)
		return;
	json_newline(j);
	json_key(j, "overflow");
	json_begin_object(j);
	json_kuint(j, "max_contexts", ov.max_contexts);
	json_key(j, "threads");
	json_begin_array(j);
	for (uint32_t t = ov.first_thread; t < p->nthreads; t++) {
		if (!model_thread_overflowed(p, t))
			continue;
		json_begin_object(j);
		json_kuint(j, "index", t);
		json_kuint(j, "tid", p->threads[t].tid);
		json_kstring(j, "name", p->threads[t].name ? p->threads[t].name : "");
		json_end_object(j);
	}
	json_end_array(j);
	json_kuint(j, "functions", ov.functions);
	json_kuint(j, "calls", ov.calls);
	json_kuint(j, "ticks", ov.time);
	json_kseconds(j, "time_s", ov.time, p->ticks_per_sec);
	json_end_object(j);
}

static void jr_header(struct jrep *r)
{
	struct json *j = &r->j;
	const struct model *m = r->m;
	const struct ccp_profile *p = m->prof;
	json_kstring(j, "ccprof_version", CCPROF_VERSION);
	json_newline(j);
	json_kstring(j, "program", p->program);
	json_newline(j);
	json_kstrings(j, "argv", p->argv, p->argc);
	json_newline(j);
	json_kuint(j, "pid", p->pid);
	json_kuint(j, "merged_profiles", p->stats.merged);
	json_kstring(j, "clock", report_clock_name(p->clock));
	json_kuint(j, "ticks_per_sec", p->ticks_per_sec);
	json_kuint(j, "interval_ns", p->interval_ns);
	json_kuint(j, "samples", p->stats.samples);
	json_newline(j);
	json_kuint(j, "total_ticks", m->total_time);
	jr_secs(r, "total_time_s", m->total_time);
	jr_secs(r, "root_time_s", m->root_time);
	jr_secs(r, "own_time_s", p->stats.own_time);
	struct model_short_threads st = model_short_threads(p);
	json_kuint(j, "short_threads", st.threads);
	jr_secs(r, "short_threads_root_time_s", st.root_time);
	json_kuint(j, "total_calls", m->total_calls);
	if (!m->nthread_models) /* else "threads" is the breakdown (views_json.c) */
		json_kuint(j, "threads", p->nthreads);
	json_kuint(j, "ncontexts", m->nctx);
	jr_overflow_member(j, p);
	jr_alloc_member(j, m);
}

/* "offset": a function's offset in its module, as its 0x<offset>@<module>
 * name gives it, so two functions of one name in one module (statics of
 * two files, no debug information) are told apart by more than their ids.
 * Regions and the overflow centre have no address: null. */
static void jr_offset(struct json *j, const struct ccp_cc *c)
{
	json_key(j, "offset");
	if (c->kind == CCP_CC_FUNCTION)
		json_uint(j, c->offset);
	else
		json_null(j);
}

void jr_functions(struct jrep *r)
{
	struct json *j = &r->j;
	const struct model *m = r->m;
	const struct ccp_profile *p = m->prof;
	json_key(j, "functions");
	json_begin_array(j);
	for (uint32_t i = 0; i < m->nlisted; i++) {
		uint32_t cc = m->by_self[i];
		const struct model_fn *fn = &m->fns[cc];
		const struct ccp_cc *c = &p->ccs[cc];
		const struct model_arc *root = model_find_arc(m, MODEL_NONE, cc);
		json_newline(j);
		json_begin_object(j);
		json_kuint(j, "id", cc);
		jr_name(r, "name", cc);
		if (fn->full) /* --short-names shortened name */
			json_kstring(j, "full", fn->full);
		json_kstring(j, "module", model_module_path(m, cc));
		json_kstring(j, "build_id", model_module_build_id(m, cc));
		jr_offset(j, c);
		json_kstring(j, "file", c->file ? c->file : "");
		json_kuint(j, "line", c->line);
		json_kuint(j, "calls", fn->calls);
		json_kuint(j, "root_calls", root ? root->calls : 0);
		jr_fn_costs(r, fn);
		jr_heap_fn(r, cc);
		json_end_object(j);
	}
	json_end_array(j);
}

void jr_fn_costs(struct jrep *r, const struct model_fn *fn)
{
	struct json *j = &r->j;
	jr_secs(r, "self_s", fn->self);
	jr_secs(r, "inherited_s", fn->inherited);
	if (r->alloc) {
		json_kuint(j, "self_alloc_bytes", fn->self_alloc.bytes);
		json_kuint(j, "self_alloc_blocks", fn->self_alloc.blocks);
		json_kuint(j, "inherited_alloc_bytes", fn->inherited_alloc.bytes);
		json_kuint(j, "inherited_alloc_blocks", fn->inherited_alloc.blocks);
	}
}

void jr_alloc_fields(struct jrep *r, struct model_alloc a)
{
	if (r->alloc) {
		json_kuint(&r->j, "alloc_bytes", a.bytes);
		json_kuint(&r->j, "alloc_blocks", a.blocks);
	}
}

static void jr_arcs(struct jrep *r)
{
	struct json *j = &r->j;
	const struct model *m = r->m;
	json_key(j, "arcs");
	json_begin_array(j);
	for (uint32_t k = 0; k < m->narcs; k++) {
		const struct model_arc *a = &m->arcs[k];
		if (a->caller == MODEL_NONE)
			continue; /* thread roots: root_calls of the function */
		json_newline(j);
		json_begin_object(j);
		jr_name(r, "caller", a->caller);
		jr_name(r, "callee", a->callee);
		json_kuint(j, "caller_id", a->caller);
		json_kuint(j, "callee_id", a->callee);
		json_kuint(j, "calls", a->calls);
		jr_secs(r, "self_in_s", a->self_in);
		jr_secs(r, "child_in_s", a->child_in);
		jr_secs(r, "self_out_s", a->self_out);
		jr_secs(r, "child_out_s", a->child_out);
		if (r->alloc) {
			const struct model_arc_alloc *x = &m->arc_alloc[k];
			json_kuint(j, "self_in_alloc_bytes", x->self_in.bytes);
			json_kuint(j, "child_in_alloc_bytes", x->child_in.bytes);
			json_kuint(j, "self_out_alloc_bytes", x->self_out.bytes);
			json_kuint(j, "child_out_alloc_bytes", x->child_out.bytes);
		}
		jr_heap_arc(r, k);
		json_end_object(j);
	}
	json_end_array(j);
}

void jr_context(struct jrep *r, const struct ccp_context *c)
{
	struct json *j = &r->j;
	json_begin_object(j);
	json_key(j, "history");
	json_begin_array(j);
	for (uint32_t e = 0; e < c->len; e++) /* {"name":…,"id":…,"marked":…} */
		names_json(j, &r->entry[CCP_ENTRY_MARKED(c->hist[e])], CCP_ENTRY_CC(c->hist[e]));
	json_end_array(j);
	json_kuint(j, "entries", c->entries);
	json_kuint(j, "recursive", c->recursive);
	jr_secs(r, "time_s", c->time);
	jr_alloc_fields(r, model_ctx_alloc(c));
	jr_heap_ctx(r, c);
	json_end_object(j);
}

static void jr_contexts(struct jrep *r)
{
	struct json *j = &r->j;
	const struct model *m = r->m;
	json_key(j, "contexts");
	json_begin_array(j);
	for (uint32_t i = 0; i < m->nctx; i++) {
		model_ctx_prefetch(m, m->ctx_by_time, i);
		json_newline(j);
		jr_context(r, &m->ctx[m->ctx_by_time[i]]);
	}
	json_end_array(j);
}

/* A tree with its pruning: depth first over the links, without
 * recursion (a history can be long); a node's hidden children become one
 * last child {"name": "(n hidden)", "hidden": n, ...}. */
struct jr_tree {
	struct jrep *r;
	const struct model_node *nodes;
	const struct model_node_alloc *alloc; /* the nodes' allocations, or NULL */
	const struct model_pruned *pr;
	const uint64_t *calls; /* callers trees: calls through each node */
	/* The same tree in the heap model (jr_heap_node), when r->heap: */
	const struct model_node_alloc *live;  /* its nodes' live heap */
	const struct model_pruned *live_pr;   /* its "(n hidden)" lines' */
};

void jr_node_fields(struct jrep *r, uint64_t entries, uint64_t individual, uint64_t inherited,
		    const struct model_node_alloc *a)
{
	json_kuint(&r->j, "entries", entries);
	jr_secs(r, "individual_s", individual);
	jr_secs(r, "inherited_s", inherited);
	if (r->alloc) {
		json_kuint(&r->j, "individual_alloc_bytes", a ? a->individual.bytes : 0);
		json_kuint(&r->j, "inherited_alloc_bytes", a ? a->inherited.bytes : 0);
	}
}

static void jr_hidden_node(struct jr_tree *t, uint32_t k)
{
	const struct model_hidden *h = &t->pr->rest[k];
	struct json *j = &t->r->j;
	char name[48];
	snprintf(name, sizeof name, "(%lu hidden)", (unsigned long)h->count);
	json_newline(j);
	json_begin_object(j);
	json_kstring(j, "name", name);
	json_key(j, "id");
	json_null(j);
	json_kuint(j, "hidden", h->count);
	if (t->calls)
		json_kuint(j, "calls", h->entries);
	struct model_node_alloc a = {h->alloc, h->alloc};
	jr_node_fields(t->r, h->entries, h->time, h->time, &a);
	jr_heap_hidden(t->r, t->live_pr, k);
	json_key(j, "children");
	json_begin_array(j);
	json_end_array(j);
	json_end_object(j);
}

static void jr_tree_visit(void *arg, uint32_t k, int leaving)
{
	struct jr_tree *t = arg;
	struct json *j = &t->r->j;
	const struct model_node *x = &t->nodes[k];
	if (leaving) {
		if (t->pr && t->pr->rest && t->pr->rest[k].count)
			jr_hidden_node(t, k);
		json_end_array(j);
		json_end_object(j);
		return;
	}
	json_newline(j);
	jr_named_object(t->r, x->cc);
	if (t->calls)
		json_kuint(j, "calls", t->calls[k]);
	struct model_node_alloc a = model_node_alloc_at(t->alloc, k);
	jr_node_fields(t->r, x->entries, x->individual, x->inherited, &a);
	jr_heap_node(t->r, t->live, k);
	json_key(j, "children");
	json_begin_array(j);
}

void jr_node_tree(struct jrep *r, const struct model_node *nodes,
		  const struct model_node_alloc *alloc, const struct model_pruned *pr,
		  const uint64_t *calls, const struct model_tree *live)
{
	struct jr_tree t = {r, nodes, alloc, pr, calls, live ? live->node_alloc : NULL,
			    live ? &live->pruned : NULL};
	model_walk(nodes, pr ? pr->hidden : NULL, jr_tree_visit, &t);
}

static void jr_tree(struct jrep *r)
{
	const struct model *m = r->m;
	const struct model *live = r->heap;
	struct jr_tree t = {r, m->nodes, m->node_alloc, &m->tree_pruned, NULL,
			    live ? live->node_alloc : NULL, live ? &live->tree_pruned : NULL};
	json_key(&r->j, "tree");
	model_walk(m->nodes, m->tree_pruned.hidden, jr_tree_visit, &t);
}

int report_json(FILE *f, const struct model *m, const struct report_opts *o)
{
	/* JSON is always complete: consumers select for themselves; o->heap
	 * adds the live heap */
	struct ob *out = ob_open(f);
	struct jrep *r = xmalloc(sizeof *r);
	json_init(&r->j, out);
	r->m = m;
	r->tps = m->prof->ticks_per_sec;
	r->alloc = model_alloc_measured(m);
	r->heap = o->heap;
	names_init(&r->names, m, &escape_json, 1);
	names_init_json(&r->heads, m, "", "");
	names_init_json(&r->entry[0], m, "{", ",\"marked\":false}");
	names_init_json(&r->entry[1], m, "{", ",\"marked\":true}");

	/* Sections whose pass did not run are left out (REPORT_JSON_PASSES
	 * asks for all of them). */
	json_begin_object(&r->j);
	json_newline(&r->j);
	jr_header(r);
	jr_view(r);
	if (m->by_self) {
		json_newline(&r->j);
		jr_functions(r);
	}
	if (m->arcs_done) {
		json_newline(&r->j);
		jr_arcs(r);
	}
	if (m->ctx_by_time) {
		json_newline(&r->j);
		jr_contexts(r);
	}
	if (m->nodes) {
		json_newline(&r->j);
		jr_tree(r);
	}
	jr_hot(r);
	jr_callers(r);
	jr_around(r);
	jr_cycles(r);
	jr_threads(r);
	jr_hook_cost(r);
	jr_heap(r);
	json_end_object(&r->j);
	ob_putc(out, '\n');
	int ret = ob_close(out);
	names_free(&r->names);
	names_free(&r->heads);
	names_free(&r->entry[0]);
	names_free(&r->entry[1]);
	free(r);
	return ret;
}
