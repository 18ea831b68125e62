/*
 * model.c - building the model: the merge pass, display names, and the
 * driver that runs every pass (see model.h).
 */
#include "model/model.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "model/demangle.h"
#include "model/distinct.h"
#include "model/symtabs.h"
#include "model/xalloc.h"

int model_build(struct model *m, const struct ccp_profile *p, unsigned passes, char *err,
		size_t errlen)
{
	if (model_merge(m, p, err, errlen) != 0)
		return -1;
	model_passes(m, passes);
	return 0;
}

void model_passes(struct model *m, unsigned passes)
{
	if (passes & MODEL_FLAT)
		model_flat(m);
	if (passes & (MODEL_ARCS | MODEL_ARC_LISTS))
		model_arcs(m);
	if (passes & MODEL_ARC_LISTS)
		model_arc_lists(m);
	if (passes & MODEL_TREE)
		model_tree(m);
	if (passes & MODEL_CONTEXTS)
		model_contexts(m);
}

void model_free(struct model *m)
{
	free(m->own_ctx);
	free(m->arcs);
	free(m->arc_alloc);
	model_arc_index_free(&m->arc_index);
	free(m->nodes);
	free(m->node_alloc);
	ccp_arena_free(m->arena);
	memset(m, 0, sizeof *m);
	m->root_ctx = MODEL_NONE;
}

const char *model_basename(const char *path)
{
	if (!path)
		return "";
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

void *model_calloc(struct model *m, size_t n, size_t size)
{
	void *p = ccp_arena_calloc(m->arena, n, size);
	if (!p)
		xalloc_die(size && n > SIZE_MAX / size ? SIZE_MAX : n * size, __func__);
	return p;
}

static const char *model_strdup(struct model *m, const char *s)
{
	char *d = model_calloc(m, strlen(s) + 1, 1);
	return strcpy(d, s);
}

/* The module cost centre cc is in, or NULL if none is known. */
static const struct ccp_module *cc_module(const struct model *m, uint32_t cc)
{
	const struct ccp_profile *p = m->prof;
	int32_t mod = p->ccs[cc].module;
	return mod < 0 || (uint32_t)mod >= p->nmodules ? NULL : &p->modules[mod];
}

const char *model_module_path(const struct model *m, uint32_t cc)
{
	const struct ccp_module *mod = cc_module(m, cc);
	return mod && mod->path ? mod->path : "";
}

const char *model_module_build_id(const struct model *m, uint32_t cc)
{
	const struct ccp_module *mod = cc_module(m, cc);
	return mod && mod->build_id ? mod->build_id : "";
}

const char *model_cc_name(struct model *m, uint32_t cc)
{
	const struct ccp_profile *p = m->prof;
	const struct ccp_cc *c = &p->ccs[cc];
	if (c->name && c->name[0])
		return c->name;
	if (c->kind == CCP_CC_OVERFLOW)
		return "<overflow>";
	if (c->kind == CCP_CC_MANUAL)
		return "<unnamed region>";
	char buf[512];
	const char *mod = model_module_path(m, cc);
	if (mod[0])
		snprintf(buf, sizeof buf, "0x%llx@%s", (unsigned long long)c->offset,
			 model_basename(mod));
	else
		snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)c->offset);
	return model_strdup(m, buf);
}

/*
 * Note [Names after a crash]: a profile written from a crash handler has
 * module and offset but no name for its functions (docs/format.md, "3.4
 * CCS": the name "" if unresolved), so the tool looks them up in the
 * module files, each file read once, and only for modules that have
 * unnamed functions.  A module that cannot be read leaves the
 * 0x<offset>@<module> form.
 */
static void resolve_names(struct model *m)
{
	const struct ccp_profile *p = m->prof;
	struct symtabs tabs;
	symtabs_init(&tabs, p);
	for (uint32_t cc = 0; cc < p->nccs; cc++) {
		const struct ccp_cc *c = &p->ccs[cc];
		if ((c->name && c->name[0]) || c->kind != CCP_CC_FUNCTION ||
		    !model_module_path(m, cc)[0])
			continue;
		const char *name = symtabs_name(&tabs, c);
		if (name)
			m->fns[cc].name = model_strdup(m, name);
	}
	symtabs_free(&tabs);
}

/* C++ names as people write them: every output shows these. */
static void demangle_names(struct model *m)
{
	for (uint32_t cc = 0; cc < m->nfns; cc++) {
		char *d = demangle(m->fns[cc].name);
		if (d) {
			m->fns[cc].name = model_strdup(m, d);
			m->fns[cc].demangled = 1;
			free(d);
		}
	}
}

