/*
 * symtabs.h - the ELF symbol tables of a profile's modules, each module's
 * file read at most once and only when asked for: names of functions a
 * crash handler could not name (Note [Names after a crash] in model.c),
 * and `--only-exported` (select.c).
 */
#ifndef CCPROF_MODEL_SYMTABS_H
#define CCPROF_MODEL_SYMTABS_H

#include <stdint.h>

#include "common/elfsym.h"
#include "format/profile.h"

struct symtabs {
	const struct ccp_profile *prof;
	struct elfsym_table *tabs; /* per module, allocated at the first get */
	signed char *state;        /* per module: 0 untried, 1 loaded, -1 unreadable */
};

void symtabs_init(struct symtabs *s, const struct ccp_profile *p);
/* The table of module mi (< prof->nmodules), or NULL if its file cannot
 * be read. */
const struct elfsym_table *symtabs_get(struct symtabs *s, uint32_t mi);
void symtabs_free(struct symtabs *s);

#endif
