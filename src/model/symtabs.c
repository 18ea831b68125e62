/*
 * symtabs.c - module symbol tables, loaded on demand (see symtabs.h).
 */
#include "model/symtabs.h"

#include <stdlib.h>

#include "model/xalloc.h"

void symtabs_init(struct symtabs *s, const struct ccp_profile *p)
{
	*s = (struct symtabs){.prof = p};
}

const struct elfsym_table *symtabs_get(struct symtabs *s, uint32_t mi)
{
	if (!s->tabs) {
		uint32_t n = s->prof->nmodules ? s->prof->nmodules : 1;
		s->tabs = xcalloc(n, sizeof *s->tabs);
		s->state = xcalloc(n, sizeof *s->state);
	}
	if (s->state[mi] == 0) {
		const char *path = s->prof->modules[mi].path;
		s->state[mi] = elfsym_load(path ? path : "", &s->tabs[mi]) == 0 ? 1 : -1;
	}
	return s->state[mi] > 0 ? &s->tabs[mi] : NULL;
}

void symtabs_free(struct symtabs *s)
{
	for (uint32_t i = 0; s->tabs && i < s->prof->nmodules; i++)
		if (s->state[i] > 0)
			elfsym_free(&s->tabs[i]);
	free(s->tabs);
	free(s->state);
	s->tabs = NULL;
	s->state = NULL;
}
