/*
 * sources.c - file and line of each profiled function, from DWARF (libdw).
 *
 * Note [Source lines]: a function cost centre is module + offset (the
 * address less the module's load bias, so the ELF virtual address).  For
 * each module that has functions without a file, we open the module file
 * the profile names, check that it is the same build (its GNU build-id
 * equals the one the runtime read from the loaded image: a rebuilt binary
 * would give plausible but wrong lines, so a module without a build-id is
 * skipped too), and find the subprogram DIE at the function's entry
 * (Note [One walk per unit]): its DW_AT_decl_file and DW_AT_decl_line, following
 * DW_AT_specification and DW_AT_abstract_origin, are where the function
 * is defined, as GHC's src_loc and KCacheGrind's fl= expect.  Without a
 * DIE (no .debug_info, only a line table) the line of the entry address
 * is the next best.  Relative names are made absolute with the compile
 * directory, so that KCacheGrind can open the file.
 *
 * Module files and their separate debug files are opened by dwarfmod.c
 * (Note [Debug files] there).
 * A module file that is missing, not a regular file, another build or
 * without debug information leaves its functions as they were: file ""
 * and line 0.
 */
#include "model/sources.h"

#ifdef CCPROF_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/arena.h"
#include "model/dwarfmod.h"
#include "model/htab.h"
#include "model/xalloc.h"

const char *sources_library(void)
{
	static char name[32];
	if (!name[0])
		snprintf(name, sizeof name, "libdw %s", dwfl_version(NULL));
	return name;
}

/* The compile directory of cu, or NULL.  dwarf_attr_integrate: a split
 * unit (-gsplit-dwarf) has it only in its skeleton. */
static const char *comp_dir(Dwarf_Die *cu)
{
	Dwarf_Attribute attr;
	return cu ? dwarf_formstring(dwarf_attr_integrate(cu, DW_AT_comp_dir, &attr)) : NULL;
}

/* file, or dir/file when file is relative, in the profile's arena. */
static const char *absolute(struct ccp_arena *a, const char *dir, const char *file)
{
	if (file[0] == '/' || dir == NULL || !dir[0])
		return ccp_arena_strdup(a, file);
	size_t nd = strlen(dir), nf = strlen(file);
	char *s = ccp_arena_alloc(a, nd + 1 + nf + 1);
	if (s == NULL)
		return NULL;
	memcpy(s, dir, nd);
	s[nd] = '/';
	memcpy(s + nd + 1, file, nf + 1);
	return s;
}

/* The file of die's DW_AT_decl_file, following DW_AT_abstract_origin and
 * DW_AT_specification to the DIE that has it.  Not dwarf_decl_file: in
 * libdw 0.188 it takes index 0 for "no file", but DWARF 5 numbers files
 * from 0 and clang declares every function of the unit's own source file
 * with index 0.  *cu is the unit whose file table names it: a relative
 * name is relative to that unit's compile directory, which for LTO is not
 * that of the unit that holds the code (Note [LTO units]). */
