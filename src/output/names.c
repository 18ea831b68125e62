/*
 * names.c - escaped names, one pool per report (see names.h).
 */
#include "output/names.h"

#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"

void names_init(struct names *nm, const struct model *m, const struct escape_table *t, int quoted)
{
	size_t cap = 1024, used = 0;
	nm->n = m->nfns;
	nm->pool = xmalloc(cap);
	nm->off = xnmalloc((size_t)m->nfns + 1, sizeof *nm->off);
	nm->width = xnmalloc(m->nfns ? m->nfns : 1, sizeof *nm->width);
	for (uint32_t cc = 0; cc < m->nfns; cc++) {
		const char *s = m->fns[cc].name;
		size_t len = strlen(s), need = ESCAPE_MAX(len) + 2;
		if (cap - used < need) {
			cap = (cap + need) * 2;
			nm->pool = xrealloc(nm->pool, cap, 1);
		}
		nm->off[cc] = used;
		if (quoted)
			nm->pool[used++] = '"';
		used += escape_mem(nm->pool + used, t, s, len);
		if (quoted)
			nm->pool[used++] = '"';
		size_t w = escape_text_width(s);
		nm->width[cc] = w < UINT32_MAX ? (uint32_t)w : UINT32_MAX;
	}
	nm->off[m->nfns] = used;
}

void names_free(struct names *nm)
{
	free(nm->pool);
	free(nm->off);
	free(nm->width);
	memset(nm, 0, sizeof *nm);
}
