/*
 * symtabs.h - the ELF symbol tables of a profile's modules, each file read
 * at most once and only when asked for: names of functions a crash
 * handler could not name (Note [Names after a crash] in model.c), and
 * `--only-exported` (select.c).  Modules that name one file (a library
 * loaded again after dlclose, or one path spelt two ways) share its table.
 */
#ifndef CCPROF_MODEL_SYMTABS_H
#define CCPROF_MODEL_SYMTABS_H

#include <stdint.h>
#include <sys/types.h>

#include "common/elfsym.h"
#include "format/profile.h"
#include "model/htab.h"

/* One file, as a module names it: the file (device and inode) and the
 * build-id it must have. */
struct symfile {
	dev_t dev;
	ino_t ino;
	const char *build_id; /* the module's, "" for none */
	int loaded;           /* tab is the file's table; else it could not be read */
	struct elfsym_table tab;
};

struct symtabs {
	const struct ccp_profile *prof;
	int32_t *file;          /* per module: an index into files, or SYMTABS_* below */
	struct symfile *files;  /* distinct files, in the order first asked for */
	uint32_t nfiles, cap;
	struct htab by_file;    /* (dev, ino, build-id) -> index into files */
};

#define SYMTABS_UNTRIED (-2)
#define SYMTABS_UNREADABLE (-1)

void symtabs_init(struct symtabs *s, const struct ccp_profile *p);
/* The table of module mi (< prof->nmodules), or NULL if its file cannot
 * be read. */
const struct elfsym_table *symtabs_get(struct symtabs *s, uint32_t mi);
/* The name of function c (its module and offset) in its module's file,
 * or NULL: not a function, no module, a file that cannot be read or has
 * no symbol there. */
const char *symtabs_name(struct symtabs *s, const struct ccp_cc *c);
void symtabs_free(struct symtabs *s);

#endif
