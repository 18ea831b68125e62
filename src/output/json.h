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

#include "output/ob.h"

struct json {
	struct ob *o;
	int comma;     /* a value was written at this level: next one needs ',' */
	unsigned depth;
};

void json_init(struct json *j, struct ob *o);
void json_begin_object(struct json *j);
/* '{' and its first members, already JSON (names.h builds them once per
 * report: a name and an id written a million times). */
void json_begin_object_raw(struct json *j, const char *members, size_t len);
void json_end_object(struct json *j);
void json_begin_array(struct json *j);
void json_end_array(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s); /* NULL writes null */
void json_uint(struct json *j, uint64_t v);
void json_double(struct json *j, double v);      /* NaN, inf write null */
void json_seconds(struct json *j, uint64_t ticks, uint64_t ticks_per_sec);
void json_bool(struct json *j, int v);
void json_null(struct json *j);
void json_raw(struct json *j, const char *value, size_t len); /* already JSON */
void json_newline(struct json *j);

/* Shorthands for "key":value members. */
void json_kstring(struct json *j, const char *key, const char *s);
void json_kuint(struct json *j, const char *key, uint64_t v);
void json_kdouble(struct json *j, const char *key, double v);
void json_kseconds(struct json *j, const char *key, uint64_t ticks, uint64_t ticks_per_sec);
/* "key": [s[0], ..., s[n - 1]] (NULL items write null). */
void json_kstrings(struct json *j, const char *key, const char *const *s, uint32_t n);

/* s as a quoted JSON string in a new malloc'd buffer (*len bytes, NUL
 * terminated), for json_raw. */
char *json_quote(const char *s, size_t *len);

#endif
