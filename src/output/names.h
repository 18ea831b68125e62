/*
 * names.h - every cost centre's display name, escaped once per report.
 *
 * A large report prints the same few thousand names tens of millions of
 * times (histories, tree rows), so each writer escapes them up front for
 * its format and then copies bytes.
 */
#ifndef CCPROF_OUTPUT_NAMES_H
#define CCPROF_OUTPUT_NAMES_H

#include <stdint.h>

#include "model/model.h"
#include "output/escape.h"
#include "output/json.h"
#include "output/ob.h"

struct names {
	char *pool;      /* all escaped names, back to back */
	size_t *off;     /* name cc is pool[off[cc] .. off[cc + 1]) */
	uint32_t *width; /* terminal columns of name cc (text tables) */
	uint32_t n;
};

/* Escape every name of m with t; quoted: inside "..." (for JSON). */
void names_init(struct names *nm, const struct model *m, const struct escape_table *t, int quoted);
/* Bare, escaped with t, and names that two functions share qualified by
 * their modules (Note [Names that collide] in names.c). */
void names_init_qualified(struct names *nm, const struct model *m, const struct escape_table *t);
/* For text: names_init_qualified with escape_text. */
void names_init_text(struct names *nm, const struct model *m);
/* Bare, and a name longer than max bytes cut to at most max (at a UTF-8
 * character boundary) followed by NAMES_CUT, for formats that limit the
 * length of a string. */
#define NAMES_CUT "\xe2\x80\xa6" /* U+2026 */
void names_init_max(struct names *nm, const struct model *m, const struct escape_table *t,
		    size_t max);
/* Where names_init_max cuts s, longer than max bytes: at most max, at a
 * UTF-8 character boundary. */
size_t names_cut(const char *s, size_t max);
/* For JSON objects that stand for a cost centre: each entry is open,
 * the members "name":"<escaped name>","id":<cc>, then close (open and
 * close are JSON already).  With both empty: the first members of an
 * object, for json_begin_object_raw; with "{" and "...}": whole objects. */
void names_init_json(struct names *nm, const struct model *m, const char *open,
		     const char *close);
void names_free(struct names *nm);
/* Name cc as a C string of its own (malloc'd), for a writer that keeps
 * pointers past names_free. */
char *names_strdup(const struct names *nm, uint32_t cc);

static inline void names_put(struct ob *o, const struct names *nm, uint32_t cc)
{
	ob_write(o, nm->pool + nm->off[cc], nm->off[cc + 1] - nm->off[cc]);
}

/* Object {"name":…,"id":cc (names_init_json, "" and ""), members to
 * follow. */
static inline void names_json_head(struct json *j, const struct names *nm, uint32_t cc)
{
	json_begin_object_raw(j, nm->pool + nm->off[cc], nm->off[cc + 1] - nm->off[cc]);
}

/* Entry cc as a JSON value: a name (names made with quoted = 1), or a
 * whole object (names_init_json with "{" and "...}"). */
static inline void names_json(struct json *j, const struct names *nm, uint32_t cc)
{
	json_raw(j, nm->pool + nm->off[cc], nm->off[cc + 1] - nm->off[cc]);
}

#endif
