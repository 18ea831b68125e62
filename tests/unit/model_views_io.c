/*
 * model_views_io.c - comparing and adding profiles (model/diff.h,
 * model/combine.h) on hand-built profiles.
 *
 *   A:  [a] 20, [a] [b] 10, [a] [c] 10, [a] [b] [c] 50   (Morgan & Jarvis)
 *   B:  A with [a] [b] [c] at 80 and a new function d: [a] [d] 5
 *
 *   diff A A:  every delta 0, nothing on one side only
 *   diff A B:  c: self +30, calls +0; b: inherited +30; d only in B;
 *              stack a → b → c: self +30
 *   merge A A A: every count and time ×3, same contexts; clocks must
 *              agree (cycles: rates within 0.5 %); one file at a time
 */
#include <math.h>

#include "model/combine.h"
#include "model/diff.h"
#include "model_fixture.h"

static void build_a(struct fixture *f)
{
	fx_init(f, 1000);
	fx_ctx(f, "[a]", 1, 0, 20);
	fx_ctx(f, "[a] [b]", 1, 0, 10);
	fx_ctx(f, "[a] [c]", 1, 0, 10);
	fx_ctx(f, "[a] [b] [c]", 1, 0, 50);
}

static const struct diff_row *fn_row(const struct diff *d, const char *name)
{
	for (uint32_t i = 0; i < d->nfns; i++)
		if (strcmp(d->fns[i].name, name) == 0)
			return &d->fns[i];
	return NULL;
}

static int all_zero(const struct diff_row *rows, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct diff_row *r = &rows[i];
		if (r->only || r->self[0] != r->self[1] || r->inherited[0] != r->inherited[1] ||
		    r->calls[0] != r->calls[1])
			return 0;
	}
	return 1;
}

static void diff_self(void)
{
	static struct fixture f;
	struct model m;
	build_a(&f);
	CHECK(fx_build(&m, &f) == 0, "A builds");
	struct diff d;
	diff_build(&d, &m, &m, 0);
	CHECK(d.nfns == 3 && d.nstacks == 4, "diff A A: 3 functions, 4 stacks");
	CHECK(all_zero(d.fns, d.nfns) && all_zero(d.stacks, d.nstacks), "diff A A: all zero");
	diff_free(&d);
	diff_build(&d, &m, &m, 1);
	CHECK(d.scale == 1 && all_zero(d.fns, d.nfns), "diff --normalize A A: all zero");
	diff_free(&d);
	model_free(&m);
}

static void diff_changes(void)
{
	static struct fixture fa, fb;
	struct model a, b;
	build_a(&fa);
	fx_init(&fb, 1000);
	fx_ctx(&fb, "[a]", 1, 0, 20);
	fx_ctx(&fb, "[a] [b]", 1, 0, 10);
	fx_ctx(&fb, "[a] [c]", 1, 0, 10);
	fx_ctx(&fb, "[a] [b] [c]", 1, 0, 80);
	fx_ctx(&fb, "[a] [d]", 4, 0, 5);
	CHECK(fx_build(&a, &fa) == 0 && fx_build(&b, &fb) == 0, "A and B build");
	struct diff d;
	diff_build(&d, &a, &b, 0);
	const struct diff_row *c = fn_row(&d, "c"), *bb = fn_row(&d, "b"), *dd = fn_row(&d, "d");
	CHECK(c && fabs(c->self[1] - c->self[0] - 0.030) < 1e-12 && c->calls[0] == c->calls[1],
	      "diff A B: c self +0.030 s, calls unchanged");
	CHECK(d.fns[0].name == c->name, "diff A B: the largest change (c) comes first");
	CHECK(bb && fabs(bb->inherited[1] - bb->inherited[0] - 0.030) < 1e-12 &&
		      bb->self[0] == bb->self[1],
	      "diff A B: b inherited +0.030 s, self unchanged");
	CHECK(dd && dd->only == DIFF_ONLY_B && dd->calls[1] == 4 && dd->calls[0] == 0,
	      "diff A B: d only in B, 4 calls");
	CHECK(isnan(diff_rel(0, 1)) && diff_rel(2, 3) == 0.5, "relative change: vs A, none from 0");
	const struct diff_row *s = &d.stacks[0];
	CHECK(s->depth == 3 && strcmp(s->stack[2], "c") == 0 &&
		      fabs(s->self[1] - s->self[0] - 0.030) < 1e-12,
	      "diff A B: the stack a, b, c changed most (+0.030 s)");
	diff_free(&d);
	diff_build(&d, &a, &b, 1);
	CHECK(fabs(d.scale - 90.0 / 125.0) < 1e-12, "normalized: B scaled by 90/125");
	double sum = 0;
	for (uint32_t i = 0; i < d.nfns; i++)
		sum += d.fns[i].self[1];
	CHECK(fabs(sum - 0.090) < 1e-12, "normalized: B's self times add up to A's total");
	diff_free(&d);
	model_free(&a);
	model_free(&b);
}

