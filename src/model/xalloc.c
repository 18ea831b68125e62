/*
 * xalloc.c - allocation that never returns NULL (see xalloc.h).
 */
#include "model/xalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void xalloc_die(size_t n, const char *who)
{
	fflush(stdout);
	fprintf(stderr, "ccprof: out of memory (%zu bytes in %s)\n", n, who);
	exit(1);
}

void *xmalloc_at(size_t n, const char *who)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		xalloc_die(n, who);
	return p;
}

void *xcalloc_at(size_t n, size_t size, const char *who)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		xalloc_die(n * size, who);
	return p;
}

void *xrealloc_at(void *p, size_t n, size_t size, const char *who)
{
	if (size && n > SIZE_MAX / size)
		xalloc_die(SIZE_MAX, who);
	size_t bytes = n * size;
	void *q = realloc(p, bytes ? bytes : 1);
	if (!q)
		xalloc_die(bytes, who);
	return q;
}

char *xstrdup_at(const char *s, const char *who)
{
	size_t n = strlen(s) + 1;
	char *p = xmalloc_at(n, who);
	memcpy(p, s, n);
	return p;
}

char *xvformat(const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int len = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	if (len < 0)
		len = 0; /* an encoding error: an empty message rather than none */
	char *out = xmalloc((size_t)len + 1);
	out[0] = '\0';
	vsnprintf(out, (size_t)len + 1, fmt, ap);
	return out;
}

char *xformat(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *out = xvformat(fmt, ap);
	va_end(ap);
	return out;
}
