/*
 * export.c - the table of export formats and what their writers share
 * (see export.h).
 */
#include "output/export.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/view.h"
#include "model/xalloc.h"
#include "output/escape.h"

const struct export_format export_formats[] = {
	{.name = "ghc-json", .write = export_ghc_json, .passes = MODEL_TREE},
	{.name = "ghc-prof", .write = export_ghc_prof, .passes = MODEL_TREE},
	{.name = "callgrind", .write = export_callgrind, .passes = MODEL_FLAT | MODEL_ARC_LISTS},
	{.name = "folded", .write = export_folded, .passes = MODEL_TREE,
	 .thread_passes = MODEL_TREE, .accepts = EXPORT_OPT_THREADS | EXPORT_OPT_WEIGHT},
	{.name = "speedscope", .write = export_speedscope, .passes = MODEL_TREE,
	 .thread_passes = MODEL_TREE, .accepts = EXPORT_OPT_THREADS},
	{.name = "chrome", .write = export_chrome, .passes = MODEL_TREE,
	 .thread_passes = MODEL_TREE, .accepts = EXPORT_OPT_THREADS},
	{.name = "pprof", .write = export_pprof, .passes = MODEL_TREE,
	 .thread_passes = MODEL_TREE, .accepts = EXPORT_OPT_THREADS, .binary = 1, .live_end = 1},
	{.name = "dot", .write = export_dot, .passes = MODEL_FLAT | MODEL_ARCS | MODEL_TREE,
	 .accepts = EXPORT_OPT_THRESHOLD, .hot = 1},
	{.name = "svg", .write = export_svg, .passes = MODEL_TREE,
	 .accepts = EXPORT_OPT_INVERTED | EXPORT_OPT_WEIGHT},
	{.name = "hp", .write = export_hp, .passes = MODEL_TREE, .accepts = EXPORT_OPT_NAME_LENGTH, .heap = 1},
	{.name = "heap-svg", .write = export_heap_svg, .passes = MODEL_TREE, .heap = 1},
	{.name = "html", .write = export_html, .passes = 0, .whole = 1},
};
const unsigned export_nformats = sizeof export_formats / sizeof export_formats[0];

const struct export_format *export_find(const char *name)
{
	for (unsigned i = 0; i < export_nformats; i++)
		if (strcmp(export_formats[i].name, name) == 0)
			return &export_formats[i];
	return NULL;
}

/* ---- scaling ------------------------------------------------------------- */

uint64_t export_scale_one(uint64_t ticks, uint64_t num, uint64_t den)
{
	if (!den)
		return 0;
#ifdef __SIZEOF_INT128__
	unsigned __int128 v = ((unsigned __int128)ticks * num + den / 2) / den;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
#else
	return (uint64_t)((long double)ticks * num / den + 0.5L);
#endif
}

void export_scale_init(struct export_scale *s, uint64_t num, uint64_t den)
{
	*s = (struct export_scale){.num = num, .den = den};
}

uint64_t export_scale(struct export_scale *s, uint64_t ticks)
{
	s->ticks += ticks;
	uint64_t upto = export_scale_one(s->ticks, s->num, s->den);
	uint64_t v = upto - s->done; /* the running rounding never goes down */
	s->done = upto;
	return v;
}

void export_scale_ns(struct export_scale *s, const struct model *m)
{
	export_scale_init(s, 1000000000u, m->prof->ticks_per_sec);
}

/* ---- the stack tree -------------------------------------------------------- */

struct walk {
	const struct model *m;
	export_visit *visit;
	void *arg;
	uint32_t *path, cap, depth;
};

static void walk_enter(struct walk *w, const struct model_node *x,
		       const struct model_node_alloc *a, uint32_t cc)
{
	if (w->depth == w->cap) {
		w->cap *= 2;
		w->path = xrealloc(w->path, w->cap, sizeof *w->path);
	}
	w->path[w->depth++] = cc;
	w->visit(w->arg, x, a, w->path, w->depth, 0);
}

/* After node k's children: the stand-in for its hidden ones, then k. */
static void walk_finish(struct walk *w, uint32_t k)
{
	const struct model *m = w->m;
	if (m->tree_pruned.hidden && m->tree_pruned.rest && m->tree_pruned.rest[k].count) {
		const struct model_hidden *r = &m->tree_pruned.rest[k];
		struct model_node stand_in = {
			.cc = EXPORT_HIDDEN,
			.parent = k,
			.first_child = MODEL_NONE,
			.next_sibling = MODEL_NONE,
			.depth = m->nodes[k].depth + 1,
			.entries = r->entries,
			.individual = r->time,
			.inherited = r->time,
		};
		struct model_node_alloc a = {r->alloc, r->alloc};
		walk_enter(w, &stand_in, &a, EXPORT_HIDDEN);
		w->visit(w->arg, &stand_in, &a, w->path, w->depth, 1);
		w->depth--;
	}
	struct model_node_alloc a = model_node_alloc_at(m->node_alloc, k);
	w->visit(w->arg, &m->nodes[k], &a, w->path, w->depth, 1);
}