static int combine(struct ccp_profile *out, struct ccp_arena *arena,
		   const struct ccp_profile *p, const struct ccp_profile *q, char *err)
{
	const struct ccp_profile *in[3] = {p, q, p};
	const char *names[3] = {"p", "q", "p"};
	return combine_profiles(out, arena, in, names, 3, err, 256);
}

static void merge_three(void)
{
	static struct fixture f;
	build_a(&f);
	fx_thread(&f);
	fx_ctx(&f, "[w]", 2, 1, 7);
	struct ccp_arena *arena = ccp_arena_new();
	struct ccp_profile sum;
	char err[256] = "";
	f.p.stats.calls = 11;
	f.p.stats.max_depth = 4;
	CHECK(combine(&sum, arena, &f.p, &f.p, err) == 0, "merge A A A: %s", err[0] ? err : "ok");
	CHECK(sum.nthreads == 2 && sum.threads[0].ncontexts == 4 && sum.threads[1].ncontexts == 1,
	      "merge: same threads and contexts");
	int ok = 1;
	for (uint32_t t = 0; t < 2; t++)
		for (uint32_t k = 0; k < sum.threads[t].ncontexts; k++) {
			const struct ccp_context *x = &sum.threads[t].contexts[k];
			const struct ccp_context *y = &f.p.threads[t].contexts[k];
			ok &= x->len == y->len && memcmp(x->hist, y->hist, x->len * 4) == 0 &&
			      x->entries == 3 * y->entries && x->recursive == 3 * y->recursive &&
			      x->time == 3 * y->time;
		}
	CHECK(ok, "merge: every context has 3x its entries, recursive calls and time");
	CHECK(sum.nccs == f.p.nccs && sum.stats.calls == 33 && sum.stats.max_depth == 4,
	      "merge: cost centres matched; calls add, max depth is the largest");
	struct model m;
	char e2[128];
	CHECK(model_build(&m, &sum, MODEL_FLAT, e2, sizeof e2) == 0 &&
		      fx_fn(&m, "c")->self == 180 && fx_fn(&m, "w")->calls == 9,
	      "merge: report of the sum: c 3x60, w 3x(2+1) calls");
	model_free(&m);
	ccp_arena_free(arena);
}

