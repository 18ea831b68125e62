/*
 * model_merge.c - the merge pass: contexts with the same history are one
 * context, their counters added, whether they come from two threads or
 * (in a made-up file) from one thread (Note [Duplicate histories]); a
 * thread whose histories all differ is borrowed, not copied (Note
 * [Borrowed contexts]); calls or time added past 2^64 are refused with
 * the reader's reason.
 */
#include "model_fixture.h"

/*
 * Two contexts listed twice, in one thread or over two:
 *
 *   history       E  R   T          merged:  history       E  R   T
 *   [main]        1  0  10                   [main]        4  0  15
 *   [main] [f]    2  1  20                   [main] [f]    3  1  21
 *   [main]        3  0   5
 *   [main] [f]    1  0   1
 */
static void build_repeats(struct fixture *f, int two_threads)
{
	fx_init(f, 1000);
	fx_ctx(f, "[main]", 1, 0, 10);
	fx_ctx(f, "[main] [f]", 2, 1, 20);
	if (two_threads)
		fx_thread(f);
	fx_ctx(f, "[main]", 3, 0, 5);
	fx_ctx(f, "[main] [f]", 1, 0, 1);
}

static int same_context(const struct ccp_context *a, const struct ccp_context *b)
{
	return model_same_history(a->hist, a->len, b->hist, b->len) &&
	       a->entries == b->entries && a->recursive == b->recursive && a->time == b->time;
}

static void repeats_in_one_thread(void)
{
	static struct fixture f;
	struct model m;
	build_repeats(&f, 0);
	CHECK(fx_build(&m, &f) == 0, "one thread listing two histories twice builds");
	CHECK_EQ_U(m.nctx, 2, "one context per history");
	CHECK(m.nctx == 2 && m.ctx[0].len == 1 && m.ctx[0].entries == 4 && m.ctx[0].recursive == 0 &&
	      m.ctx[0].time == 15, "[main]: E 1+3, R 0, T 10+5, first seen first");
	CHECK(m.nctx == 2 && m.ctx[1].len == 2 && m.ctx[1].entries == 3 && m.ctx[1].recursive == 1 &&
	      m.ctx[1].time == 21, "[main] [f]: E 2+1, R 1, T 20+1");
	CHECK(m.own_ctx != NULL, "the merged contexts are the model's own");
	CHECK_EQ_U(m.total_time, 36, "total time");
	CHECK_EQ_U(m.total_calls, 8, "total calls");
	CHECK_EQ_U(fx_fn(&m, "f")->calls, 4, "calls(f)");
	CHECK_EQ_U(fx_fn(&m, "main")->inherited, 36, "inherited(main)");
	fx_check_identities(&m, "repeats in one thread");
	model_free(&m);
}

/* Everything the passes made from the contexts, compared field by field. */
static void check_same_model(const struct model *a, const struct model *b, const char *what)
{
	int ctx = a->nctx == b->nctx, order = ctx, fns = a->nfns == b->nfns;
	int nodes = a->nnodes == b->nnodes, arcs = a->narcs == b->narcs;
	for (uint32_t k = 0; ctx && k < a->nctx; k++) {
		ctx &= same_context(&a->ctx[k], &b->ctx[k]);
		order &= a->ctx_by_time[k] == b->ctx_by_time[k];
	}
	for (uint32_t k = 0; fns && k < a->nfns; k++)
		fns &= a->fns[k].calls == b->fns[k].calls && a->fns[k].self == b->fns[k].self &&
		       a->fns[k].inherited == b->fns[k].inherited;
	for (uint32_t k = 0; nodes && k < a->nnodes; k++)
		nodes &= a->nodes[k].cc == b->nodes[k].cc && a->nodes[k].entries == b->nodes[k].entries &&
			 a->nodes[k].inherited == b->nodes[k].inherited;
	for (uint32_t k = 0; arcs && k < a->narcs; k++)
		arcs &= memcmp(&a->arcs[k], &b->arcs[k], sizeof a->arcs[k]) == 0;
	CHECK(ctx && order, "%s: the same contexts in the same orders", what);
	CHECK(fns, "%s: the same calls, self and inherited times", what);
	CHECK(nodes && arcs, "%s: the same stack tree and arcs", what);
	CHECK(a->total_time == b->total_time && a->total_calls == b->total_calls &&
	      a->root_time == b->root_time, "%s: the same totals", what);
}

static void repeats_as_across_threads(void)
{
	static struct fixture one, two;
	struct model a, b;
	build_repeats(&one, 0);
	build_repeats(&two, 1);
	CHECK(fx_build(&a, &one) == 0 && fx_build(&b, &two) == 0, "one thread and two build");
	check_same_model(&a, &b, "repeats in one thread vs two threads");
	model_free(&a);
	model_free(&b);
}

/* The reason model_build gives for a profile, "" if it builds. */
static const char *build_error(struct fixture *f, char *err, size_t errlen)
{
	struct model m;
	err[0] = '\0';
	model_build(&m, &f->p, MODEL_ALL, err, errlen);
	model_free(&m);
	return err;
}

/* The reader refuses a file whose calls or time add up past 2^64, so no
 * merged counter can wrap; a profile built in memory is refused the same
 * way when merging would take a counter past it, in one thread as across
 * two.  Up to 2^64 - 1 merges. */