/* Every entry must name an existing cost centre, since the passes index
 * by it; the ones that do are seen.  Entries before `from` are those of a
 * history checked already. */
static int check_history(struct model *m, const struct ccp_context *c, uint32_t from, char *err,
			 size_t errlen)
{
	for (uint32_t i = from; i < c->len; i++) {
		uint32_t cc = CCP_ENTRY_CC(c->hist[i]);
		if (cc >= m->nfns) {
			snprintf(err, errlen, "context refers to unknown cost centre %u", (unsigned)cc);
			return -1;
		}
		m->fns[cc].seen = 1;
	}
	return 0;
}

/* Check a thread's histories, each from where it leaves the previous
 * non-empty one (as the reader does: Note [Incremental history check] in
 * decode.c), and give them to the repeat check r, if any. */
static int check_thread(struct model *m, const struct ccp_thread *th, struct model_repeats *r,
			char *err, size_t errlen)
{
	const struct ccp_context *prev = NULL;
	for (uint32_t i = 0; i < th->ncontexts; i++) {
		const struct ccp_context *c = &th->contexts[i];
		uint32_t same = prev ? model_common_prefix(prev->hist, prev->len, c->hist, c->len) : 0;
		if (check_history(m, c, same, err, errlen) != 0)
			return -1;
		if (r)
			model_repeats_add(r, c->hist, c->len, same);
		if (c->len)
			prev = c;
	}
	return 0;
}

/* Check every history; for a single thread, also whether it lists one
 * twice (*repeats; Note [Duplicate histories]). */
static int check_threads(struct model *m, const struct ccp_profile *p, int *repeats, char *err,
			 size_t errlen)
{
	struct model_repeats r;
	int alone = p->nthreads == 1, rc = 0;
	if (alone)
		model_repeats_init(&r, p->threads[0].ncontexts);
	for (uint32_t t = 0; t < p->nthreads && rc == 0; t++)
		rc = check_thread(m, &p->threads[t], alone ? &r : NULL, err, errlen);
	*repeats = alone && model_repeats_finish(&r);
	return rc;
}

static uint32_t new_context(struct model *m, const struct ccp_context *c)
{
	uint32_t k = m->nctx++;
	m->own_ctx[k] = (struct ccp_context){.hist = c->hist, .len = c->len};
	return k;
}

uint32_t model_ctx_find(const struct model *m, const struct htab *t, const uint32_t *h,
			uint32_t n, uint64_t *hash, size_t *slot)
{
	uint64_t hh = htab_hash_words(h, n);
	size_t i = htab_first(t, hh);
	for (; t->slot[i].item; i = htab_next(t, i)) {
		const struct ccp_context *x = &m->ctx[t->slot[i].item - 1];
		if (t->slot[i].hash == hh && model_same_history(x->hist, x->len, h, n))
			return t->slot[i].item - 1;
	}
	*hash = hh;
	*slot = i;
	return MODEL_NONE;
}

/* Find the merged context with c's history, creating it if new. */
static uint32_t merge_one(struct model *m, struct htab *t, const struct ccp_context *c)
{
	uint64_t h;
	size_t i;
	uint32_t k = model_ctx_find(m, t, c->hist, c->len, &h, &i);
	if (k == MODEL_NONE) {
		k = new_context(m, c);
		htab_put(t, i, h, k);
	}
	return k;
}

/* Add c's counters to x's; or, as the reader does, say what would pass
 * 2^64 if x's calls (E + R) or time or allocations would (format.h: it
 * refuses any file whose totals would, so this fails only for a profile
 * built in memory). */
static const char *add_counters(struct ccp_context *x, const struct ccp_context *c)
{
	struct ccp_totals sum = {.calls = x->entries + x->recursive, .time = x->time};
	struct ccp_alloc_sums alloc = {x->alloc_bytes, x->alloc_blocks};
	if (ccp_totals_add(&sum, c->entries, c->recursive, c->time) != 0)
		return "calls or time";
	if (ccp_alloc_sums_add(&alloc, c->alloc_bytes, c->alloc_blocks) != 0)
		return "allocations";
	x->entries += c->entries;
	x->recursive += c->recursive;
	x->time = sum.time;
	x->alloc_bytes = alloc.bytes;
	x->alloc_blocks = alloc.blocks;
	return NULL;
}

