/*
 * threads.c - the per-thread breakdown: one model for each thread of the
 * profile, under the same view as m (selection, focus), built from that
 * thread's own contexts (view.h, model_view.thread).
 */
#include "model/view.h"

#include <string.h>

#include "model/xalloc.h"

void model_threads(struct model *m, unsigned passes)
{
	const struct model *base = m->base ? m->base : m;
	uint32_t n = m->prof->nthreads;
	struct model_view *views = model_calloc(m, n ? n : 1, sizeof *views);
	m->thread_models = xcalloc(n ? n : 1, sizeof *m->thread_models);
	m->nthread_models = n;
	for (uint32_t t = 0; t < n; t++) {
		if (m->view)
			views[t] = *m->view; /* shares its sets; m frees nothing of it */
		else
			views[t].nfns = m->nfns;
		views[t].thread = t;
		model_view_build(&m->thread_models[t], base, &views[t], passes);
	}
}