static void repeats_past_2_64(void)
{
	static struct fixture f;
	const uint64_t half = UINT64_C(1) << 63;
	char err[128];
	struct model m;
	for (int threads = 1; threads <= 2; threads++) {
		const char *where = threads == 1 ? "one thread" : "two threads";
		const char *at = threads == 1 ? "(thread 0 context 1)" : "(thread 1 context 0)";
		fx_init(&f, 1000);
		fx_ctx(&f, "[main]", 1, 0, half);
		if (threads == 2)
			fx_thread(&f);
		fx_ctx(&f, "[main]", 1, 0, half);
		build_error(&f, err, sizeof err);
		CHECK(strstr(err, "calls or time add up past 2^64") && strstr(err, at),
		      "%s, [main] twice, times 2^63 + 2^63: refused (%s)", where, err);

		f.ctx[threads - 1][threads == 1 ? 1 : 0].time = half - 1;
		f.ctx[0][0].entries = half;
		f.ctx[threads - 1][threads == 1 ? 1 : 0].recursive = half;
		build_error(&f, err, sizeof err);
		CHECK(strstr(err, "past 2^64") != NULL,
		      "%s: entries 2^63 + 1 and recursive 2^63 merged: refused (%s)", where, err);

		f.ctx[threads - 1][threads == 1 ? 1 : 0].recursive = half - 2;
		CHECK(fx_build(&m, &f) == 0 && m.nctx == 1 && m.ctx[0].time == UINT64_MAX &&
			      m.ctx[0].entries + m.ctx[0].recursive == UINT64_MAX,
		      "%s: calls and time adding up to 2^64 - 1 merge", where);
		model_free(&m);
	}
}

/*
 * Many contexts: a call tree in creation order, as bigprofile.c makes it
 * (context i extends context (i - 1) / 6 by a function of its own), so
 * the repeat check runs at the size where its table and prefix hashes
 * matter; then the same with a history or the root listed again, far from
 * the first.
 */
#define MANY 60000
#define MANY_DEPTH 8
#define MANY_CCS (6 * MANY_DEPTH)

static struct ccp_cc many_ccs[MANY_CCS];
static char many_names[MANY_CCS][8];
static struct ccp_context many_ctx[MANY];
static uint32_t many_hist[MANY][MANY_DEPTH];

static void build_many(struct fixture *f)
{
	fx_init(f, 1000);
	for (uint32_t i = 0; i < MANY_CCS; i++) {
		snprintf(many_names[i], sizeof many_names[i], "f%u", (unsigned)i);
		many_ccs[i] = (struct ccp_cc){.kind = CCP_CC_FUNCTION, .name = many_names[i], .module = -1};
	}
	many_ctx[0] = (struct ccp_context){.len = 0, .time = 1};
	for (uint32_t i = 1; i < MANY; i++) {
		const struct ccp_context *parent = &many_ctx[(i - 1) / 6];
		uint32_t len = parent->len + 1;
		if (parent->len)
			memcpy(many_hist[i], parent->hist, parent->len * sizeof many_hist[i][0]);
		many_hist[i][len - 1] = CCP_ENTRY(6 * parent->len + (i - 1) % 6, 1);
		many_ctx[i] = (struct ccp_context){.len = len, .hist = many_hist[i], .entries = 1,
						   .recursive = i % 3 == 0, .time = i};
	}
	f->p.ccs = many_ccs;
	f->p.nccs = MANY_CCS;
	f->threads[0].contexts = many_ctx;
	f->threads[0].ncontexts = MANY;
}

static void repeats_among_many(void)
{
	static struct fixture f;
	struct model m;
	build_many(&f);
	CHECK(fx_build(&m, &f) == 0, "%d distinct histories build", MANY);
	CHECK(m.nctx == MANY && m.ctx == many_ctx && m.own_ctx == NULL,
	      "no repeat: the thread's contexts are borrowed, not merged");
	model_free(&m);

	/* The last context lists the history of context 7 again. */
	struct ccp_context last = many_ctx[MANY - 1];
	many_ctx[MANY - 1] = (struct ccp_context){.len = many_ctx[7].len, .hist = many_hist[7],
						  .entries = 5, .recursive = 1, .time = 100};
	CHECK(fx_build(&m, &f) == 0 && m.nctx == MANY - 1, "one history listed twice: %d contexts",
	      MANY - 1);
	CHECK(m.nctx == MANY - 1 && m.ctx[7].entries == 6 && m.ctx[7].recursive == 1 + (7 % 3 == 0) &&
	      m.ctx[7].time == 107, "its counters added into the first");
	model_free(&m);

	/* The root listed again in the middle. */
	many_ctx[MANY - 1] = last;
	struct ccp_context mid = many_ctx[MANY / 2];
	many_ctx[MANY / 2] = (struct ccp_context){.len = 0, .time = 41};
	CHECK(fx_build(&m, &f) == 0 && m.nctx == MANY - 1 && m.root_ctx == 0 &&
	      m.ctx[0].time == 42 && m.root_time == 42, "the root listed twice: one root, T 1+41");
	fx_check_identities(&m, "root listed twice");
	model_free(&m);
	many_ctx[MANY / 2] = mid;
}

int main(void)
{
	repeats_in_one_thread();
	repeats_as_across_threads();
	repeats_past_2_64();
	repeats_among_many();
	return check_failures != 0;
}
