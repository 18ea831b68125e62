/*
 * json.c - streaming JSON writer (see json.h).
 */
#include "output/json.h"

#include <inttypes.h>
#include <math.h>

#include "output/escape.h"

#define JSON_MAX_INDENT 16

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->comma = 0;
	j->depth = 0;
}

/* Before any value or key: the ',' separating it from the previous one. */
static void json_sep(struct json *j)
{
	if (j->comma)
		fputc(',', j->f);
	j->comma = 0;
}

static void json_open(struct json *j, int c)
{
	json_sep(j);
	fputc(c, j->f);
	j->depth++;
}

static void json_close(struct json *j, int c)
{
	fputc(c, j->f);
	j->depth--;
	j->comma = 1;
}

void json_begin_object(struct json *j)
{
	json_open(j, '{');
}

void json_end_object(struct json *j)
{
	json_close(j, '}');
}

void json_begin_array(struct json *j)
{
	json_open(j, '[');
}

void json_end_array(struct json *j)
{
	json_close(j, ']');
}

void json_newline(struct json *j)
{
	unsigned n = j->depth < JSON_MAX_INDENT ? j->depth : JSON_MAX_INDENT;
	json_sep(j); /* the comma ends the line, not starts the next */
	fputc('\n', j->f);
	for (unsigned i = 0; i < n; i++)
		fputs("  ", j->f);
}

static void json_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	escape_puts(f, &escape_json, s);
	fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
	json_sep(j);
	json_quoted(j->f, key);
	fputs(": ", j->f);
}

void json_string(struct json *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	json_sep(j);
	json_quoted(j->f, s);
	j->comma = 1;
}

void json_uint(struct json *j, uint64_t v)
{
	json_sep(j);
	fprintf(j->f, "%" PRIu64, v);
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
	json_sep(j);
	fprintf(j->f, "%.15g", v == 0 ? 0.0 : v); /* no "-0" */
	j->comma = 1;
}

void json_bool(struct json *j, int v)
{
	json_sep(j);
	fputs(v ? "true" : "false", j->f);
	j->comma = 1;
}

void json_null(struct json *j)
{
	json_sep(j);
	fputs("null", j->f);
	j->comma = 1;
}

void json_kstring(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_kuint(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}

void json_kdouble(struct json *j, const char *key, double v)
{
	json_key(j, key);
	json_double(j, v);
}
