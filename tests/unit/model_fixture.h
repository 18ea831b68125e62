/*
 * model_fixture.h - hand-built profiles for the model's unit tests.
 *
 * A context is written the way docs/semantics.md draws it, marked entries
 * in brackets:
 *
 *     fx_ctx(&fx, "[main] P [Q] [R] [P]", E, R, T);
 *
 * Names become cost centres in order of first use; "" is the root context.
 * fx_thread starts another thread.  Everything lives in the fixture (no
 * allocation), which the test keeps until it frees the model.
 */
#ifndef CCPROF_TEST_MODEL_FIXTURE_H
#define CCPROF_TEST_MODEL_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format/profile.h"
#include "model/model.h"
#include "model/view.h"

/* Each test uses some of these. */
#define FX_FN static __attribute__((unused))

#define FX_MAX_CCS 64
#define FX_MAX_THREADS 8
#define FX_MAX_CTX 64
#define FX_MAX_HIST 4096

struct fixture {
	struct ccp_profile p;
	struct ccp_cc ccs[FX_MAX_CCS];
	char names[FX_MAX_CCS][32];
	struct ccp_thread threads[FX_MAX_THREADS];
	struct ccp_context ctx[FX_MAX_THREADS][FX_MAX_CTX];
	uint32_t hist[FX_MAX_HIST];
	size_t nhist;
};

FX_FN _Noreturn void fx_die(const char *what)
{
	printf("not ok - fixture: %s\n", what);
	exit(1);
}

FX_FN void fx_thread(struct fixture *f)
{
	if (f->p.nthreads == FX_MAX_THREADS)
		fx_die("too many threads");
	struct ccp_thread *t = &f->threads[f->p.nthreads];
	t->tid = 1000 + f->p.nthreads;
	t->name = "";
	t->contexts = f->ctx[f->p.nthreads];
	f->p.nthreads++;
}

FX_FN void fx_init(struct fixture *f, uint64_t ticks_per_sec)
{
	memset(f, 0, sizeof *f);
	f->p.program = "/bin/fixture";
	f->p.clock = CCP_CLOCK_CPU;
	f->p.ticks_per_sec = ticks_per_sec;
	f->p.interval_ns = 1000000;
	f->p.ccs = f->ccs;
	f->p.threads = f->threads;
	fx_thread(f);
}

FX_FN uint32_t fx_cc(struct fixture *f, const char *name)
{
	for (uint32_t i = 0; i < f->p.nccs; i++)
		if (strcmp(f->names[i], name) == 0)
			return i;
	if (f->p.nccs == FX_MAX_CCS || strlen(name) >= sizeof f->names[0])
		fx_die("too many cost centres");
	uint32_t i = f->p.nccs++;
	strcpy(f->names[i], name);
	f->ccs[i] = (struct ccp_cc){.kind = CCP_CC_FUNCTION, .name = f->names[i], .module = -1,
				    .offset = 0x1000 + 16 * i, .file = "", .line = 0};
	return i;
}

/* Add a context "[a] b [c]" to the current thread. */
FX_FN void fx_ctx(struct fixture *f, const char *history, uint64_t e, uint64_t r, uint64_t t)
{
	struct ccp_thread *th = &f->threads[f->p.nthreads - 1];
	if (th->ncontexts == FX_MAX_CTX)
		fx_die("too many contexts");
	struct ccp_context *c = &th->contexts[th->ncontexts++];
	c->hist = &f->hist[f->nhist];
	c->len = 0;
	char buf[512];
	snprintf(buf, sizeof buf, "%s", history);
	for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		int marked = tok[0] == '[';
		if (marked) {
			tok++;
			tok[strlen(tok) - 1] = '\0';
		}
		if (f->nhist == FX_MAX_HIST)
			fx_die("histories too long");
		f->hist[f->nhist++] = CCP_ENTRY(fx_cc(f, tok), marked);
		c->len++;
	}
	c->entries = e;
	c->recursive = r;
	c->time = t;
}