static void merge_mismatch(void)
{
	static struct fixture f, g;
	build_a(&f);
	build_a(&g);
	struct ccp_arena *arena = ccp_arena_new();
	struct ccp_profile sum;
	char err[256] = "";
	g.p.clock = CCP_CLOCK_WALL;
	CHECK(combine(&sum, arena, &f.p, &g.p, err) != 0 && strstr(err, "q: clock is wall"),
	      "merge: different clocks refused (%s)", err);
	g.p.clock = CCP_CLOCK_CPU;
	g.p.interval_ns = 2000000;
	CHECK(combine(&sum, arena, &f.p, &g.p, err) != 0 && strstr(err, "interval"),
	      "merge: different intervals refused (%s)", err);
	f.p.clock = g.p.clock = CCP_CLOCK_CYCLES;
	f.p.ticks_per_sec = 1000000000;
	g.p.ticks_per_sec = 1004000000; /* 0.4 % faster: accepted, rescaled */
	CHECK(combine(&sum, arena, &f.p, &g.p, err) == 0, "merge: cycles rates 0.4%% apart accepted");
	CHECK(sum.threads[0].contexts[3].time == 50 + 50 + 50 - 0,
	      "merge: 50 ticks at 1.004 GHz are 49.8 -> 50 at 1 GHz (got %llu)",
	      (unsigned long long)sum.threads[0].contexts[3].time);
	g.p.ticks_per_sec = 1006000000;
	CHECK(combine(&sum, arena, &f.p, &g.p, err) != 0 && strstr(err, "0.5%"),
	      "merge: cycles rates 0.6%% apart refused (%s)", err);
	ccp_arena_free(arena);
}

/* Note [One file at a time] in combine.c: a file is not needed once
 * combine_add has taken it (scribbled over here, as a freed and reused
 * profile would be), and the first file that does not fit the first is
 * named even after an earlier one took the counts past 2^64, as when
 * every file was checked before any was added. */
static void merge_one_at_a_time(void)
{
	static struct fixture f, scratch;
	struct ccp_arena *arena = ccp_arena_new();
	struct combine *c = combine_begin(arena);
	struct ccp_profile sum;
	char err[256] = "";
	for (int i = 0; i < 3; i++) {
		build_a(&scratch);
		combine_add(c, &scratch.p, "a");
		memset(&scratch, 0xa5, sizeof scratch);
	}
	CHECK(combine_end(c, &sum, err, sizeof err) == 0, "merge one at a time: %s",
	      err[0] ? err : "ok");
	build_a(&f);
	int ok = sum.nccs == f.p.nccs && sum.nthreads == 1 && sum.threads[0].ncontexts == 4;
	for (uint32_t i = 0; ok && i < sum.nccs; i++)
		ok &= strcmp(sum.ccs[i].name, f.p.ccs[i].name) == 0;
	for (uint32_t k = 0; ok && k < 4; k++) {
		const struct ccp_context *x = &sum.threads[0].contexts[k], *y = &f.p.threads[0].contexts[k];
		ok &= x->len == y->len && memcmp(x->hist, y->hist, x->len * 4) == 0 &&
		      x->entries == 3 * y->entries && x->time == 3 * y->time;
	}
	CHECK(ok && strcmp(sum.program, "/bin/fixture") == 0,
	      "merge one at a time: the sum keeps names, histories and 3x the counts of files gone");
	ccp_arena_free(arena);

	static struct fixture big, wall;
	build_a(&big);
	big.threads[0].contexts[0].entries = UINT64_MAX / 2 + 1;
	build_a(&wall);
	wall.p.clock = CCP_CLOCK_WALL;
	const struct ccp_profile *in[4] = {&f.p, &big.p, &big.p, &wall.p};
	const char *names[4] = {"f", "big1", "big2", "wall"};
	arena = ccp_arena_new();
	CHECK(combine_profiles(&sum, arena, in, names, 3, err, sizeof err) != 0 &&
		      strcmp(err, "big2: calls, time or allocations would add up past 2^64") == 0,
	      "merge: the file that took the calls past 2^64 named (%s)", err);
	ccp_arena_free(arena);
	arena = ccp_arena_new();
	CHECK(combine_profiles(&sum, arena, in, names, 4, err, sizeof err) != 0 &&
		      strcmp(err, "wall: clock is wall, but f's is cpu") == 0,
	      "merge: a file that does not fit named after an overflow (%s)", err);
	ccp_arena_free(arena);
}

int main(void)
{
	diff_self();
	diff_changes();
	merge_three();
	merge_mismatch();
	merge_one_at_a_time();
	return check_failures != 0;
}
