/*
 * threads.c - the per-thread breakdown: one model for each thread of the
 * profile, under the same view as m (selection, focus), built from that
 * thread's own contexts (view.h, model_view.thread).
 *
 * Note [One thread model at a time]: a thread's model has an array sized
 * by the functions of the whole profile (fns, 72 bytes each), so
 * keeping every thread's at once cost threads × functions: 738 MB for
 * `report --threads` of 5,000 threads × 2,000 functions.  Every writer
 * shows the threads one after another, so model_threads only records
 * what to build, and the writer builds each thread's model when it
 * comes to it (model_thread_build) and frees it before the next: one
 * thread's model is alive at a time (two for the JSON report of a heap
 * profile: the thread's time and its live heap).  A writer that goes
 * over the threads twice (speedscope's allocation profiles) builds them
 * twice, which costs time in proportion to what is shown, not memory.
 */
#include "model/view.h"

#include <string.h>

void model_threads(struct model *m, unsigned passes)
{
	m->nthread_models = m->prof->nthreads;
	m->thread_passes = passes;
}

void model_thread_build(struct model_thread *th, const struct model *m, uint32_t t)
{
	const struct model *base = m->base ? m->base : m;
	if (m->view) {
		th->view = *m->view; /* shares its sets; th frees nothing of it */
	} else {
		memset(&th->view, 0, sizeof th->view);
		th->view.nfns = m->nfns;
	}
	th->view.thread = t;
	model_view_build(&th->m, base, &th->view, m->thread_passes);
}

void model_thread_free(struct model_thread *th)
{
	model_free(&th->m);
}

/*
 * Note [Short threads]: under a sampling clock a thread's time goes
 * where samples found it, and what no sample placed goes to where it is
 * at its end: its root, since its start routine has returned (clock=wall
 * charges its time since the last sample there; clock=cpu, all of a
 * thread's time that no sample found on a CPU: Note [CPU time where it
 * ran] in src/runtime/sampler.c).  A thread that lives less than the
 * interval is seldom sampled at all, so nearly all its time lands at its
 * root: 300 threads of 0.3 ms each, one after another, left 70-89 % of
 * the run outside every cost centre at 1 ms (tests/progs/shortthreads.c).  Where it went is not known, and guessing
 * (the thread's first function, its last sample's context) would put
 * self time on functions that did not spend it, so the report keeps it
 * at the root and says how much of the root is short threads' and what
 * to do: clock=cycles charges it exactly.  Short: less time in all than
 * two intervals.  Not every thread's root time: a long thread's is time
 * in code that is not instrumented (an OpenMP worker's loop, a pool's
 * wait), which a finer clock would not move.  Not the process's first
 * thread (tid = pid), whose root is the time before and after main.
 */
/* Sums of a hostile file's times stop at the top. */
static uint64_t plus_sat(uint64_t a, uint64_t b)
{
	uint64_t sum;
	return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

struct model_short_threads model_short_threads(const struct ccp_profile *p)
{
	struct model_short_threads s = {0, 0};
	double limit = 2.0 * (double)p->interval_ns * (double)p->ticks_per_sec / 1e9;

	if (p->clock == CCP_CLOCK_CYCLES)
		return s;
	for (uint32_t t = 0; t < p->nthreads; t++) {
		const struct ccp_thread *th = &p->threads[t];
		uint64_t total = 0, root = 0;
		if (th->tid == p->pid)
			continue;
		for (uint32_t k = 0; k < th->ncontexts; k++) {
			const struct ccp_context *x = &th->contexts[k];
			total = plus_sat(total, x->time);
			if (x->len == 0)
				root = plus_sat(root, x->time);
		}
		if ((double)total < limit) {
			s.threads++;
			s.root_time = plus_sat(s.root_time, root);
		}
	}
	return s;
}
