/*
 * forkprune.c - a forked child's profile without the contexts and cost
 * centres it only inherited from its parent.
 *
 * Note [A forked child's profile]: fork copies the parent's whole context
 * machine into the child: every context of the forking thread (its
 * shadow stack points into them, so they stay), the transitions between
 * them and every cost centre, with the counts set to zero
 * (rt_registry_after_fork).  Written as they were, the child's profile
 * held every context the parent had made, at zero: a child of tmux's
 * server wrote 1,627 contexts for its 75 calls before its exec, its
 * report listed the parent's functions with 0 calls, and its write
 * encoded and named them all.  So the write of a forked child leaves
 * out:
 *
 *   - each context it inherited (an id below rt_thread.inherited, the
 *     count at the fork) that the child did not use: no entries,
 *     recursive calls, time, allocated or live bytes or blocks
 *     (rt_ctx_used: every count the writer emits per context), and that
 *     no heap sample names;
 *   - each cost centre it inherited (numbered below the count at the
 *     fork) that no history left in the profile names.
 *
 * Contexts and cost centres made in the child stay, used or not, as in
 * any process: the child's profile is the one a process that started at
 * the fork, with the parent's calls on its stack, would write.
 *
 * Nothing in the file refers to a context's parent, so no ancestor is
 * kept for its own sake: a context's history is written whole (its
 * sharing of a prefix with the context before it is the encoder's
 * business, found again for whatever contexts it is given), and views
 * take callers and stack trees from the histories.  What does refer to a
 * context is its number in its thread: the ALLOC and HEAP records.  ALLOC's
 * come from the contexts' own counts, so they follow the contexts; HEAP's
 * samples are renumbered here, by a map that keeps the order, so they stay
 * strictly increasing.  Histories refer to cost centres by number:
 * renumbered here too, in copies (the runtime's own histories are the
 * child's, in use).
 *
 * Only in a forked child: a process that was not forked inherited
 * nothing, and what it made is what it did (each context was made by an
 * entry into it, but its threads' roots).  Its profile stays as it was,
 * byte for byte, roots at zero included, which tests and users compare.
 *
 * The write may run in a signal handler, or at exit with other threads
 * running: this works only on what the write has gathered (its snapshot
 * of the counts, so a context is judged by the counts that are written),
 * allocates only from the write's memory and calls nothing else.
 */
#include "runtime.h"

/* Whether the profile would show anything of c. */
int rt_ctx_used(const struct ccp_context *c)
{
	return c->entries || c->recursive || c->time || c->alloc_bytes || c->alloc_blocks ||
	       c->live_bytes || c->live_blocks;
}

/* keep[j] = 1 for each context of thread t that a heap sample names. */
static void keep_sampled(const struct ccp_profile *p, uint32_t t, uint32_t *keep)
{
	for (uint32_t i = 0; i < p->heap.nsamples; i++) {
		const struct ccp_heap_sample *s = &p->heap.samples[i];

		for (uint32_t r = 0; r < s->nrecords; r++)
			if (s->records[r].thread == t && s->records[r].context < p->threads[t].ncontexts)
				keep[s->records[r].context] = 1;
	}
}

/* The heap samples' records of thread t, of its n contexts, by their new
 * numbers (one beyond them, which keep_sampled passed over too, is left
 * for the encoder to refuse, as it would have been). */
static void renumber_samples(struct ccp_profile *p, uint32_t t, uint32_t n, const uint32_t *to)
{
	for (uint32_t i = 0; i < p->heap.nsamples; i++) {
		struct ccp_heap_sample *s = &p->heap.samples[i];

		for (uint32_t r = 0; r < s->nrecords; r++)
			if (s->records[r].thread == t && s->records[r].context < n)
				s->records[r].context = to[s->records[r].context];
	}
}

/* Thread t without the unused contexts of its first `inherited`: its
 * contexts moved down in place, in their order; 0, or -1 without memory. */
static int prune_thread(struct ccp_profile *p, uint32_t t, uint32_t inherited,
			const struct rt_scratch *s)
{
	struct ccp_thread *th = &p->threads[t];
	uint32_t n = th->ncontexts, kept = 0;
	uint32_t *to = s->alloc(s->ctx, (n ? n : 1) * sizeof *to);

	if (to == NULL)
		return -1;
	for (uint32_t j = 0; j < n; j++)
		to[j] = j >= inherited || rt_ctx_used(&th->contexts[j]);
	keep_sampled(p, t, to);
	for (uint32_t j = 0; j < n; j++) {
		if (!to[j])
			continue;
		th->contexts[kept] = th->contexts[j];
		to[j] = kept++;
	}
	renumber_samples(p, t, n, to);
	p->stats.contexts -= n - kept;
	th->ncontexts = kept;
	s->release(s->ctx, to);
	return 0;
}

