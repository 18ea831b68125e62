/*
 * export.c - the table of export formats and what their writers share
 * (see export.h).
 */
#include "output/export.h"

#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"

const struct export_format export_formats[] = {
	{"ghc-json", "GHC's +RTS -pj JSON profile (speedscope, profiteur)", export_ghc_json,
	 MODEL_TREE, 0, 0, 0},
	{"callgrind", "callgrind profile (callgrind_annotate, KCachegrind)", export_callgrind,
	 MODEL_FLAT | MODEL_ARCS, 0, 0, 0},
	{"folded", "folded stacks, microseconds (flamegraph.pl, inferno, speedscope)",
	 export_folded, MODEL_TREE, MODEL_TREE, EXPORT_OPT_THREADS, 0},
	{"speedscope", "speedscope's own JSON format", export_speedscope, MODEL_TREE, MODEL_TREE,
	 EXPORT_OPT_THREADS, 0},
	{"pprof", "gzip-compressed profile.proto (go tool pprof)", export_pprof, MODEL_TREE,
	 MODEL_TREE, EXPORT_OPT_THREADS, 1},
	{"dot", "Graphviz call graph (dot -Tsvg)", export_dot, MODEL_FLAT | MODEL_ARCS, 0,
	 EXPORT_OPT_THRESHOLD, 0},
	{"svg", "flame graph drawn by ccprof (any browser)", export_svg, MODEL_TREE, 0,
	 EXPORT_OPT_INVERTED, 0},
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

void export_walk_tree(const struct model *m, export_visit *visit, void *arg)
{
	if (!m->nodes || m->nnodes == 0)
		return;
	uint32_t cap = 64, depth = 0, k = 0;
	uint32_t *path = xnmalloc(cap, sizeof *path);
	visit(arg, 0, path, 0, 0);
	for (;;) {
		const struct model_node *x = &m->nodes[k];
		if (x->first_child != MODEL_NONE) {
			if (depth == cap) {
				cap *= 2;
				path = xrealloc(path, cap, sizeof *path);
			}
			k = x->first_child;
			path[depth++] = m->nodes[k].cc;
			visit(arg, k, path, depth, 0);
			continue;
		}
		/* A leaf: leave it and every ancestor whose children are done. */
		visit(arg, k, path, depth, 1);
		while (k != 0 && m->nodes[k].next_sibling == MODEL_NONE) {
			k = m->nodes[k].parent;
			depth--;
			visit(arg, k, path, depth, 1);
		}
		if (k == 0)
			break;
		k = m->nodes[k].next_sibling;
		path[depth - 1] = m->nodes[k].cc;
		visit(arg, k, path, depth, 0);
	}
	free(path);
}

/* ---- names of things ----------------------------------------------------- */

const char *export_basename(const char *path)
{
	if (!path)
		return "";
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

const char *export_program(const struct model *m)
{
	const char *p = export_basename(m->prof->program);
	return *p ? p : "program";
}

const char *export_module_path(const struct model *m, uint32_t cc)
{
	const struct ccp_profile *p = m->prof;
	int32_t mod = p->ccs[cc].module;
	if (mod < 0 || (uint32_t)mod >= p->nmodules || !p->modules[mod].path)
		return "";
	return p->modules[mod].path;
}

const char *export_file(const struct model *m, uint32_t cc)
{
	const struct ccp_cc *c = &m->prof->ccs[cc];
	if (c->file && c->file[0])
		return c->file;
	const char *mod = export_module_path(m, cc);
	if (mod[0])
		return mod;
	return m->prof->program && m->prof->program[0] ? m->prof->program : "???";
}