/* model_walk's visit: the path kept along (the root, k = 0, adds none). */
static void walk_visit(void *arg, uint32_t k, int leaving)
{
	struct walk *w = arg;
	const struct model_node *x = &w->m->nodes[k];
	struct model_node_alloc a = model_node_alloc_at(w->m->node_alloc, k);
	if (leaving) {
		walk_finish(w, k);
		w->depth -= k != 0;
	} else if (k == 0) {
		w->visit(w->arg, x, &a, w->path, 0, 0);
	} else {
		walk_enter(w, x, &a, x->cc);
	}
}

void export_walk_tree(const struct model *m, export_visit *visit, void *arg)
{
	if (!m->nodes || m->nnodes == 0)
		return;
	struct walk w = {.m = m, .visit = visit, .arg = arg, .cap = 64};
	w.path = xnmalloc(w.cap, sizeof *w.path);
	model_walk(m->nodes, m->tree_pruned.hidden, walk_visit, &w);
	free(w.path);
}

uint64_t export_node_weight(struct export_scale *s, int alloc, const struct model_node *x,
			    const struct model_node_alloc *a)
{
	if (alloc)
		return a->individual.bytes;
	return x->individual ? export_scale(s, x->individual) : 0;
}

const char *export_path_name(const struct model *m, uint32_t cc)
{
	return cc == EXPORT_HIDDEN ? EXPORT_HIDDEN_NAME : m->fns[cc].name;
}

/* ---- names of things ----------------------------------------------------- */

const char *export_program(const struct model *m)
{
	const char *p = model_basename(m->prof->program);
	return *p ? p : "program";
}

const char *export_object(const struct model *m, uint32_t cc)
{
	const char *mod = cc == MODEL_NONE ? "" : model_module_path(m, cc);
	if (mod[0])
		return mod;
	return m->prof->program && m->prof->program[0] ? m->prof->program : "???";
}

const char *export_file(const struct model *m, uint32_t cc)
{
	const struct ccp_cc *c = &m->prof->ccs[cc];
	if (ccp_cc_has_source(c))
		return c->file;
	return export_object(m, cc);
}

uint32_t export_name_hash(const char *name)
{
	uint32_t h = 2166136261u;
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h;
}

/* Bytes of the first `chars` characters of s[0..len) (a byte that is
 * not UTF-8 counts as one). */
static size_t utf8_prefix(const char *s, size_t len, size_t chars)
{
	size_t i = 0;
	for (; i < len && chars > 0; chars--) {
		size_t n = escape_utf8_len((const unsigned char *)s + i, len - i);
		i += n ? n : 1;
	}
	return i;
}

void export_xml_cut(struct ob *o, const char *s, size_t max_chars)
{
	size_t len = strlen(s);
	if (utf8_prefix(s, len, max_chars) >= len) {
		escape_write(o, &escape_xml, s, len);
		return;
	}
	/* Cut: room for ".." too. */
	escape_write(o, &escape_xml, s, utf8_prefix(s, len, max_chars > 2 ? max_chars - 2 : 0));
	ob_puts(o, "..");
}

void export_ghc_where(const struct model *m, uint32_t cc, struct export_ghc_where *w)
{
	const struct ccp_cc *c = &m->prof->ccs[cc];
	const char *obj = model_basename(model_module_path(m, cc));
	*w = (struct export_ghc_where){.module = *obj ? obj : export_program(m), .src = obj};
	w->module_len = strlen(w->module);
	if (ccp_cc_has_source(c)) {
		const char *base = model_basename(c->file);
		const char *dot = strrchr(base, '.');
		w->module = base;
		w->module_len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
		w->src = c->file;
		w->line = c->line;
	} else if (c->kind == CCP_CC_MANUAL) {
		w->src = "<region>";
	} else if (!*obj) {
		w->src = "<unknown>";
	}
}

void export_ghc_date(const struct model *m, char *buf, size_t size)
{
	const struct ccp_profile *p = m->prof;
	time_t t = (time_t)(p->end_ns / 1000000000u);
	struct tm tm;
	buf[0] = '\0';
	if (p->end_ns && localtime_r(&t, &tm))
		strftime(buf, size, "%a %b %d %H:%M %Y", &tm);
}

void export_thread_label(const struct export_thread *th, char *buf, size_t size)
{
	snprintf(buf, size, "%.64s [%llu]", th->name && th->name[0] ? th->name : "thread",
		 (unsigned long long)th->tid);
}

/* ---- string tables -------------------------------------------------------- */

void export_strtab_init(struct export_strtab *t)
{
	memset(t, 0, sizeof *t);
	htab_init(&t->tab, 256);
}

uint32_t export_strtab_add(struct export_strtab *t, const char *s)
{
	uint64_t h = htab_hash_str(s);
	size_t i = htab_first(&t->tab, h);
	for (; t->tab.slot[i].item; i = htab_next(&t->tab, i))
		if (t->tab.slot[i].hash == h && strcmp(t->s[t->tab.slot[i].item - 1], s) == 0)
			return t->tab.slot[i].item - 1;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->s = xrealloc(t->s, t->cap, sizeof *t->s);
	}
	t->s[t->n] = s;
	htab_put(&t->tab, i, h, t->n);
	return t->n++;
}

void export_strtab_free(struct export_strtab *t)
{
	htab_free(&t->tab);
	free(t->s);
	memset(t, 0, sizeof *t);
}
