/*
 * json.h - a small streaming JSON writer on an output buffer (ob.h).
 *
 * The writer tracks only whether a separator is due, so nesting depth is
 * unlimited and costs nothing; the caller opens and closes containers in
 * order.  Strings go through escape_json; a value escaped once and reused
 * (a name printed a million times) goes in with json_raw.  Layout is the
 * caller's choice: json_newline starts a new line indented by the current
 * depth (capped, so a deep tree does not make the output quadratic).
 */
#ifndef CCPROF_OUTPUT_JSON_H
#define CCPROF_OUTPUT_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "output/ob.h"

struct json {
	struct ob *o;
	int comma;     /* a value was written at this level: next one needs ',' */
	unsigned depth;
};

void json_init(struct json *j, struct ob *o);
/* '{' and its first members, already JSON (names.h builds them once per
 * report: a name and an id written a million times). */
void json_begin_object_raw(struct json *j, const char *members, size_t len);
void json_string(struct json *j, const char *s); /* NULL writes null */
void json_double(struct json *j, double v);      /* NaN, inf write null */
void json_bool(struct json *j, int v);
void json_null(struct json *j);
void json_newline(struct json *j);

/* Shorthands for "key":value members (more below, inline). */
void json_kstring(struct json *j, const char *key, const char *s);
void json_kdouble(struct json *j, const char *key, double v);
/* "key": [s[0], ..., s[n - 1]] (NULL items write null). */
void json_kstrings(struct json *j, const char *key, const char *const *s, uint32_t n);

/* s as a quoted JSON string in a new malloc'd buffer (*len bytes, NUL
 * terminated), for json_raw. */
char *json_quote(const char *s, size_t *len);

/* ---- inline: the pieces a million-context report writes tens of millions
 * of times ---------------------------------------------------------------- */

/* Before any value or key: the ',' separating it from the previous one. */
static inline void json_sep(struct json *j)
{
	if (j->comma)
		ob_putc(j->o, ',');
	j->comma = 0;
}

static inline void json_open(struct json *j, char c)
{
	json_sep(j);
	ob_putc(j->o, c);
	j->depth++;
}

static inline void json_close(struct json *j, char c)
{
	ob_putc(j->o, c);
	j->depth--;
	j->comma = 1;
}

static inline void json_begin_object(struct json *j)
{
	json_open(j, '{');
}

static inline void json_end_object(struct json *j)
{
	json_close(j, '}');
}

static inline void json_begin_array(struct json *j)
{
	json_open(j, '[');
}

static inline void json_end_array(struct json *j)
{
	json_close(j, ']');
}

static inline void json_uint(struct json *j, uint64_t v)
{
	json_sep(j);
	ob_u64(j->o, v, 0);
	j->comma = 1;
}

static inline void json_seconds(struct json *j, uint64_t ticks, uint64_t ticks_per_sec)
{
	json_sep(j);
	ob_decimal(j->o, ticks, ticks_per_sec);
	j->comma = 1;
}

/* A value already JSON. */
static inline void json_raw(struct json *j, const char *value, size_t len)
{
	json_sep(j);
	ob_write(j->o, value, len);
	j->comma = 1;
}

/*
 * "key": keys are the schema's member names (docs/json.md), literals of
 * plain ASCII, so they are written as they are, not escaped (the values,
 * which come from the profile, always are).  With a literal key, the
 * length and the copy are constants.
 */
static inline void json_key(struct json *j, const char *key)
{
	size_t n = strlen(key);
	json_sep(j);
	char *p = ob_reserve(j->o, n + 3);
	p[0] = '"';
	memcpy(p + 1, key, n);
	p[n + 1] = '"';
	p[n + 2] = ':';
	j->o->p += n + 3;
}

static inline void json_kuint(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}

static inline void json_kseconds(struct json *j, const char *key, uint64_t ticks,
				 uint64_t ticks_per_sec)
{
	json_key(j, key);
	json_seconds(j, ticks, ticks_per_sec);
}

#endif
