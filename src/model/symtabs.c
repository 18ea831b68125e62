/*
 * symtabs.c - module symbol tables, loaded on demand (see symtabs.h).
 */
#include "model/symtabs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/xalloc.h"

/* Whether the file st describes was replaced, renamed or changed after
 * the run started at start_ns (its inode's change time is later): then it
 * need not be the file the run loaded.  File times come from the kernel's
 * coarse clock, up to a tick behind the run's: a change within CTIME_SLACK
 * before the start counts as after it. */
#define CTIME_SLACK 20000000u /* ns */
static int changed_since(const struct stat *st, uint64_t start_ns)
{
	if (start_ns == 0)
		return 0;
	uint64_t ctime_ns = (uint64_t)st->st_ctim.tv_sec * 1000000000u + (uint64_t)st->st_ctim.tv_nsec;
	return ctime_ns + CTIME_SLACK > start_ns;
}

void symtabs_init(struct symtabs *s, const struct ccp_profile *p)
{
	*s = (struct symtabs){.prof = p};
}

static uint64_t file_hash(const struct stat *st, const char *build_id)
{
	return htab_mix64((uint64_t)st->st_dev ^ htab_mix64((uint64_t)st->st_ino)) ^
	       htab_hash_str(build_id);
}

/* A new entry of files for the file st, loaded from path. */
static int32_t add_file(struct symtabs *s, const char *path, const struct stat *st,
			const char *build_id)
{
	if (s->nfiles == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->files = xrealloc(s->files, s->cap, sizeof *s->files);
	}
	struct symfile *f = &s->files[s->nfiles];
	*f = (struct symfile){.dev = st->st_dev, .ino = st->st_ino, .build_id = build_id};
	f->loaded = elfsym_load_as(path, build_id[0] ? build_id : NULL, &f->tab) == 0;
	return (int32_t)s->nfiles++;
}

/* The index into files of module mi's file, loading it if no module
 * before named the same file with the same build-id: 2,000 modules of one
 * library once loaded 2,000 copies of its table (981 MB for a 24 KB
 * profile).  The file is known by its device and inode, not its path,
 * which can be spelt many ways.  stat and the load's open are two looks
 * at the path; a file replaced between them is caught by the build-id
 * when the module has one, as before. */
static int32_t file_of(struct symtabs *s, uint32_t mi)
{
	const char *path = s->prof->modules[mi].path, *id = s->prof->modules[mi].build_id;
	struct stat st;
	path = path ? path : "";
	id = id ? id : "";
	/* Only the file that was loaded (Note [Names from the loaded file]
	 * in src/runtime/dump.c): a module replaced since has other functions
	 * at the offsets.  A module recorded without a build-id is checked
	 * only by changed_since. */
	if (stat(path, &st) != 0 || (!id[0] && changed_since(&st, s->prof->start_ns)))
		return SYMTABS_UNREADABLE;
	uint64_t h = file_hash(&st, id);
	size_t i = htab_first(&s->by_file, h);
	for (; s->by_file.slot[i].item; i = htab_next(&s->by_file, i)) {
		const struct symfile *f = &s->files[s->by_file.slot[i].item - 1];
		if (s->by_file.slot[i].hash == h && f->dev == st.st_dev && f->ino == st.st_ino &&
		    strcmp(f->build_id, id) == 0)
			return (int32_t)(s->by_file.slot[i].item - 1);
	}
	int32_t k = add_file(s, path, &st, id);
	htab_put(&s->by_file, i, h, (uint32_t)k);
	return k;
}

const char *symtabs_name(struct symtabs *s, const struct ccp_cc *c)
{
	if (c->kind != CCP_CC_FUNCTION || c->module < 0 || (uint32_t)c->module >= s->prof->nmodules)
		return NULL;
	const struct elfsym_table *tab = symtabs_get(s, (uint32_t)c->module);
	const char *name = tab ? elfsym_find(tab, c->offset) : NULL;
	return name && name[0] ? name : NULL;
}

const struct elfsym_table *symtabs_get(struct symtabs *s, uint32_t mi)
{
	if (!s->file) {
		uint32_t n = s->prof->nmodules ? s->prof->nmodules : 1;
		s->file = xnmalloc(n, sizeof *s->file);
		for (uint32_t i = 0; i < n; i++)
			s->file[i] = SYMTABS_UNTRIED;
		htab_init(&s->by_file, 16);
	}
	if (s->file[mi] == SYMTABS_UNTRIED)
		s->file[mi] = file_of(s, mi);
	const struct symfile *f = s->file[mi] >= 0 ? &s->files[s->file[mi]] : NULL;
	return f && f->loaded ? &f->tab : NULL;
}

void symtabs_free(struct symtabs *s)
{
	for (uint32_t i = 0; i < s->nfiles; i++)
		if (s->files[i].loaded)
			elfsym_free(&s->files[i].tab);
	if (s->file)
		htab_free(&s->by_file);
	free(s->files);
	free(s->file);
	symtabs_init(s, s->prof);
}