/* The contexts of all threads, equal histories added up, within a thread
 * as across threads. */
static int merge_threads(struct model *m, const struct ccp_profile *p, size_t total, char *err,
			 size_t errlen)
{
	struct htab tab;
	int rc = 0;
	m->ctx = m->own_ctx = xnmalloc(total, sizeof *m->own_ctx);
	htab_init(&tab, total);
	for (uint32_t t = 0; t < p->nthreads && rc == 0; t++) {
		const struct ccp_thread *th = &p->threads[t];
		for (uint32_t i = 0; i < th->ncontexts && rc == 0; i++) {
			const struct ccp_context *c = &th->contexts[i];
			const char *past = add_counters(&m->own_ctx[merge_one(m, &tab, c)], c);
			if (past) {
				snprintf(err, errlen,
					 "%s add up past 2^64 (thread %" PRIu32 " context %" PRIu32 ")",
					 past, t, i);
				rc = -1;
			}
		}
	}
	htab_free(&tab);
	return rc;
}

void model_init(struct model *m, const struct ccp_profile *p, uint32_t nfns)
{
	memset(m, 0, sizeof *m);
	if (!(m->arena = ccp_arena_new()))
		xalloc_die(0, __func__);
	m->prof = p;
	m->root_ctx = MODEL_NONE;
	m->nfns = nfns;
	m->fns = model_calloc(m, nfns ? nfns : 1, sizeof *m->fns);
}

void model_totals(struct model *m)
{
	for (uint32_t k = 0; k < m->nctx; k++) {
		const struct ccp_context *x = &m->ctx[k];
		m->total_time += x->time;
		model_alloc_add(&m->total_alloc, model_ctx_alloc(x));
		if (x->len == 0) {
			/* One at most: merged contexts have distinct histories. */
			if (m->root_ctx == MODEL_NONE)
				m->root_ctx = k;
			m->root_time += x->time;
			model_alloc_add(&m->root_alloc, model_ctx_alloc(x));
		} else {
			m->total_calls += x->entries + x->recursive;
		}
	}
}

/*
 * Merge pass.  Contexts with the same history are the same context for
 * every view (docs/semantics.md, "The views", sums over contexts, not
 * threads), whether they come from different threads or, in a made-up
 * file, from one: they are added up here once.
 */
int model_merge(struct model *m, const struct ccp_profile *p, char *err, size_t errlen)
{
	model_init(m, p, p->nccs);
	for (uint32_t cc = 0; cc < p->nccs; cc++)
		m->fns[cc].name = model_cc_name(m, cc);
	resolve_names(m);
	demangle_names(m);

	size_t total = 0;
	for (uint32_t t = 0; t < p->nthreads; t++)
		total += p->threads[t].ncontexts;
	if (total >= MODEL_NONE) {
		snprintf(err, errlen, "too many contexts (%zu)", total);
		return -1;
	}
	int repeats;
	if (check_threads(m, p, &repeats, err, errlen) != 0)
		return -1;

	/* One thread's histories are distinct (the runtime keeps one context
	 * per history): its contexts are the model's (Note [Borrowed
	 * contexts]), unless a made-up file lists one twice (Note [Duplicate
	 * histories]).  Several threads, or such a thread, are merged. */
	if (p->nthreads == 1 && !repeats) {
		m->ctx = p->threads[0].contexts;
		m->nctx = p->threads[0].ncontexts;
	} else if (p->nthreads > 0 && merge_threads(m, p, total, err, errlen) != 0) {
		return -1;
	}
	model_totals(m);
	return 0;
}

const struct model_arc *model_find_arc(const struct model *m, uint32_t caller, uint32_t callee)
{
	uint32_t k = model_arc_index_find(&m->arc_index, m->arcs, caller, callee);
	return k == MODEL_NONE ? NULL : &m->arcs[k];
}

double model_seconds(const struct model *m, uint64_t ticks)
{
	uint64_t tps = m->prof ? m->prof->ticks_per_sec : 0;
	return tps ? (double)ticks / (double)tps : 0.0;
}

double model_percent(const struct model *m, uint64_t ticks)
{
	return m->total_time ? 100.0 * (double)ticks / (double)m->total_time : 0.0;
}

double model_alloc_percent(const struct model *m, uint64_t bytes)
{
	uint64_t all = m->total_alloc.bytes;
	return all ? 100.0 * (double)bytes / (double)all : 0.0;
}
