/*
 * model_hookcost.c - report --hook-cost's marks and suggestions
 * (model/hookcost.c) on hand-built profiles: 1 s of main, an estimate of
 * 5 ns per call, a 1 ms sampling interval.  Every helper has no sample:
 *
 *   leaf       3,000,000 calls   marked, named
 *   tiny       3,000,000 calls   marked; but its name is part of
 *   tinyrare     100,000 calls   whose self time, unsampled, may be up to
 *                                3 ms (Note [Hooks that outweigh]): 30 ns a
 *                                call, so tiny goes unnamed
 *
 * With clock=cycles there is no sampling, but an estimate too high may
 * have taken tinyrare's work (Note [A debt that ate work]): its self time
 * may be up to 5 % of what the hooks subtracted.  With 4 ms subtracted,
 * 0.2 ms: it does no work, and tiny is named too; with the 30.5 ms that
 * the estimate times the calls makes (a file that does not record what
 * was subtracted), 1.5 ms, 15 ns a call: tiny goes unnamed again.
 */
#include "model_fixture.h"

#define MS 1000000u /* ticks at 1 GHz */

static void build(struct fixture *f, uint32_t clock, uint64_t subtracted)
{
	fx_init(f, 1000000000u);
	f->p.clock = clock;
	f->p.stats.subtracted = subtracted;
	f->p.overhead_milliticks = 5000; /* 5 ticks per call */
	fx_ctx(f, "[main]", 1, 0, 1000 * MS);
	fx_ctx(f, "[main] [leaf]", 3000000, 0, 0);
	fx_ctx(f, "[main] [tiny]", 3000000, 0, 0);
	fx_ctx(f, "[main] [tinyrare]", 100000, 0, 0);
}

static int has(const char *const *list, uint32_t n, const char *s)
{
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(list[i], s) == 0)
			return 1;
	return 0;
}

static void run(uint32_t clock, uint64_t subtracted, const char *what)
{
	struct fixture f;
	struct model m;
	char err[256];
	build(&f, clock, subtracted);
	memset(&m, 0, sizeof m);
	if (model_build(&m, &f.p, MODEL_FLAT, err, sizeof err) != 0) {
		printf("not ok - %s: model_build: %s\n", what, err);
		check_failures++;
		return;
	}
	model_hook_cost(&m);
	const struct model_hook_cost *h = m.hook_cost;
	int sampled = clock != CCP_CLOCK_CYCLES || subtracted == 0;
	CHECK(h->nrows == 4 && h->rows[0] == fx_id(&m, "leaf") && h->rows[3] == fx_id(&m, "main"),
	      "%s: rows by calls, most first", what);
	CHECK(h->candidate[fx_id(&m, "leaf")] && h->candidate[fx_id(&m, "tiny")] &&
		      !h->candidate[fx_id(&m, "tinyrare")] && !h->candidate[fx_id(&m, "main")],
	      "%s: leaf and tiny marked, tinyrare (hooks 0.05 %% of the run) and main not", what);
	CHECK(has(h->names, h->nnames, "leaf") && h->nfiles == 0, "%s: leaf named", what);
	if (sampled)
		CHECK(!has(h->names, h->nnames, "tiny") && h->nclashing == 1 &&
			      h->clashing[0] == fx_id(&m, "tiny"),
		      "%s: tiny unnamed, since tinyrare, unsampled or its time eaten, may do work",
		      what);
	else
		CHECK(has(h->names, h->nnames, "tiny") && h->nclashing == 0,
		      "%s: tiny named: tinyrare's time is measured, 0, and 4 ms subtracted could "
		      "have taken no more than 0.2 ms of it", what);
	model_free(&m);
}

int main(void)
{
	run(CCP_CLOCK_CPU, 0, "hook cost, clock=cpu");
	run(CCP_CLOCK_CYCLES, 4 * MS, "hook cost, clock=cycles, 4 ms subtracted");
	run(CCP_CLOCK_CYCLES, 0, "hook cost, clock=cycles, what was subtracted not recorded");
	return check_failures != 0;
}
