/*
 * symtabs.c - module symbol tables, loaded on demand (see symtabs.h).
 */
#include "model/symtabs.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "model/xalloc.h"

/* Whether the file at path was replaced, renamed or changed after the run
 * started at start_ns (its inode's change time is later): then it need
 * not be the file the run loaded.  File times come from the kernel's
 * coarse clock, up to a tick behind the run's: a change within CTIME_SLACK
 * before the start counts as after it. */
#define CTIME_SLACK 20000000u /* ns */
static int changed_since(const char *path, uint64_t start_ns)
{
	struct stat st;
	if (start_ns == 0 || stat(path, &st) != 0)
		return 0;
	uint64_t ctime_ns = (uint64_t)st.st_ctim.tv_sec * 1000000000u + (uint64_t)st.st_ctim.tv_nsec;
	return ctime_ns + CTIME_SLACK > start_ns;
}

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
		/* Only the file that was loaded (Note [Names from the loaded
		 * file] in src/runtime/dump.c): a module replaced since has
		 * other functions at the offsets.  A module recorded without a
		 * build-id is checked only by changed_since. */
		const char *path = s->prof->modules[mi].path, *id = s->prof->modules[mi].build_id;
		if (!(id && id[0]) && changed_since(path ? path : "", s->prof->start_ns))
			s->state[mi] = -1;
		else
			s->state[mi] = elfsym_load_as(path ? path : "", id && id[0] ? id : NULL,
						      &s->tabs[mi]) == 0 ? 1 : -1;
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