static const char *decl_file(Dwarf_Die *die, Dwarf_Die *cu)
{
	Dwarf_Die origin;
	Dwarf_Attribute attr;
	Dwarf_Word idx;
	Dwarf_Files *files;
	size_t nfiles;

	for (int hops = 0; !dwarf_hasattr(die, DW_AT_decl_file); hops++) {
		Dwarf_Attribute *ref = dwarf_attr(die, DW_AT_abstract_origin, &attr);
		if (ref == NULL)
			ref = dwarf_attr(die, DW_AT_specification, &attr);
		if (ref == NULL || hops == 8 || dwarf_formref_die(ref, &origin) == NULL)
			return NULL;
		die = &origin;
	}
	if (dwarf_formudata(dwarf_attr(die, DW_AT_decl_file, &attr), &idx) != 0 ||
	    dwarf_diecu(die, cu, NULL, NULL) == NULL ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || idx >= nfiles)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/*
 * Note [One walk per unit]: the subprogram DIE of each wanted function is
 * found in one walk of the DIE tree of each unit whose address ranges
 * hold at least one wanted entry address, the wanted addresses sorted so
 * that a range finds its functions by binary search.  Not with
 * dwarf_getscopes: it prunes every DIE without addresses, so it never
 * looks inside a DW_TAG_namespace, where clang defines the functions of
 * a namespace (all of std::); and it walks the unit from its start for
 * each address.  Nor unit by unit for each address (.debug_aranges,
 * which clang does not write, else dwarf_haspc on each unit): 20,000
 * functions in 2,000 files took 2 s.
 *
 * A profiled address is a function's entry, so its subprogram is the
 * first whose code starts there (one of its ranges, for a function split
 * into hot and cold parts); other ranges that hold it belong to
 * functions the linker discarded (placed at 0) or to enclosing ones.  An
 * address that no subprogram starts at gets the line of its instruction,
 * from the line table of the first unit that holds it.  The work stays
 * near linear whatever the file: a range costs a binary search and a
 * unit's ranges mark each address once (free_from), so that ranges that
 * overlap, as in a crafted file where every DIE covers every address,
 * cannot make it quadratic.
 */
struct want {
	Dwarf_Addr addr; /* the function's entry, as a DWARF address */
	uint32_t cc;
	int found;       /* die is the subprogram that starts at addr */
	Dwarf_Die die;
	int has_unit;    /* unit is the unit of die, else the first that holds addr */
	Dwarf_Die unit;  /* for its line table and compile directory */
};

struct wants {
	struct want *v; /* sorted by addr */
	size_t n;
	size_t *next;   /* next[i]: a later want, on the way to the next without a unit */
};

static int want_order(const void *x, const void *y)
{
	const struct want *a = x, *b = y;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* The first of w->v at or above addr. */
static size_t first_at(const struct wants *w, Dwarf_Addr addr)
{
	size_t lo = 0, hi = w->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w->v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first of w->v from i on without a unit, or w->n (path halving). */
static size_t free_from(struct wants *w, size_t i)
{
	while (w->next[i] != i) {
		w->next[i] = w->next[w->next[i]];
		i = w->next[i];
	}
	return i;
}

/* The wanted addresses in unit's ranges that have no unit get this one.
 * Does it hold any wanted address? */
static int claim_unit(struct wants *w, Dwarf_Die *unit)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int holds = 0;
	while ((off = dwarf_ranges(unit, off, &base, &lo, &hi)) > 0) {
		size_t i = first_at(w, lo);
		holds |= i < w->n && w->v[i].addr < hi;
		for (i = free_from(w, i); i < w->n && w->v[i].addr < hi; i = free_from(w, i)) {
			w->v[i].has_unit = 1;
			w->v[i].unit = *unit;
			w->next[i] = i + 1;
		}
	}
	return holds;
}

/* die is the subprogram of the wanted addresses its ranges start at,
 * unless they have one (Note [One walk per unit]).  Only the first of
 * equal addresses is marked (share_equal copies it to the others). */
static void claim_entry(struct wants *w, Dwarf_Die *die, Dwarf_Die *unit)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		size_t i = first_at(w, lo);
		if (i < w->n && w->v[i].addr == lo && lo < hi && !w->v[i].found) {
			w->v[i].found = 1;
			w->v[i].die = *die;
			w->v[i].has_unit = 1;
			w->v[i].unit = *unit;
		}
	}
}

/* DIEs under which a subprogram may be defined: namespaces (clang puts
 * the definitions there), types (local classes), functions and blocks
 * (GNU C nested functions). */
static int holds_functions(int tag)
{
	switch (tag) {
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_subprogram:
	case DW_TAG_lexical_block:
		return 1;
	}
	return 0;
}

/* Deeper than real nesting, shallow enough that a crafted file cannot
 * exhaust the stack. */
#define MAX_NESTING 256

static void walk(struct wants *w, Dwarf_Die *parent, Dwarf_Die *unit, unsigned depth)
{
	Dwarf_Die die;
	if (depth > MAX_NESTING || dwarf_child(parent, &die) != 0)
		return;
	do {
		int tag = dwarf_tag(&die);
		if (tag == DW_TAG_subprogram)
			claim_entry(w, &die, unit);
		if (holds_functions(tag))
			walk(w, &die, unit, depth + 1);
	} while (dwarf_siblingof(&die, &die) == 0);
}

/* Has a skeleton of this split unit been seen?  Marks it seen.  By
 * dwo_id, which libdw matches the split unit with: asking for the split
 * unit of every skeleton makes libdw open and parse the .dwo again for
 * each, so a file whose 53-byte skeleton is repeated 2,000 times took
 * 612 MB and 3.4 s (6 MB and 0.02 s read once).  Skipping repeats loses
 * nothing: their split unit has been walked. */
static int seen_split(struct htab *seen, Dwarf_CU *cu)
{
	uint64_t id;
	if (dwarf_cu_info(cu, NULL, NULL, NULL, NULL, &id, NULL, NULL) != 0)
		return 1;
	size_t i = htab_slot_u64(seen, id);
	if (seen->slot[i].item)
		return 1;
	htab_put(seen, i, htab_mix64(id), 0);
	return 0;
}

