/*
 * ob.h - the writers' output buffer, with number formatting.
 *
 * A report of a million contexts is tens of millions of small pieces;
 * through stdio each piece pays a lock and a format parse, which made the
 * writers slower than all the analysis.  An ob collects bytes in a local
 * buffer and hands it to fwrite when full, and formats integers and
 * fixed-point ratios itself.  Errors are left on the FILE (ferror), where
 * the caller checks them once at the end.
 *
 * Fixed-point ratios are computed from the integers (ticks / ticks_per_sec,
 * 100 × ticks / total) and rounded half up, so the digits are exact for
 * any tick rate; no double is involved.
 */
#ifndef CCPROF_OUTPUT_OB_H
#define CCPROF_OUTPUT_OB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define OB_SIZE 65536

struct ob {
	FILE *f;
	char *p; /* next free byte of buf */
	char buf[OB_SIZE];
};

void ob_init(struct ob *o, FILE *f);
void ob_flush(struct ob *o); /* hand the buffered bytes to the FILE */

/* Every writer's buffer: ob_open allocates one on f; ob_close flushes
 * and frees it, and returns 0, or -1 if the stream has had an error (the
 * one check, at the end). */
struct ob *ob_open(FILE *f);
int ob_close(struct ob *o);
/* Why the first failed write to f failed (an errno), or 0; ob_forget
 * before f is closed, as another stream may take its address. */
int ob_write_errno(FILE *f);
void ob_forget(FILE *f);

/* Room for n more bytes (n <= OB_SIZE). */
static inline char *ob_reserve(struct ob *o, size_t n)
{
	if ((size_t)(o->buf + OB_SIZE - o->p) < n)
		ob_flush(o);
	return o->p;
}

static inline void ob_putc(struct ob *o, char c)
{
	if (o->p == o->buf + OB_SIZE)
		ob_flush(o);
	*o->p++ = c;
}

/* Out of line: what does not fit the space left (ob_write, ob_spaces). */
void ob_write_full(struct ob *o, const char *s, size_t n);
void ob_spaces_full(struct ob *o, size_t n);

/* Inline while the buffer has room: a report writes tens of millions of
 * short pieces. */
static inline void ob_write(struct ob *o, const char *s, size_t n)
{
	if ((size_t)(o->buf + OB_SIZE - o->p) < n) {
		ob_write_full(o, s, n);
		return;
	}
	memcpy(o->p, s, n);
	o->p += n;
}

static inline void ob_spaces(struct ob *o, size_t n)
{
	if ((size_t)(o->buf + OB_SIZE - o->p) < n) {
		ob_spaces_full(o, n);
		return;
	}
	memset(o->p, ' ', n);
	o->p += n;
}

void ob_puts(struct ob *o, const char *s);
void ob_printf(struct ob *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* v in decimal, right-aligned in width columns (0: no padding). */
void ob_u64(struct ob *o, uint64_t v, int width);

/*
 * num / den × 10^shift with prec decimals, right-aligned in width: e.g.
 * (ticks, ticks_per_sec, 0, 3) is seconds like %.3f, (ticks, total, 2, 1)
 * a percentage like %.1f.  den == 0 prints zero.
 */
void ob_ratio(struct ob *o, uint64_t num, uint64_t den, int shift, int prec, int width);

/* Characters ob_ratio would print (for measuring columns). */
int ob_ratio_len(uint64_t num, uint64_t den, int shift, int prec);

/* num / den in the shortest decimal of at most 9 places (JSON seconds:
 * exact for nanosecond ticks). */
void ob_decimal(struct ob *o, uint64_t num, uint64_t den);

#endif
