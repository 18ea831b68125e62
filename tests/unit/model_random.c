/*
 * model_random.c - the passes against brute force on random profiles.
 *
 * The passes take shortcuts (shared prefixes with the previous context,
 * per-group sorts, a single thread's contexts borrowed unless a history
 * repeats); here each figure is recomputed the slow, obvious way, straight
 * from the definitions (docs/semantics.md, "The views"), on a few hundred
 * random contexts over a dozen functions, in several threads and orders,
 * and the two must agree exactly.
 */
#include "model_fixture.h"

#define NF 12     /* functions */
#define NC 400    /* contexts per profile */
#define MAXLEN 10

static uint32_t rng = 12345;
static uint32_t rnd(uint32_t n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

static struct ccp_cc ccs[NF];
static char names[NF][4];
static struct ccp_context ctx[NC];
static uint32_t hist[NC][MAXLEN];
static struct ccp_thread threads[3];

/* A random valid history: marked CCs distinct, last entry marked.  Half
 * the time it extends or trims the previous one, as runtime order does. */
static void random_history(uint32_t k)
{
	struct ccp_context *c = &ctx[k];
	uint32_t len = 0;
	if (k > 0 && rnd(2)) {
		len = ctx[k - 1].len;
		memcpy(hist[k], hist[k - 1], len * sizeof hist[k][0]);
		len = len > 1 && rnd(3) == 0 ? len - 1 - rnd(len - 1) : len;
	}
	int used[NF] = {0};
	for (uint32_t i = 0; i < len; i++)
		if (CCP_ENTRY_MARKED(hist[k][i]))
			used[CCP_ENTRY_CC(hist[k][i])] = 1;
	uint32_t want = len + rnd(4);
	while (len < want && len < MAXLEN) {
		uint32_t cc = rnd(NF);
		int mark = !used[cc] && rnd(4) != 0;
		used[cc] |= mark;
		hist[k][len++] = CCP_ENTRY(cc, mark);
	}
	/* The running entry must be marked: drop trailing unmarked ones. */
	while (len > 0 && !CCP_ENTRY_MARKED(hist[k][len - 1]))
		len--;
	c->hist = hist[k];
	c->len = len;
	c->entries = rnd(5);
	c->recursive = rnd(3) == 0 ? rnd(4) : 0;
	c->time = rnd(1000);
}

/* Brute-force figures over all contexts of all threads. */
struct brute {
	uint64_t calls[NF], self[NF], inherited[NF];
	uint64_t arc_calls[NF + 1][NF], self_in[NF + 1][NF], child_in[NF + 1][NF];
	uint64_t self_out[NF][NF], child_out[NF][NF];
	uint64_t total;
};

static void brute_context(struct brute *b, const struct ccp_context *c)
{
	b->total += c->time;
	if (c->len == 0)
		return;
	uint32_t n = c->len, run = CCP_ENTRY_CC(c->hist[n - 1]);
	b->calls[run] += c->entries + c->recursive;
	b->self[run] += c->time;
	b->arc_calls[run + 1][run] += c->recursive;
	/* row 0 of the caller arrays is the spontaneous caller */
	b->arc_calls[n >= 2 ? CCP_ENTRY_CC(c->hist[n - 2]) + 1 : 0][run] += c->entries;
	for (uint32_t i = 0; i < n; i++) {
		if (!CCP_ENTRY_MARKED(c->hist[i]))
			continue;
		uint32_t B = CCP_ENTRY_CC(c->hist[i]);
		b->inherited[B] += c->time;
		uint32_t A = i > 0 ? CCP_ENTRY_CC(c->hist[i - 1]) + 1 : 0;
		(B == run ? b->self_in : b->child_in)[A][B] += c->time;
		if (i + 1 < n) {
			uint32_t D = CCP_ENTRY_CC(c->hist[i + 1]);
			(D == run ? b->self_out : b->child_out)[B][D] += c->time;
		}
	}
}

/* The model's tree node for the marked entries of c, by following ids. */
static const struct model_node *node_of(const struct model *m, const struct ccp_context *c)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < c->len; i++) {
		if (!CCP_ENTRY_MARKED(c->hist[i]))
			continue;
		uint32_t ch = m->nodes[k].first_child;
		while (ch != MODEL_NONE && m->nodes[ch].cc != CCP_ENTRY_CC(c->hist[i]))
			ch = m->nodes[ch].next_sibling;
		if (ch == MODEL_NONE)
			return NULL;
		k = ch;
	}
	return &m->nodes[k];
}

static int same_stack(const struct ccp_context *a, const struct ccp_context *b)
{
	uint32_t i = 0, j = 0;
	for (;;) {
		while (i < a->len && !CCP_ENTRY_MARKED(a->hist[i]))
			i++;
		while (j < b->len && !CCP_ENTRY_MARKED(b->hist[j]))
			j++;
		if (i == a->len || j == b->len)
			return i == a->len && j == b->len;
		if (a->hist[i] != b->hist[j])
			return 0;
		i++, j++;
	}
}