/* Find the subprogram and unit of each of w (Note [One walk per unit]);
 * a skeleton unit's functions are in its split unit, if libdw can open
 * its .dwo file (dwarfmod_dwo_safe in dwarfmod.c), walked once whatever
 * the number of skeletons naming it. */
static void scan_units(struct dwarf_module *m, struct wants *w)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Half version;
	uint8_t type;
	Dwarf_Die unit, split;
	struct htab seen;
	htab_init(&seen, 16);
	while (dwarf_get_units(m->dw, cu, &cu, &version, &type, &unit, NULL) == 0) {
		if (type != DW_UT_compile && type != DW_UT_skeleton)
			continue;
		if (!claim_unit(w, &unit))
			continue;
		if (type == DW_UT_compile) {
			walk(w, &unit, &unit, 0);
			continue;
		}
		/* When libdw cannot open the .dwo, it gives a zeroed split. */
		if (!seen_split(&seen, cu) && dwarfmod_dwo_safe(&unit, m->dir) &&
		    dwarf_cu_info(cu, NULL, NULL, NULL, &split, NULL, NULL, NULL) == 0 &&
		    split.addr != NULL)
			walk(w, &split, &unit, 0);
	}
	htab_free(&seen);
}

/*
 * Note [LTO units]: with -flto, GCC puts the code of every function in an
 * <artificial> unit whose compile directory is where the program was
 * linked; its subprogram DIEs only point (DW_AT_abstract_origin) at DIEs
 * in the units of the compile steps, whose file tables and compile
 * directories name the sources.  So a declared file is made absolute
 * with the directory of the unit that declares it, and only the line of
 * an instruction with that of the unit that holds the code.
 */

/* Where x's function is defined: its subprogram's declaration, else the
 * line of its first instruction.  0 if neither is known. */
static int locate(struct ccp_arena *a, struct want *x, const char **file, uint32_t *line)
{
	const char *f = NULL, *dir = NULL;
	Dwarf_Die cu;
	int l = 0;

	if (x->found) {
		f = decl_file(&x->die, &cu);
		if (f == NULL || dwarf_decl_line(&x->die, &l) != 0)
			f = NULL, l = 0;
		else
			dir = comp_dir(&cu);
	}
	if ((f == NULL || l <= 0) && x->has_unit) {
		Dwarf_Line *dl = dwarf_getsrc_die(&x->unit, x->addr);
		f = dl ? dwarf_linesrc(dl, NULL, NULL) : NULL;
		if (f == NULL || dwarf_lineno(dl, &l) != 0)
			f = NULL, l = 0;
		dir = NULL;
	}
	if (f == NULL || !f[0] || l <= 0)
		return 0;
	if (dir == NULL && x->has_unit)
		dir = comp_dir(&x->unit);
	*file = absolute(a, dir, f);
	*line = (uint32_t)l;
	return *file != NULL;
}

static int wants_source(const struct ccp_profile *p, const struct ccp_cc *c)
{
	return c->kind == CCP_CC_FUNCTION && !ccp_cc_has_source(c) && c->module >= 0 &&
	       (uint32_t)c->module < p->nmodules;
}

/* The entry addresses of the functions ccs[0..n) of p in module file m,
 * sorted (Note [One walk per unit]); freed with free_wants. */
static struct wants make_wants(const struct ccp_profile *p, const struct dwarf_module *m,
			       const uint32_t *ccs, uint32_t n)
{
	struct wants w = {xcalloc(n, sizeof *w.v), n, xnmalloc((size_t)n + 1, sizeof *w.next)};
	for (uint32_t i = 0; i < n; i++) {
		w.v[i].addr = p->ccs[ccs[i]].offset + m->bias - m->dw_bias;
		w.v[i].cc = ccs[i];
	}
	for (uint32_t i = 0; i <= n; i++)
		w.next[i] = i;
	qsort(w.v, n, sizeof *w.v, want_order);
	return w;
}

static void free_wants(struct wants *w)
{
	free(w->next);
	free(w->v);
}

/* claim_entry marks only the first of equal addresses (cost centres of
 * one function: its module listed twice, as after a dlclose and a
 * dlopen); the others get its subprogram. */
static void share_equal(struct wants *w)
{
	for (size_t i = 1; i < w->n; i++)
		if (w->v[i].addr == w->v[i - 1].addr && w->v[i - 1].found) {
			w->v[i].found = 1;
			w->v[i].die = w->v[i - 1].die;
			w->v[i].has_unit = 1;
			w->v[i].unit = w->v[i - 1].unit;
		}
}

