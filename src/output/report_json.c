/*
 * report_json.c - the report as JSON; the schema is docs/json.md.
 *
 * The same data as the text report, unabridged: every function, arc and
 * context whatever --top says, since a program reading this does its own
 * selecting.  Times are seconds (…_s); cost centres also carry their
 * profile id, because names need not be unique (two static functions).
 * The model's spontaneous arcs (into thread roots) are not arcs between
 * two functions: JSON gives their calls as a function's root_calls.
 * Each item of a top-level list is on a line of its own.
 */
#include "output/report.h"

#include "output/json.h"

static void json_id(struct json *j, const char *key, uint32_t cc)
{
	json_key(j, key);
	if (cc == MODEL_NONE)
		json_null(j);
	else
		json_uint(j, cc);
}

static void json_name(struct json *j, const struct model *m, const char *key, uint32_t cc)
{
	json_kstring(j, key, m->fns[cc].name);
}

static void json_header(struct json *j, const struct model *m)
{
	const struct ccp_profile *p = m->prof;
	json_kstring(j, "ccprof_version", CCPROF_VERSION);
	json_newline(j);
	json_kstring(j, "program", p->program);
	json_newline(j);
	json_key(j, "argv");
	json_begin_array(j);
	for (uint32_t i = 0; i < p->argc; i++)
		json_string(j, p->argv[i]);
	json_end_array(j);
	json_newline(j);
	json_kuint(j, "pid", p->pid);
	json_kstring(j, "clock", report_clock_name(p->clock));
	json_kuint(j, "ticks_per_sec", p->ticks_per_sec);
	json_kuint(j, "interval_ns", p->interval_ns);
	json_kuint(j, "samples", p->stats.samples);
	json_newline(j);
	json_kuint(j, "total_ticks", m->total_time);
	json_kdouble(j, "total_time_s", model_seconds(m, m->total_time));
	json_kdouble(j, "root_time_s", model_seconds(m, m->root_time));
	json_kuint(j, "total_calls", m->total_calls);
	json_kuint(j, "threads", p->nthreads);
	json_kuint(j, "ncontexts", m->nctx);
}

static void json_functions(struct json *j, const struct model *m)
{
	const struct ccp_profile *p = m->prof;
	json_key(j, "functions");
	json_begin_array(j);
	for (uint32_t i = 0; i < m->nlisted; i++) {
		uint32_t cc = m->by_self[i];
		const struct model_fn *fn = &m->fns[cc];
		const struct ccp_cc *c = &p->ccs[cc];
		const struct model_arc *root = model_find_arc(m, MODEL_NONE, cc);
		const char *module = c->module >= 0 && (uint32_t)c->module < p->nmodules
					     ? p->modules[c->module].path
					     : "";
		json_newline(j);
		json_begin_object(j);
		json_kuint(j, "id", cc);
		json_kstring(j, "name", fn->name);
		json_kstring(j, "module", module);
		json_kstring(j, "file", c->file ? c->file : "");
		json_kuint(j, "line", c->line);
		json_kuint(j, "calls", fn->calls);
		json_kuint(j, "root_calls", root ? root->calls : 0);
		json_kdouble(j, "self_s", model_seconds(m, fn->self));
		json_kdouble(j, "inherited_s", model_seconds(m, fn->inherited));
		json_end_object(j);
	}
	json_end_array(j);
}

static void json_arcs(struct json *j, const struct model *m)
{
	json_key(j, "arcs");
	json_begin_array(j);
	for (uint32_t k = 0; k < m->narcs; k++) {
		const struct model_arc *a = &m->arcs[k];
		if (a->caller == MODEL_NONE)
			continue; /* thread roots: root_calls of the function */
		json_newline(j);
		json_begin_object(j);
		json_name(j, m, "caller", a->caller);
		json_name(j, m, "callee", a->callee);
		json_kuint(j, "caller_id", a->caller);
		json_kuint(j, "callee_id", a->callee);
		json_kuint(j, "calls", a->calls);
		json_kdouble(j, "self_in_s", model_seconds(m, a->self_in));
		json_kdouble(j, "child_in_s", model_seconds(m, a->child_in));
		json_kdouble(j, "self_out_s", model_seconds(m, a->self_out));
		json_kdouble(j, "child_out_s", model_seconds(m, a->child_out));
		json_end_object(j);
	}
	json_end_array(j);
}

static void json_contexts(struct json *j, const struct model *m)
{
	json_key(j, "contexts");
	json_begin_array(j);
	for (uint32_t i = 0; i < m->nctx; i++) {
		const struct model_ctx *c = &m->ctx[m->ctx_by_time[i]];
		json_newline(j);
		json_begin_object(j);
		json_key(j, "history");
		json_begin_array(j);
		for (uint32_t e = 0; e < c->len; e++) {
			uint32_t cc = CCP_ENTRY_CC(c->hist[e]);
			json_begin_object(j);
			json_kstring(j, "name", m->fns[cc].name);
			json_kuint(j, "id", cc);
			json_key(j, "marked");
			json_bool(j, CCP_ENTRY_MARKED(c->hist[e]));
			json_end_object(j);
		}
		json_end_array(j);
		json_kuint(j, "entries", c->entries);
		json_kuint(j, "recursive", c->recursive);
		json_kdouble(j, "time_s", model_seconds(m, c->time));
		json_end_object(j);
	}
	json_end_array(j);
}

static void json_node_open(struct json *j, const struct model *m, const struct model_node *x)
{
	json_newline(j);
	json_begin_object(j);
	json_key(j, "name");
	json_string(j, model_name(m, x->cc, "<root>"));
	json_id(j, "id", x->cc);
	json_kuint(j, "entries", x->entries);
	json_kdouble(j, "individual_s", model_seconds(m, x->individual));
	json_kdouble(j, "inherited_s", model_seconds(m, x->inherited));
	json_key(j, "children");
	json_begin_array(j);
}

static void json_node_close(struct json *j)
{
	json_end_array(j);
	json_end_object(j);
}

/* Depth-first over the links, without recursion: a history can be long. */
static void json_tree(struct json *j, const struct model *m)
{
	json_key(j, "tree");
	uint32_t k = 0;
	json_node_open(j, m, &m->nodes[0]);
	for (;;) {
		const struct model_node *x = &m->nodes[k];
		if (x->first_child != MODEL_NONE) {
			k = x->first_child;
			json_node_open(j, m, &m->nodes[k]);
			continue;
		}
		json_node_close(j);
		while (k != 0 && m->nodes[k].next_sibling == MODEL_NONE) {
			k = m->nodes[k].parent;
			json_node_close(j);
		}
		if (k == 0)
			break;
		k = m->nodes[k].next_sibling;
		json_node_open(j, m, &m->nodes[k]);
	}
}

int report_json(FILE *f, const struct model *m, const struct report_opts *o)
{
	(void)o; /* JSON is always complete: consumers select for themselves */
	struct json j;
	json_init(&j, f);
	json_begin_object(&j);
	json_newline(&j);
	json_header(&j, m);
	json_newline(&j);
	json_functions(&j, m);
	json_newline(&j);
	json_arcs(&j, m);
	json_newline(&j);
	json_contexts(&j, m);
	json_newline(&j);
	json_tree(&j, m);
	json_end_object(&j);
	fputc('\n', f);
	return ferror(f) ? -1 : 0;
}
