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
