/*
 * hot.c - the hot path: the expensive arm of the stack tree (Morgan &
 * Jarvis's "most expensive part of the code").
 *
 * From the root, follow the child with the largest inherited cost while
 * it holds at least half of its parent's: below that point no single
 * stack explains most of the time, and the arm stops.  The most expensive
 * single context is ctx_by_time[0] (MODEL_CONTEXTS); the writers show it
 * beside the arm.
 */
#include "model/model.h"

#include <stdlib.h>

#include "model/xalloc.h"

void model_hot(struct model *m)
{
	m->hot_done = 1;
	if (!m->nodes)
		return;
	m->arm = model_calloc(m, m->nnodes, sizeof *m->arm);
	m->narm = 0;
	/* Children are linked most inherited first (tree.c). */
	for (uint32_t k = 0;;) {
		uint32_t c = m->nodes[k].first_child;
		if (c == MODEL_NONE || m->nodes[c].inherited == 0 ||
		    m->nodes[c].inherited < m->nodes[k].inherited - m->nodes[c].inherited)
			break;
		m->arm[m->narm++] = c;
		k = c;
	}
}
