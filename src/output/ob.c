/*
 * ob.c - output buffer and number formatting (see ob.h).
 */
#include "output/ob.h"

#include <errno.h>
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

/* The first write that failed, and why.  stdio drops what it could not
 * write, so a later fflush succeeds and only ferror remains: the reason
 * (ENOSPC of `report > /dev/full`) is kept here, for ob_write_errno. */
static FILE *failed_file;
static int failed_errno;

static void put(struct ob *o, const void *s, size_t n)
{
	errno = 0;
	if (n > 0 && fwrite(s, 1, n, o->f) != n && failed_file == NULL) {
		failed_file = o->f;
		failed_errno = errno ? errno : EIO;
	}
}

int ob_write_errno(FILE *f)
{
	return f == failed_file ? failed_errno : 0;
}

void ob_forget(FILE *f)
{
	if (f == failed_file)
		failed_file = NULL;
}

void ob_flush(struct ob *o)
{
	put(o, o->buf, (size_t)(o->p - o->buf));
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
		put(o, s, n);
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

/* Powers of ten, 10^0 .. 10^19 (all that fit 64 bits). */
static const uint64_t pow10s[20] = {
	1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u,
	1000000000u, 10000000000u, 100000000000u, 1000000000000u, 10000000000000u,
	100000000000000u, 1000000000000000u, 10000000000000000u, 100000000000000000u,
	1000000000000000000u, 10000000000000000000u,
};

/*
 * Decimal digits of v (1 for 0), from its bit length: 1233 / 4096 is
 * just above log10(2).  Numbers are written straight into the buffer,
 * right to left from their last digit, so their length comes first: made
 * in a local buffer and copied, each number was read back while its
 * digits were still being stored, a stall per number.
 */
static size_t dec_len(uint64_t v)
{
	unsigned t = (unsigned)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;
	return v ? t + 1 - (v < pow10s[t]) : 1;
}

void ob_u64(struct ob *o, uint64_t v, int width)
{
	size_t n = dec_len(v);
	if (width > 0 && (size_t)width > n)
		ob_spaces(o, (size_t)width - n);
	digits64(ob_reserve(o, n) + n, v);
	o->p += n;
}

static uint64_t pow10u(int n)
{
	return pow10s[n];
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

/* q as a fixed-point number with prec decimals, right to left ending at
 * end; returns the start. */
static char *ratio_digits(char *end, wide q, int prec)
{
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

/* The ratio as text into buf (ending at end); returns the start. */
static char *ratio_text(char *end, uint64_t num, uint64_t den, int shift, int prec)
{
	return ratio_digits(end, scaled_quotient(num, den, shift + prec), prec);
}

void ob_ratio(struct ob *o, uint64_t num, uint64_t den, int shift, int prec, int width)
{
	wide q = scaled_quotient(num, den, shift + prec);
	size_t n;
	if (FITS64(q)) { /* straight into the buffer (dec_len) */
		size_t d = dec_len((uint64_t)q);
		n = (d > (size_t)prec ? d - (size_t)prec : 1) + (prec > 0 ? 1 + (size_t)prec : 0);
		if (width > 0 && (size_t)width > n)
			ob_spaces(o, (size_t)width - n);
		ratio_digits(ob_reserve(o, n) + n, q, prec);
		o->p += n;
		return;
	}
	char tmp[80], *s = ratio_digits(tmp + sizeof tmp, q, prec);
	n = (size_t)(tmp + sizeof tmp - s);
	if (width > 0 && (size_t)width > n)
		ob_spaces(o, (size_t)width - n);
	ob_write(o, s, n);
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
	if (den == NS_PER_SEC) { /* straight into the buffer (dec_len) */
		uint64_t sec = num / NS_PER_SEC;
		uint32_t frac = (uint32_t)(num % NS_PER_SEC);
		size_t n = dec_len(sec);
		char *p = ob_reserve(o, n + 10);
		digits64(p + n, sec);
		if (frac) {
			size_t k = 9;
			p[n] = '.';
			nine_digits(p + n + 1, frac);
			while (p[n + k] == '0')
				k--;
			n += 1 + k;
		}
		o->p += n;
		return;
	}
	char tmp[80], *end = tmp + sizeof tmp, *s = ratio_text(end, num, den, 0, 9);
	while (end[-1] == '0')
		end--;
	if (end[-1] == '.')
		end--;
	ob_write(o, s, (size_t)(end - s));
}
