/*
 * names.c - escaped names, one pool per report (see names.h).
 */
#include "output/names.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"

/* The ways of wrapping a name: names_init's bare and quoted, and the
 * JSON objects of names_init_json. */
enum names_form { NAMES_BARE, NAMES_QUOTED, NAMES_OBJECT };

#define JSON_NAME "\"name\":"
#define JSON_ID ",\"id\":"

static size_t put_str(char *out, const char *s)
{
	size_t n = strlen(s);
	memcpy(out, s, n);
	return n;
}

/* One entry: open "name":"<escaped>","id":<cc> close for NAMES_OBJECT. */
static size_t name_entry(char *out, const struct escape_table *t, enum names_form form,
			 const char *name, size_t len, const char *suffix, uint32_t cc,
			 const char *open, const char *close)
{
	size_t used = 0;
	if (form == NAMES_OBJECT) {
		used += put_str(out, open);
		used += put_str(out + used, JSON_NAME);
	}
	if (form != NAMES_BARE)
		out[used++] = '"';
	used += escape_mem(out + used, t, name, len);
	used += put_str(out + used, suffix);
	if (form != NAMES_BARE)
		out[used++] = '"';
	if (form == NAMES_OBJECT) {
		used += put_str(out + used, JSON_ID);
		used += (size_t)sprintf(out + used, "%" PRIu32, cc);
		used += put_str(out + used, close);
	}
	return used;
}

/* For qsort_r of function numbers by name, the model its argument (GNU
 * qsort_r, which the Makefile's _GNU_SOURCE declares: the comparators
 * read no static, so two reports may sort at once).  The model is passed
 * as void * without const, as qsort_r takes it; they only read it. */
static int by_name(const void *a, const void *b, void *arg)
{
	const struct model *m = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(m->fns[x].name, m->fns[y].name);
	return c ? c : (x > y) - (x < y);
}

/* How much of its module a function's label names: as little as tells
 * it from the others of its name (qualify_group). */
enum qualifier_tier {
	BY_BASE,          /* "name [prog]" */
	BY_OFFSET,        /* "name [prog+0x1169]": a module of that base name */
	BY_PATH,          /* "name [/opt/a/prog+0x1169]": its offset in one too */
	BY_BUILD_ID,      /* "name [prog+0x1169@3f2a9c1d04e7]": and its path */
	BY_PATH_BUILD_ID, /* "name [/opt/a/prog+0x1169@3f2a...]": and its path,
			   * where others at that offset have other paths */
};

/* The digits of a build-id a label shows: enough to tell two builds of
 * one file apart. */
#define LABEL_BUILD_ID_DIGITS 12

/* A function's label: its name and as much of its module as tier says. */
static char *qualified(const struct model *m, uint32_t cc, enum qualifier_tier tier)
{
	const char *path = model_module_path(m, cc);
	const char *mod = tier == BY_PATH || tier == BY_PATH_BUILD_ID ? path : model_basename(path);
	const char *name = m->fns[cc].name;
	size_t n = strlen(name) + strlen(mod) + 60;
	char *q = xmalloc(n);
	unsigned long long off = (unsigned long long)m->prof->ccs[cc].offset;
	if (!mod[0])
		mod = "?";
	if (tier == BY_BASE)
		snprintf(q, n, "%s [%s]", name, mod);
	else if (tier == BY_BUILD_ID || tier == BY_PATH_BUILD_ID)
		snprintf(q, n, "%s [%s+0x%llx@%.*s]", name, mod, off, LABEL_BUILD_ID_DIGITS,
			 model_module_build_id(m, cc));
	else
		snprintf(q, n, "%s [%s+0x%llx]", name, mod, off);
	return q;
}

/* For qsort_r of a group's members by module base name, offset, path,
 * build-id, then number, the model its argument (as by_name): those that
 * a label must tell apart by more end up neighbours. */