/* The functions ccs[0..n) of the file of module mi, all wanting a source. */
/*
 * Note [Sources across profiles]: record resolves every profile the run
 * left (Note [Which profile] in cmd_record.c), and a forking program
 * leaves one per process: a shell's test suite, thousands.  Each opened
 * and walked the same binary again, 7.6 ms a profile for bash, which made
 * record's end of 1,600 subshells take 15.9 s instead of 3.7 (helper-107).
 * So what a module's walk found (a file and line, or nothing) is kept for
 * the tool's process, by the module's build-id and the function's
 * offset, and a profile whose functions are all known opens no file.  A
 * build-id names one build, so the answer cannot change; a module that
 * could not be opened is not remembered (it may appear).
 */
struct known_source {
	char *build_id;
	uint64_t offset;
	char *file;        /* NULL: the walk found none */
	uint32_t line;
};

static struct known_source *known;
static uint32_t nknown, known_cap;
static struct htab known_index;

static uint64_t known_hash(const char *build_id, uint64_t offset)
{
	return htab_hash_str(build_id) ^ htab_mix64(offset);
}

static struct known_source *known_find(const char *build_id, uint64_t offset)
{
	uint64_t h = known_hash(build_id, offset);
	if (known == NULL)
		return NULL;
	for (size_t i = htab_first(&known_index, h); known_index.slot[i].item;
	     i = htab_next(&known_index, i)) {
		struct known_source *k = &known[known_index.slot[i].item - 1];
		if (known_index.slot[i].hash == h && k->offset == offset &&
		    strcmp(k->build_id, build_id) == 0)
			return k;
	}
	return NULL;
}

static void known_add(const char *build_id, uint64_t offset, const char *file, uint32_t line)
{
	uint64_t h = known_hash(build_id, offset);
	if (known == NULL)
		htab_init(&known_index, 64);
	else if (known_find(build_id, offset))
		return;
	if (nknown == known_cap) {
		known_cap = known_cap ? 2 * known_cap : 64;
		known = xrealloc(known, known_cap, sizeof *known);
	}
	known[nknown] = (struct known_source){xstrdup(build_id), offset,
					       file ? xstrdup(file) : NULL, line};
	size_t i = htab_first(&known_index, h);
	while (known_index.slot[i].item)
		i = htab_next(&known_index, i);
	htab_put(&known_index, i, h, nknown++);
}

/* The cost centres of ccs[0..n) that are known take their answer; the
 * others are moved to the front of ccs, their number returned. */
static uint32_t take_known(struct ccp_profile *p, const char *build_id, uint32_t *ccs, uint32_t n,
			   unsigned *filled)
{
	uint32_t unknown = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct ccp_cc *c = &p->ccs[ccs[i]];
		const struct known_source *k = build_id[0] ? known_find(build_id, c->offset) : NULL;
		if (k == NULL) {
			ccs[unknown++] = ccs[i];
		} else if (k->file) {
			c->file = ccp_arena_strdup(p->arena, k->file);
			c->line = k->line;
			(*filled)++;
		}
	}
	return unknown;
}

static unsigned resolve_module(struct ccp_profile *p, uint32_t mi, uint32_t *ccs, uint32_t n)
{
	const struct ccp_module *pm = &p->modules[mi];
	const char *build_id = pm->build_id ? pm->build_id : "";
	struct dwarf_module m;
	unsigned filled = 0;
	if ((n = take_known(p, build_id, ccs, n, &filled)) == 0 ||
	    !dwarfmod_open(pm->path ? pm->path : "", build_id, &m))
		return filled;
	struct wants w = make_wants(p, &m, ccs, n);
	scan_units(&m, &w);
	share_equal(&w);
	for (uint32_t i = 0; i < n; i++) {
		struct ccp_cc *c = &p->ccs[w.v[i].cc];
		int found = locate(p->arena, &w.v[i], &c->file, &c->line);
		filled += (unsigned)found;
		if (build_id[0]) /* Note [Sources across profiles] */
			known_add(build_id, c->offset, found ? c->file : NULL, found ? c->line : 0);
	}
	free_wants(&w);
	dwarfmod_close(&m);
	return filled;
}

struct named {
	const char *path, *build_id;
	uint32_t mi;
	dev_t dev; /* of the file at path, for same_file_order */
	ino_t ino;
};