/* Set the allocations of the last context added (fx_ctx), and mark the
 * profile as one that counted them. */
FX_FN void fx_ctx_alloc(struct fixture *f, uint64_t bytes, uint64_t blocks)
{
	struct ccp_thread *th = &f->threads[f->p.nthreads - 1];
	if (th->ncontexts == 0)
		fx_die("fx_ctx_alloc before fx_ctx");
	th->contexts[th->ncontexts - 1].alloc_bytes = bytes;
	th->contexts[th->ncontexts - 1].alloc_blocks = blocks;
	f->p.alloc.measured = 1;
}

/* The model's record for a name. */
FX_FN const struct model_fn *fx_fn(const struct model *m, const char *name)
{
	for (uint32_t i = 0; i < m->nfns; i++)
		if (strcmp(m->fns[i].name, name) == 0)
			return &m->fns[i];
	fx_die(name);
	return NULL;
}

FX_FN uint32_t fx_id(const struct model *m, const char *name)
{
	return (uint32_t)(fx_fn(m, name) - m->fns);
}

/* The arc caller -> callee ("" for the spontaneous caller); NULL if none. */
FX_FN const struct model_arc *fx_arc(const struct model *m, const char *caller,
				      const char *callee)
{
	return model_find_arc(m, caller[0] ? fx_id(m, caller) : MODEL_NONE, fx_id(m, callee));
}

/* The tree node at a path "main/P/Q" ("" is the root), or NULL. */
FX_FN const struct model_node *fx_node(const struct model *m, const char *path)
{
	uint32_t k = 0;
	char buf[512];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *save = NULL, *tok = strtok_r(buf, "/", &save); tok;
	     tok = strtok_r(NULL, "/", &save)) {
		uint32_t cc = fx_id(m, tok), c = m->nodes[k].first_child;
		while (c != MODEL_NONE && m->nodes[c].cc != cc)
			c = m->nodes[c].next_sibling;
		if (c == MODEL_NONE)
			return NULL;
		k = c;
	}
	return &m->nodes[k];
}

FX_FN int fx_build(struct model *m, struct fixture *f)
{
	char err[128] = "";
	int rc = model_build(m, &f->p, MODEL_ALL, err, sizeof err);
	if (rc != 0)
		printf("# model_build: %s\n", err);
	return rc;
}

/*
 * Identities every model must satisfy, whatever the profile (by the
 * definitions of docs/semantics.md, "The views"):
 *
 *   tree: inherited(root) = total; inherited = individual + Σ children;
 *         Σ entries = Σ (E + R) over all contexts
 *   flat: Σ self = total - time outside any CC
 *   arcs, for each F: Σ calls over arcs into F (the spontaneous arc and
 *         F→F included) = calls(F); Σ (self_in + child_in) = inherited(F);
 *         Σ self_in = self(F); Σ (self_out + child_out) = inherited(F) -
 *         self(F)
 */