static int by_module(const void *a, const void *b, void *arg)
{
	const struct model *m = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t ox = m->prof->ccs[x].offset, oy = m->prof->ccs[y].offset;
	int c = strcmp(model_basename(model_module_path(m, x)),
		       model_basename(model_module_path(m, y)));
	if (c)
		return c;
	if (ox != oy)
		return ox < oy ? -1 : 1;
	c = strcmp(model_module_path(m, x), model_module_path(m, y));
	if (c)
		return c;
	c = strcmp(model_module_build_id(m, x), model_module_build_id(m, y));
	return c ? c : (x > y) - (x < y);
}

static int same_base(const struct model *m, uint32_t x, uint32_t y)
{
	return !strcmp(model_basename(model_module_path(m, x)),
		       model_basename(model_module_path(m, y)));
}

static int same_offset(const struct model *m, uint32_t x, uint32_t y)
{
	return same_base(m, x, y) && m->prof->ccs[x].offset == m->prof->ccs[y].offset;
}

static int same_path(const struct model *m, uint32_t x, uint32_t y)
{
	return same_offset(m, x, y) &&
	       !strcmp(model_module_path(m, x), model_module_path(m, y));
}

/* The end of the run of members from by[i] on that alike finds like
 * by[i] (by_module sorts those together). */
static size_t run_end(const struct model *m, const uint32_t *by, size_t i, size_t n,
		      int (*alike)(const struct model *, uint32_t, uint32_t))
{
	size_t j = i + 1;
	while (j < n && alike(m, by[i], by[j]))
		j++;
	return j;
}

/* The labels of the members [a, b) that share a base name and an offset,
 * where others share the base name: the offset if alone; the path if
 * alone in its path; else the build-id too, with the path if others at
 * that offset have other paths (a label's pattern then names only its
 * own), and with no build-id known, the path if that tells it apart at
 * all (two loads of one path at one offset keep one label). */
static void qualify_offset_run(const struct model *m, const uint32_t *by, size_t a, size_t b,
			       char **display)
{
	int paths = strcmp(model_module_path(m, by[a]), model_module_path(m, by[b - 1])) != 0;
	for (size_t c = a, d; c < b; c = d) {
		d = run_end(m, by, c, b, same_path);
		for (size_t k = c; k < d; k++) {
			enum qualifier_tier t = paths ? BY_PATH_BUILD_ID : BY_BUILD_ID;
			if (b - a == 1)
				t = BY_OFFSET;
			else if (d - c == 1)
				t = BY_PATH;
			else if (!model_module_build_id(m, by[k])[0])
				t = paths ? BY_PATH : BY_OFFSET;
			display[by[k]] = qualified(m, by[k], t);
		}
	}
}

/* The display names of a group of n functions of one name: each with its
 * module's base name, and more where another of the group would get the
 * same label (qualify_offset_run).  The members sorted by module
 * (by_module), those are neighbours: a group can be every function of
 * the profile, so no pairwise test.  A member alone in its module keeps
 * the short label whatever the others share. */
static void qualify_group(const struct model *m, const uint32_t *g, size_t n, char **display)
{
	uint32_t *by = xnmalloc(n, sizeof *by);
	memcpy(by, g, n * sizeof *by);
	qsort_r(by, n, sizeof *by, by_module, (void *)m);
	for (size_t i = 0, j; i < n; i = j) {
		j = run_end(m, by, i, n, same_base);
		if (j - i == 1)
			display[by[i]] = qualified(m, by[i], BY_BASE);
		else
			for (size_t a = i, b; a < j; a = b) {
				b = run_end(m, by, a, j, same_offset);
				qualify_offset_run(m, by, a, b, display);
			}
	}
	free(by);
}

/*
 * Note [Names that collide]: two functions shown in one report may have
 * one name (a static function in two files, the same entry point in two
 * plugins).  The text report then adds the module's base name to each,
 * and the offset to those whose base name another of the name shares:
 * "plugin_entry [libalpha.so]"; "helper [prog+0x1169]" and
 * "helper [prog+0x1211]" beside "helper [libl.so]" (the shortest label
 * that tells them apart: the library's once took the offset too).
 * Only the display changes: diff and the other formats see the plain
 * name (JSON gives the module beside it), and a pattern may be either
 * (Note [Qualified names in patterns] in select.c); but for those whose
 * readers take one name for one function: callgrind (callgrind_annotate
 * added zstd's two static MEM_read32 up as one), pprof and folded stacks
 * (flamegraph.pl).  NULL where nothing
 * collides; else one string or NULL per function, for names_free_display.
 */
