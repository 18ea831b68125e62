/*
 * overflow.c - what a profile lost to the context budget, for the
 * headers that must say so (report, info, the HTML page, record).
 *
 * Note [Saying the overflow]: past max_contexts contexts a thread enters
 * F in F's overflow context, history [<overflow>] [F] (Note [Context
 * budget] in src/runtime/machine.c).  F's calls and self time stay exact;
 * what is lost is who called it, so the tree shows those calls under one
 * <overflow> node and its callers' inherited times leave them out.  A
 * run that reached the limit (gcc-built ninja's tests: a million
 * contexts) had that node somewhere near line 999,498 of the report and
 * nothing in its header, so every header now says it, from the profile
 * alone: which threads, how many calls and how much time, and the limit
 * to raise.  The limit is the one in the profile's options (the runtime
 * keeps CCPROF_OPTIONS as given), read as the runtime reads it: later
 * keys win, a bad value keeps the earlier one, none is the default.
 */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

#include "common/option_values.h"
#include "model/xalloc.h"

/* Sums of a hostile file's counts stop at the top. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	uint64_t sum;
	return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

/* The cost centre running an overflow context, or MODEL_NONE if c is
 * not one: its history starts with the overflow centre, as the runtime
 * makes it ([<overflow>] [F]) and dump.c's count_lost_time counts it. */
static uint32_t overflowed_cc(const struct ccp_profile *p, const struct ccp_context *c)
{
	uint32_t first, last;

	if (c->len == 0)
		return MODEL_NONE;
	first = CCP_ENTRY_CC(c->hist[0]);
	last = CCP_ENTRY_CC(c->hist[c->len - 1]);
	if (first >= p->nccs || last >= p->nccs || p->ccs[first].kind != CCP_CC_OVERFLOW)
		return MODEL_NONE;
	return last;
}

int model_thread_overflowed(const struct ccp_profile *p, uint32_t t)
{
	const struct ccp_thread *th = &p->threads[t];

	for (uint32_t k = 0; k < th->ncontexts; k++)
		if (overflowed_cc(p, &th->contexts[k]) != MODEL_NONE)
			return 1;
	return 0;
}

/* The max_contexts= the runtime took from options: Note [Escapes in
 * CCPROF_OPTIONS] in src/runtime/options.c, later keys winning. */
static uint64_t options_max_contexts(const char *options)
{
	uint64_t limit = CCP_DEFAULT_MAX_CONTEXTS;
	size_t len = options ? strlen(options) : 0;
	char *buf = xnmalloc(len + 1, 1);
	const char *s = options ? options : "";

	while (*s) {
		char *value;

		if (ccp_option_next(&s, buf, &value) && value && strcmp(buf, "max_contexts") == 0)
			(void)ccp_parse_max_contexts(value, &limit); /* a bad one keeps limit */
	}
	free(buf);
	return limit;
}

struct model_overflow model_overflow(const struct ccp_profile *p)
{
	struct model_overflow ov = {0};
	uint8_t *seen = xcalloc(p->nccs ? p->nccs : 1, 1); /* functions counted */

	for (uint32_t t = 0; t < p->nthreads; t++) {
		const struct ccp_thread *th = &p->threads[t];
		int hit = 0;
		for (uint32_t k = 0; k < th->ncontexts; k++) {
			const struct ccp_context *c = &th->contexts[k];
			uint32_t cc = overflowed_cc(p, c);
			ov.total_time = add_sat(ov.total_time, c->time);
			if (cc == MODEL_NONE)
				continue;
			hit = 1;
			ov.functions += !seen[cc];
			seen[cc] = 1;
			ov.calls = add_sat(ov.calls, add_sat(c->entries, c->recursive));
			ov.time = add_sat(ov.time, c->time);
		}
		if (hit && ov.threads++ == 0)
			ov.first_thread = t;
	}
	free(seen);
	ov.max_contexts = options_max_contexts(p->options);
	return ov;
}