static int same_name(const struct named *a, const struct named *b)
{
	return strcmp(a->path, b->path) == 0 && strcmp(a->build_id, b->build_id) == 0;
}

static int named_order(const void *x, const void *y)
{
	const struct named *a = x, *b = y;
	int c = strcmp(a->path, b->path);
	if (c == 0)
		c = strcmp(a->build_id, b->build_id);
	return c ? c : (a->mi > b->mi) - (a->mi < b->mi);
}

static int same_file(const struct named *a, const struct named *b)
{
	return a->dev == b->dev && a->ino == b->ino && strcmp(a->build_id, b->build_id) == 0;
}

static int file_order(const void *x, const void *y)
{
	const struct named *a = x, *b = y;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	int c = strcmp(a->build_id, b->build_id);
	return c ? c : (a->mi > b->mi) - (a->mi < b->mi);
}

/* same[mi] for the first of each run of equal v[0..n) (by eq, v sorted)
 * is that of the run's first: one module stands for the run. */
static void join_runs(const struct named *v, uint32_t n, uint32_t *same,
		      int (*eq)(const struct named *, const struct named *))
{
	for (uint32_t i = 1; i < n; i++)
		if (eq(&v[i - 1], &v[i]))
			same[v[i].mi] = same[v[i - 1].mi];
}

/* same[mi]: the first module with the file and build-id of mi, so that a
 * file listed again (a library loaded again at another address, or a
 * made-up profile that names one file a million times) is read once.
 * Equal paths first, then the files at the distinct paths by device and
 * inode: "//x", "/./x" and a symlink to x are one file, which a profile
 * could otherwise name in 5,000 spellings to have its DWARF read 5,000
 * times.  stat, not open: a FIFO must not block (dwarfmod_open opens
 * only regular files); a path it fails on is a file of its own. */
static uint32_t *same_files(const struct ccp_profile *p)
{
	struct named *v = xnmalloc(p->nmodules, sizeof *v);
	uint32_t *same = xnmalloc(p->nmodules, sizeof *same);
	uint32_t n = 0;
	for (uint32_t i = 0; i < p->nmodules; i++) {
		const struct ccp_module *m = &p->modules[i];
		v[i] = (struct named){m->path ? m->path : "", m->build_id ? m->build_id : "", i, 0, 0};
		same[i] = i;
	}
	qsort(v, p->nmodules, sizeof *v, named_order);
	join_runs(v, p->nmodules, same, same_name);
	for (uint32_t i = 0; i < p->nmodules; i++) {
		struct stat st;
		if (same[v[i].mi] == v[i].mi && v[i].path[0] && stat(v[i].path, &st) == 0) {
			v[n] = v[i];
			v[n].dev = st.st_dev;
			v[n++].ino = st.st_ino;
		}
	}
	qsort(v, n, sizeof *v, file_order);
	join_runs(v, n, same, same_file);
	for (uint32_t i = 0; i < p->nmodules; i++)
		same[i] = same[same[i]];
	free(v);
	return same;
}

unsigned sources_resolve(struct ccp_profile *p)
{
	unsigned filled = 0;
	if (p->arena == NULL || p->nmodules == 0)
		return 0;
	/* The cost centres wanting a source, grouped by module file (a
	 * counting sort), so that each file is opened once. */
	uint32_t *same = same_files(p);
	uint32_t *start = xcalloc((size_t)p->nmodules + 1, sizeof *start);
	uint32_t *next = xcalloc(p->nmodules, sizeof *next);
	uint32_t *order = xcalloc((size_t)p->nccs + 1, sizeof *order);
	for (uint32_t i = 0; i < p->nccs; i++)
		if (wants_source(p, &p->ccs[i]))
			start[same[p->ccs[i].module] + 1]++;
	for (uint32_t mi = 0; mi < p->nmodules; mi++)
		start[mi + 1] += start[mi];
	for (uint32_t i = 0; i < p->nccs; i++)
		if (wants_source(p, &p->ccs[i])) {
			uint32_t mi = same[p->ccs[i].module];
			order[start[mi] + next[mi]++] = i;
		}
	for (uint32_t mi = 0; mi < p->nmodules; mi++)
		if (start[mi + 1] > start[mi])
			filled += resolve_module(p, mi, order + start[mi], start[mi + 1] - start[mi]);
	free(same);
	free(next);
	free(start);
	free(order);
	return filled;
}

#else /* !CCPROF_HAVE_LIBDW */

const char *sources_library(void)
{
	return NULL;
}

unsigned sources_resolve(struct ccp_profile *p)
{
	(void)p;
	return 0;
}

#endif
