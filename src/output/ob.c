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
#define FITS64(q) ((q) <= UINT64_MAX)
#else
typedef uint64_t wide; /* 32-bit targets: the product goes through long double */
#define FITS64(q) 1
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

void ob_write_full(struct ob *o, const char *s, size_t n)
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

void ob_spaces_full(struct ob *o, size_t n)
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

/* "00" .. "99": two digits per division, half the divisions of one at a
 * time (a report prints tens of millions of numbers). */
static const char pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Digits of v, right to left, ending at end; returns the first. */
static char *digits64(char *end, uint64_t v)
{
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		end -= 2;
		memcpy(end, pairs + 2 * r, 2);
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, pairs + 2 * v, 2);
	} else {
		*--end = (char)('0' + (int)v);
	}
	return end;
}

/* The same for a wide value: 128-bit division is a library call per
 * step, so only the part above 64 bits takes it. */
static char *digits(char *end, wide v)
{
#ifdef __SIZEOF_INT128__
	while (v > UINT64_MAX) {
		*--end = (char)('0' + (int)(v % 10));
		v /= 10;
	}
#endif
	return digits64(end, (uint64_t)v);
}

/*
 * Copy a number made right to left in a buffer of the caller's, s up to
 * end, where end has SHORT_COPY bytes of that buffer after it: a short
 * one (all but 128-bit ratios) as one block of constant size, without a
 * call to memcpy, of which the first end - s bytes count.
 */
#define SHORT_COPY 32

static void put_number(struct ob *o, const char *s, const char *end)
{
	size_t n = (size_t)(end - s);
	if (n > SHORT_COPY) {
		ob_write(o, s, n);
		return;
	}
	memcpy(ob_reserve(o, SHORT_COPY), s, SHORT_COPY);
	o->p += n;
}

void ob_u64(struct ob *o, uint64_t v, int width)
{
	char tmp[24 + SHORT_COPY], *end = tmp + 24, *s = digits64(end, v);
	size_t n = (size_t)(end - s);
	if (width > 0 && (size_t)width > n)
		ob_spaces(o, (size_t)width - n);
	put_number(o, s, end);
}

static uint64_t pow10u(int n)
{
	uint64_t p = 1;
	while (n-- > 0)
		p *= 10;
	return p;
}

/*
 * num × 10^k / den rounded half up (k <= 19: 10^k fits 64 bits), 0
 * when den is 0.  The 128-bit product and division are exact but slow
 * (library calls), so two cases that give the same quotient in 64 bits
 * come first: den divides 10^k (nanosecond ticks in seconds: nothing to
 * round), and a product that fits.
 */
static wide scaled_quotient(uint64_t num, uint64_t den, int k)
{
	if (!den)
		return 0;
	uint64_t p = pow10u(k), prod;
	if (den <= p && p % den == 0 && num <= UINT64_MAX / (p / den))
		return num * (p / den); /* (num × p + den/2) / den, den/2 < den */
	if (!__builtin_mul_overflow(num, p, &prod) && prod <= UINT64_MAX - den / 2)
		return (prod + den / 2) / den;
#ifdef __SIZEOF_INT128__
	return ((wide)num * p + den / 2) / den;
#else
	return (wide)((long double)num * (long double)p / den + 0.5L);
#endif
}

/* The ratio as text into buf (ending at end); returns the start. */
static char *ratio_text(char *end, uint64_t num, uint64_t den, int shift, int prec)
{
	wide q = scaled_quotient(num, den, shift + prec);
	char *s = end;
	if (prec > 0) {
		if (FITS64(q)) { /* by the constant 10: no division instruction */
			uint64_t v = (uint64_t)q;
			for (int i = 0; i < prec; i++) {
				*--s = (char)('0' + (int)(v % 10));
				v /= 10;
			}
			q = v;
		} else {
			for (int i = 0; i < prec; i++) {
				*--s = (char)('0' + (int)(q % 10));
				q /= 10;
			}
		}
		*--s = '.';
	}
	return digits(s, q);
}

void ob_ratio(struct ob *o, uint64_t num, uint64_t den, int shift, int prec, int width)
{
	char tmp[80 + SHORT_COPY], *end = tmp + 80, *s = ratio_text(end, num, den, shift, prec);
	size_t n = (size_t)(end - s);
	if (width > 0 && (size_t)width > n)
		ob_spaces(o, (size_t)width - n);
	put_number(o, s, end);
}

int ob_ratio_len(uint64_t num, uint64_t den, int shift, int prec)
{
	char tmp[80];
	return (int)(tmp + sizeof tmp - ratio_text(tmp + sizeof tmp, num, den, shift, prec));
}

/* Nanosecond ticks are the common case (cpu and wall clocks) and JSON
 * prints every time this way: the seconds are the digits of num with a
 * point, so no 128-bit arithmetic and divisions by constants only.  The
 * nine digits of the fraction are made in 32 bits, two at a time, then
 * their trailing zeros dropped.  ratio_text is the general case. */
#define NS_PER_SEC 1000000000u

static void two_digits(char *out, uint32_t v)
{
	memcpy(out, pairs + 2 * v, 2);
}

/* The fraction's nine digits, at s[0..9). */
static void nine_digits(char *s, uint32_t frac)
{
	uint32_t hi = frac / 100000, lo = frac % 100000; /* 4 and 5 digits */
	two_digits(s, hi / 100);
	two_digits(s + 2, hi % 100);
	s[4] = (char)('0' + lo / 10000);
	lo %= 10000;
	two_digits(s + 5, lo / 100);
	two_digits(s + 7, lo % 100);
}

void ob_decimal(struct ob *o, uint64_t num, uint64_t den)
{
	char tmp[48 + SHORT_COPY], *end = tmp + 48, *s = end;
	if (den == NS_PER_SEC) {
		uint32_t frac = (uint32_t)(num % NS_PER_SEC);
		if (frac) {
			s = end - 9;
			nine_digits(s, frac);
			while (end[-1] == '0')
				end--;
			*--s = '.';
		}
		s = digits64(s, num / NS_PER_SEC);
	} else {
		s = ratio_text(end, num, den, 0, 9);
		while (end[-1] == '0')
			end--;
		if (end[-1] == '.')
			end--;
	}
	put_number(o, s, end);
}