static void check_tree(const struct model *m, const char *what)
{
	int ok = 1;
	for (uint32_t k = 0; k < NC; k++) {
		const struct model_node *x = node_of(m, &ctx[k]);
		uint64_t entries = 0, time = 0;
		for (uint32_t l = 0; l < NC; l++) /* quadratic on purpose: obviously right */
			if (same_stack(&ctx[k], &ctx[l])) {
				entries += ctx[l].entries + ctx[l].recursive;
				time += ctx[l].time;
			}
		ok &= x && x->entries == entries && x->individual == time;
	}
	CHECK(ok, "%s: every context's stack node has the brute-force entries and time", what);
}

/* Each history once (Note [Duplicate histories]): the model has one
 * context for each distinct history of the profile, whichever threads
 * list it, with the counters of all its copies added up. */
static void check_contexts(const struct model *m, const char *what)
{
	int ok = 1;
	uint32_t distinct = 0;
	for (uint32_t k = 0; k < NC; k++) {
		const struct ccp_context *c = &ctx[k];
		uint32_t first = 0, found = 0, at = 0;
		uint64_t e = 0, r = 0, t = 0;
		while (!model_same_history(ctx[first].hist, ctx[first].len, c->hist, c->len))
			first++;
		for (uint32_t l = 0; l < NC; l++) /* quadratic on purpose: obviously right */
			if (model_same_history(ctx[l].hist, ctx[l].len, c->hist, c->len)) {
				e += ctx[l].entries;
				r += ctx[l].recursive;
				t += ctx[l].time;
			}
		for (uint32_t j = 0; j < m->nctx; j++)
			if (model_same_history(m->ctx[j].hist, m->ctx[j].len, c->hist, c->len)) {
				found++;
				at = j;
			}
		distinct += first == k;
		ok &= found == 1 && m->ctx[at].entries == e && m->ctx[at].recursive == r &&
		      m->ctx[at].time == t;
	}
	CHECK(ok && m->nctx == distinct,
	      "%s: one context per distinct history (%u of %u), counters added", what,
	      (unsigned)m->nctx, (unsigned)distinct);
}

static void check_against(const struct model *m, const struct brute *b, const char *what)
{
	int flat = 1, arcs = 1, count = 0;
	for (uint32_t f = 0; f < NF; f++)
		flat &= m->fns[f].calls == b->calls[f] && m->fns[f].self == b->self[f] &&
			m->fns[f].inherited == b->inherited[f];
	for (uint32_t a = 0; a <= NF; a++) {
		for (uint32_t f = 0; f < NF; f++) {
			const struct model_arc *x = model_find_arc(m, a ? a - 1 : MODEL_NONE, f);
			uint64_t so = a ? b->self_out[a - 1][f] : 0, co = a ? b->child_out[a - 1][f] : 0;
			uint64_t sum = b->arc_calls[a][f] + b->self_in[a][f] + b->child_in[a][f] + so + co;
			if (!x) {
				arcs &= sum == 0;
				continue;
			}
			count++;
			arcs &= x->calls == b->arc_calls[a][f] && x->self_in == b->self_in[a][f] &&
				x->child_in == b->child_in[a][f] && x->self_out == so &&
				x->child_out == co;
		}
	}
	CHECK(flat, "%s: calls, self and inherited of every function", what);
	CHECK(arcs && count > 0, "%s: calls and the four times of every arc (%d arcs)", what, count);
	CHECK_EQ_U(m->total_time, b->total, "total time");
}

static void one_profile(unsigned nthreads, const char *what)
{
	static struct ccp_profile p;
	struct brute *b = calloc(1, sizeof *b);
	struct model m;
	char err[128];
	for (uint32_t k = 0; k < NC; k++)
		random_history(k);
	/* Some histories repeat across threads: the merge must add them. */
	uint32_t per = NC / nthreads;
	for (unsigned t = 0; t < nthreads; t++) {
		threads[t] = (struct ccp_thread){.tid = t, .name = "", .contexts = ctx + t * per,
						 .ncontexts = t + 1 == nthreads ? NC - t * per : per};
	}
	for (uint32_t k = 0; k < NC; k++)
		brute_context(b, &ctx[k]);
	p = (struct ccp_profile){.program = "rand", .ticks_per_sec = 1000, .nccs = NF, .ccs = ccs,
				 .nthreads = nthreads, .threads = threads};
	CHECK(model_build(&m, &p, MODEL_ALL, err, sizeof err) == 0, "%s: model builds", what);
	check_against(&m, b, what);
	check_contexts(&m, what);
	check_tree(&m, what);
	fx_check_identities(&m, what);
	model_free(&m);
	free(b);
}

int main(void)
{
	for (uint32_t f = 0; f < NF; f++) {
		snprintf(names[f], sizeof names[f], "f%u", (unsigned)f);
		ccs[f] = (struct ccp_cc){.name = names[f], .module = -1};
	}
	char what[64];
	for (int round = 0; round < 6; round++) {
		snprintf(what, sizeof what, "random profile %d, %d thread%s", round, round % 3 + 1,
			 round % 3 ? "s" : "");
		one_profile((unsigned)(round % 3 + 1), what);
	}
	return check_failures != 0;
}