/* The longest history written: a pruned profile's deepest_history is of
 * its own contexts, not of the table the child inherited. */
static uint64_t deepest_written(const struct ccp_profile *p)
{
	uint64_t deepest = 0;

	for (uint32_t t = 0; t < p->nthreads; t++)
		for (uint32_t j = 0; j < p->threads[t].ncontexts; j++)
			if (p->threads[t].contexts[j].len > deepest)
				deepest = p->threads[t].contexts[j].len;
	return deepest;
}

/* Every thread without the inherited contexts it did not use;
 * inherited[t] is thread t's rt_thread.inherited. */
int rt_prune_contexts(struct ccp_profile *p, const uint32_t *inherited,
		      const struct rt_scratch *s)
{
	int pruned = 0;

	for (uint32_t t = 0; t < p->nthreads; t++)
		if (inherited[t]) {
			if (prune_thread(p, t, inherited[t], s) != 0)
				return -1;
			pruned = 1;
		}
	if (pruned)
		p->stats.deepest_history = deepest_written(p);
	return 0;
}

/* used[cc] = 1 for each cost centre a history names; -1 if one names
 * none there is (it cannot be: the writer would refuse the file). */
static int mark_named(const struct ccp_profile *p, uint32_t *used)
{
	for (uint32_t t = 0; t < p->nthreads; t++)
		for (uint32_t j = 0; j < p->threads[t].ncontexts; j++) {
			const struct ccp_context *c = &p->threads[t].contexts[j];

			for (uint32_t i = 0; i < c->len; i++) {
				uint32_t cc = CCP_ENTRY_CC(c->hist[i]);

				if (cc >= p->nccs)
					return -1;
				used[cc] = 1;
			}
		}
	return 0;
}

/* Each history copied into `to`, its cost centres renumbered by map. */
static void renumber_histories(struct ccp_profile *p, const uint32_t *map, uint32_t *to)
{
	for (uint32_t t = 0; t < p->nthreads; t++)
		for (uint32_t j = 0; j < p->threads[t].ncontexts; j++) {
			struct ccp_context *c = &p->threads[t].contexts[j];

			for (uint32_t i = 0; i < c->len; i++)
				to[i] = CCP_ENTRY(map[CCP_ENTRY_CC(c->hist[i])],
						  CCP_ENTRY_MARKED(c->hist[i]));
			c->hist = to;
			to += c->len;
		}
}

/* The total length of the histories, or SIZE_MAX if it does not fit. */
static size_t history_entries(const struct ccp_profile *p)
{
	size_t total = 0;

	for (uint32_t t = 0; t < p->nthreads; t++)
		for (uint32_t j = 0; j < p->threads[t].ncontexts; j++) {
			if (p->threads[t].contexts[j].len > (SIZE_MAX - total) / sizeof(uint32_t))
				return SIZE_MAX;
			total += p->threads[t].contexts[j].len;
		}
	return total;
}

/* The cost centres without those numbered below first_own that no
 * history names, histories renumbered into *hists (for the caller to
 * release; NULL if none was needed).  After rt_prune_contexts, before the
 * names are looked up, which then are only the ones written.  0, or -1
 * without memory. */
int rt_prune_ccs(struct ccp_profile *p, uint32_t first_own, const struct rt_scratch *s,
		 uint32_t **hists)
{
	uint32_t *map, kept = 0;
	size_t total;

	*hists = NULL;
	if (first_own == 0 || p->nccs == 0)
		return 0;
	if ((map = s->alloc(s->ctx, p->nccs * sizeof *map)) == NULL)
		return -1;
	for (uint32_t cc = first_own; cc < p->nccs; cc++)
		map[cc] = 1;
	if (mark_named(p, map) != 0) {
		s->release(s->ctx, map); /* written as they are, for the encoder to refuse */
		return 0;
	}
	for (uint32_t cc = 0; cc < p->nccs; cc++)
		kept += map[cc];
	if (kept == p->nccs) {
		s->release(s->ctx, map);
		return 0;
	}
	total = history_entries(p);
	if (total == SIZE_MAX ||
	    (*hists = s->alloc(s->ctx, (total ? total : 1) * sizeof **hists)) == NULL) {
		s->release(s->ctx, map);
		return -1;
	}
	kept = 0;
	for (uint32_t cc = 0; cc < p->nccs; cc++)
		if (map[cc]) {
			p->ccs[kept] = p->ccs[cc];
			map[cc] = kept++;
		}
	renumber_histories(p, map, *hists);
	p->nccs = kept;
	s->release(s->ctx, map);
	return 0;
}
