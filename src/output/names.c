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

static void names_build(struct names *nm, const struct model *m, const struct escape_table *t,
			enum names_form form, const char *open, const char *close, size_t max)
{
	size_t cap = 1024, used = 0;
	size_t extra = form == NAMES_OBJECT ? strlen(open) + strlen(close) + 32 : 2;
	nm->n = m->nfns;
	nm->pool = xmalloc(cap);
	nm->off = xnmalloc((size_t)m->nfns + 1, sizeof *nm->off);
	nm->width = xnmalloc(m->nfns ? m->nfns : 1, sizeof *nm->width);
	for (uint32_t cc = 0; cc < m->nfns; cc++) {
		const char *s = m->fns[cc].name;
		size_t len = strlen(s);
		const char *suffix = "";
		if (max && len > max) { /* cut at a character boundary */
			for (len = max; len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80; len--)
				;
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
	names_build(nm, m, t, quoted ? NAMES_QUOTED : NAMES_BARE, "", "", 0);
}

void names_init_max(struct names *nm, const struct model *m, const struct escape_table *t,
		    size_t max)
{
	names_build(nm, m, t, NAMES_BARE, "", "", max);
}

void names_init_json(struct names *nm, const struct model *m, const char *open,
		     const char *close)
{
	names_build(nm, m, &escape_json, NAMES_OBJECT, open, close, 0);
}

void names_free(struct names *nm)
{
	free(nm->pool);
	free(nm->off);
	free(nm->width);
	memset(nm, 0, sizeof *nm);
}