FX_FN void fx_check_identities(const struct model *m, const char *what)
{
	int tree_ok = 1;
	uint64_t entries = 0, all_calls = 0;
	for (uint32_t k = 0; k < m->nnodes; k++) {
		const struct model_node *x = &m->nodes[k];
		uint64_t sum = x->individual;
		for (uint32_t c = x->first_child; c != MODEL_NONE; c = m->nodes[c].next_sibling)
			sum += m->nodes[c].inherited;
		tree_ok &= sum == x->inherited;
		entries += x->entries;
	}
	for (uint32_t k = 0; k < m->nctx; k++)
		all_calls += m->ctx[k].entries + m->ctx[k].recursive;
	CHECK_EQ_U(m->nodes[0].inherited, m->total_time, "tree root inherits the total");
	CHECK(tree_ok, "%s: every node: inherited = individual + children", what);
	CHECK_EQ_U(entries, all_calls, "tree entries = sum of E + R");

	uint64_t self = 0;
	int calls_ok = 1, in_ok = 1, self_ok = 1, out_ok = 1;
	for (uint32_t f = 0; f < m->nfns; f++) {
		const struct model_fn *fn = &m->fns[f];
		uint64_t calls = 0, in = 0, self_in = 0, out = 0;
		self += fn->self;
		for (uint32_t i = m->in_start[f]; i < m->in_start[f + 1]; i++) {
			const struct model_arc *a = &m->arcs[m->in[i]];
			calls += a->calls;
			in += a->self_in + a->child_in;
			self_in += a->self_in;
		}
		for (uint32_t i = m->out_start[f]; i < m->out_start[f + 1]; i++)
			out += m->arcs[m->out[i]].self_out + m->arcs[m->out[i]].child_out;
		calls_ok &= calls == fn->calls;
		in_ok &= in == fn->inherited;
		self_ok &= self_in == fn->self;
		out_ok &= out == fn->inherited - fn->self;
	}
	CHECK_EQ_U(self, m->total_time - m->root_time, "sum of self = total - outside");
	CHECK(calls_ok, "%s: calls into each function = its calls", what);
	CHECK(in_ok, "%s: incoming arc times = inherited", what);
	CHECK(self_ok, "%s: incoming self times = self", what);
	CHECK(out_ok, "%s: outgoing arc times = inherited - self", what);
}

/* Without mutual recursion both views of every arc agree. */
FX_FN void fx_check_in_equals_out(const struct model *m, const char *what)
{
	int ok = 1;
	for (uint32_t k = 0; k < m->narcs; k++) {
		const struct model_arc *a = &m->arcs[k];
		if (a->caller == MODEL_NONE)
			continue;
		ok &= a->self_in == a->self_out && a->child_in == a->child_out;
	}
	CHECK(ok, "%s: _in and _out times agree on every arc", what);
}

/* The base model (merge only) and a view of it. */
struct viewed {
	struct model base, vm;
	struct model_view v;
	struct model_view_opts o;
};

FX_FN int view_of(struct viewed *w, struct fixture *f, unsigned passes)
{
	char err[128] = "";
	if (model_build(&w->base, &f->p, 0, err, sizeof err) != 0) {
		printf("# model_build: %s\n", err);
		return -1;
	}
	if (model_view_resolve(&w->v, &w->base, &w->o, err, sizeof err) != 0) {
		printf("# resolve: %s\n", err);
		return -1;
	}
	model_view_build(&w->vm, &w->base, &w->v, passes);
	if (model_prune_any(&w->o.prune))
		model_prune(&w->vm, &w->o.prune);
	return 0;
}

FX_FN void view_free(struct viewed *w)
{
	model_free(&w->vm);
	model_view_free(&w->v);
	model_free(&w->base);
	model_view_opts_free(&w->o);
}

/* Spivey's eight contexts (docs/semantics.md, n = 2) with times 10..80 and a
 * root of 5 ticks: the fixture several tests share. */
static inline void build_spivey(struct fixture *f)
{
	fx_init(f, 1000);
	fx_ctx(f, "", 0, 0, 5);
	fx_ctx(f, "[main]", 1, 0, 10);
	fx_ctx(f, "[main] [P]", 1, 2, 20);
	fx_ctx(f, "[main] [P] [Q]", 1, 0, 30);
	fx_ctx(f, "[main] [P] [Q] [R]", 1, 0, 40);
	fx_ctx(f, "[main] P [Q] [R] [P]", 2, 0, 50);
	fx_ctx(f, "[main] P Q [R] [P] [Q]", 1, 0, 60);
	fx_ctx(f, "[main] P R [P] [Q] [R]", 1, 0, 70);
	fx_ctx(f, "[main] P [Q] [R] [P] [S]", 1, 3, 80);
}

#endif