static char **display_names(const struct model *m)
{
	uint32_t n = 0;
	uint32_t *idx = xnmalloc(m->nfns ? m->nfns : 1, sizeof *idx);
	char **display = NULL;
	for (uint32_t cc = 0; cc < m->nfns; cc++)
		if (m->fns[cc].seen && m->prof->ccs[cc].kind == CCP_CC_FUNCTION)
			idx[n++] = cc;
	qsort_r(idx, n, sizeof *idx, by_name, (void *)m);
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(m->fns[idx[i]].name, m->fns[idx[j]].name); j++)
			;
		if (j - i < 2)
			continue;
		if (!display)
			display = xcalloc(m->nfns, sizeof *display);
		qualify_group(m, idx + i, j - i, display);
	}
	free(idx);
	return display;
}

size_t names_cut(const char *s, size_t max)
{
	size_t len = max;
	while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
		len--;
	return len;
}

static void names_build(struct names *nm, const struct model *m, const struct escape_table *t,
			enum names_form form, const char *open, const char *close, size_t max,
			char **display)
{
	size_t cap = 1024, used = 0;
	size_t extra = form == NAMES_OBJECT ? strlen(open) + strlen(close) + 32 : 2;
	nm->n = m->nfns;
	nm->pool = xmalloc(cap);
	nm->off = xnmalloc((size_t)m->nfns + 1, sizeof *nm->off);
	nm->width = xnmalloc(m->nfns ? m->nfns : 1, sizeof *nm->width);
	for (uint32_t cc = 0; cc < m->nfns; cc++) {
		const char *s = display && display[cc] ? display[cc] : m->fns[cc].name;
		size_t len = strlen(s);
		const char *suffix = "";
		if (max && len > max) {
			len = names_cut(s, max);
			suffix = NAMES_CUT;
		}
		size_t need = ESCAPE_MAX(len) + sizeof NAMES_CUT + extra;
		if (cap - used < need) {
			cap = (cap + need) * 2;
			nm->pool = xrealloc(nm->pool, cap, 1);
		}
		nm->off[cc] = used;
		used += name_entry(nm->pool + used, t, form, s, len, suffix, cc, open, close);
		size_t w = escape_text_width(s);
		nm->width[cc] = w < UINT32_MAX ? (uint32_t)w : UINT32_MAX;
	}
	nm->off[m->nfns] = used;
}

void names_init(struct names *nm, const struct model *m, const struct escape_table *t, int quoted)
{
	names_build(nm, m, t, quoted ? NAMES_QUOTED : NAMES_BARE, "", "", 0, NULL);
}

void names_init_qualified(struct names *nm, const struct model *m, const struct escape_table *t)
{
	char **display = display_names(m);
	names_build(nm, m, t, NAMES_BARE, "", "", 0, display);
	for (uint32_t cc = 0; display && cc < m->nfns; cc++)
		free(display[cc]);
	free(display);
}

void names_init_text(struct names *nm, const struct model *m)
{
	names_init_qualified(nm, m, &escape_text);
}

void names_init_max(struct names *nm, const struct model *m, const struct escape_table *t,
		    size_t max)
{
	names_build(nm, m, t, NAMES_BARE, "", "", max, NULL);
}

void names_init_json(struct names *nm, const struct model *m, const char *open,
		     const char *close)
{
	names_build(nm, m, &escape_json, NAMES_OBJECT, open, close, 0, NULL);
}

char *names_strdup(const struct names *nm, uint32_t cc)
{
	size_t len = nm->off[cc + 1] - nm->off[cc];
	char *s = xmalloc(len + 1);
	memcpy(s, nm->pool + nm->off[cc], len);
	s[len] = '\0';
	return s;
}

void names_free(struct names *nm)
{
	free(nm->pool);
	free(nm->off);
	free(nm->width);
	memset(nm, 0, sizeof *nm);
}
