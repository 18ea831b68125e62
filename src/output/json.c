/*
 * json.c - streaming JSON writer (see json.h).
 */
#include "output/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/xalloc.h"
#include "output/escape.h"

#define JSON_MAX_INDENT 16

void json_init(struct json *j, struct ob *o)
{
	j->o = o;
	j->comma = 0;
	j->depth = 0;
}

void json_newline(struct json *j)
{
	unsigned n = j->depth < JSON_MAX_INDENT ? j->depth : JSON_MAX_INDENT;
	json_sep(j); /* the comma ends the line, not starts the next */
	ob_putc(j->o, '\n');
	ob_spaces(j->o, 2 * (size_t)n);
}

/* Does s[0..n) read the same escaped for JSON?  Printable ASCII other
 * than what escape_json rewrites (", \, <, >, &): most paths and names.
 * One bit per ASCII character: 0x20..0x7e but those. */
static int json_plain(const char *s, size_t n)
{
	static const uint64_t plain[2] = {0xafffffbb00000000u, 0x7fffffffefffffffu};
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c > 0x7f || !(plain[c >> 6] >> (c & 63) & 1))
			return 0;
	}
	return 1;
}

/* s quoted: a plain string is copied in one piece, anything else
 * escaped. */
static void json_quoted(struct ob *o, const char *s)
{
	size_t n = strlen(s);
	if (n <= OB_SIZE / 2 && json_plain(s, n)) {
		char *p = ob_reserve(o, n + 2);
		p[0] = '"';
		memcpy(p + 1, s, n);
		p[n + 1] = '"';
		o->p += n + 2;
		return;
	}
	ob_putc(o, '"');
	escape_write(o, &escape_json, s, n);
	ob_putc(o, '"');
}

void json_string(struct json *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	json_sep(j);
	json_quoted(j->o, s);
	j->comma = 1;
}

void json_begin_object_raw(struct json *j, const char *members, size_t len)
{
	json_begin_object(j);
	ob_write(j->o, members, len);
	j->comma = 1;
}

/* %.15g: as many digits as a double holds reliably, in plain JSON form
 * (no locale: the tool never calls setlocale). */
void json_double(struct json *j, double v)
{
	if (!isfinite(v)) {
		json_null(j);
		return;
	}
	char buf[32];
	int n = snprintf(buf, sizeof buf, "%.15g", v == 0 ? 0.0 : v); /* no "-0" */
	json_raw(j, buf, (size_t)n);
}

void json_bool(struct json *j, int v)
{
	json_raw(j, v ? "true" : "false", v ? 4 : 5);
}

void json_null(struct json *j)
{
	json_raw(j, "null", 4);
}

void json_kstring(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_kdouble(struct json *j, const char *key, double v)
{
	json_key(j, key);
	json_double(j, v);
}

void json_kstrings(struct json *j, const char *key, const char *const *s, uint32_t n)
{
	json_key(j, key);
	json_begin_array(j);
	for (uint32_t i = 0; i < n; i++)
		json_string(j, s[i]);
	json_end_array(j);
}

char *json_quote(const char *s, size_t *len)
{
	size_t n = strlen(s);
	char *q = xnmalloc(n + 1, 6);
	q[0] = '"';
	size_t k = 1 + escape_mem(q + 1, &escape_json, s, n);
	q[k++] = '"';
	q[k] = '\0';
	*len = k;
	return q;
}
