/*
 * ob.c - output buffer and number formatting (see ob.h).
 */
#include "output/ob.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"

/* Wide enough for num × 10^(shift + prec) with num < 2^64 and shift + prec
 * up to 18; unsigned __int128 where the compiler has it. */
#ifdef __SIZEOF_INT128__
typedef unsigned __int128 wide;
#else
typedef uint64_t wide; /* 32-bit targets: the product goes through long double */
#endif

void ob_init(struct ob *o, FILE *f)
{
	o->f = f;
	o->p = o->buf;
}

void ob_flush(struct ob *o)
{
	if (o->p > o->buf)
		fwrite(o->buf, 1, (size_t)(o->p - o->buf), o->f);
	o->p = o->buf;
}

struct ob *ob_open(FILE *f)
{
	struct ob *o = xmalloc(sizeof *o);
	ob_init(o, f);
	return o;
}

int ob_close(struct ob *o)
{
	FILE *f = o->f;
	ob_flush(o);
	free(o);
	return ferror(f) ? -1 : 0;
}

void ob_write(struct ob *o, const char *s, size_t n)
{
	if (n > OB_SIZE / 2) {
		ob_flush(o);
		fwrite(s, 1, n, o->f);
		return;
	}
	memcpy(ob_reserve(o, n), s, n);
	o->p += n;
}

void ob_puts(struct ob *o, const char *s)
{
	ob_write(o, s, strlen(s));
}

void ob_spaces(struct ob *o, size_t n)
{
	while (n > 0) {
		size_t k = n < 256 ? n : 256;
		memset(ob_reserve(o, k), ' ', k);
		o->p += k;
		n -= k;
	}
}

void ob_printf(struct ob *o, const char *fmt, ...)
{
	va_list ap;
	ob_flush(o);
	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
}

/* Digits of v, right to left, ending at end; returns the first. */
static char *digits(char *end, wide v)
{
	do {
		*--end = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v > 0);
	return end;
}

void ob_u64(struct ob *o, uint64_t v, int width)
{
	char tmp[24], *s = digits(tmp + sizeof tmp, v);
	size_t n = (size_t)(tmp + sizeof tmp - s);
	if (width > 0 && (size_t)width > n)
		ob_spaces(o, (size_t)width - n);
	ob_write(o, s, n);
}

static wide pow10w(int n)
{
	wide p = 1;
	while (n-- > 0)
		p *= 10;
	return p;
}

/* The ratio as text into buf (ending at end); returns the start. */
static char *ratio_text(char *end, uint64_t num, uint64_t den, int shift, int prec)
{
	wide q = 0;
	if (den) {
#ifdef __SIZEOF_INT128__
		wide scaled = (wide)num * pow10w(shift + prec);
		q = (scaled + den / 2) / den; /* half up */
#else
		q = (wide)((long double)num * (long double)pow10w(shift + prec) / den + 0.5L);
#endif
	}
	wide unit = pow10w(prec);
	char *s = end;
	if (prec > 0) {
		wide frac = q % unit;
		for (int i = 0; i < prec; i++) {
			*--s = (char)('0' + (int)(frac % 10));
			frac /= 10;
		}
		*--s = '.';
	}
	return digits(s, q / unit);
}

void ob_ratio(struct ob *o, uint64_t num, uint64_t den, int shift, int prec, int width)
{
	char tmp[80], *s = ratio_text(tmp + sizeof tmp, num, den, shift, prec);
	size_t n = (size_t)(tmp + sizeof tmp - s);
	if (width > 0 && (size_t)width > n)
		ob_spaces(o, (size_t)width - n);
	ob_write(o, s, n);
}

int ob_ratio_len(uint64_t num, uint64_t den, int shift, int prec)
{
	char tmp[80];
	return (int)(tmp + sizeof tmp - ratio_text(tmp + sizeof tmp, num, den, shift, prec));
}

void ob_decimal(struct ob *o, uint64_t num, uint64_t den)
{
	char tmp[80], *end = tmp + sizeof tmp;
	char *s = ratio_text(end, num, den, 0, 9);
	while (end[-1] == '0')
		end--;
	if (end[-1] == '.')
		end--;
	ob_write(o, s, (size_t)(end - s));
}
