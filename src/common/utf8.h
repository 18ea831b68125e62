/*
 * utf8.h - the length of a well-formed UTF-8 sequence, for the tool's
 * escaping (src/output/escape.c) and the runtime's warnings (sys.c), so
 * that both judge text alike.
 */
#ifndef CCPROF_UTF8_H
#define CCPROF_UTF8_H

#include <stddef.h>

/* The length of the well-formed UTF-8 sequence at s (1 for ASCII), or 0
 * if there is none within avail bytes: a continuation byte, an overlong
 * form, a surrogate or a code point past U+10FFFF. */
static inline size_t utf8_len(const unsigned char *s, size_t avail)
{
	unsigned c = s[0];
	size_t n;
	unsigned lo = 0x80, hi = 0xbf; /* allowed range of the second byte */

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (avail < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Whether the n-byte sequence at s is a C1 control, U+0080..U+009F
 * (some terminals take U+009B as CSI, ESC [). */
static inline int utf8_is_c1(const unsigned char *s, size_t n)
{
	return n == 2 && s[0] == 0xc2 && s[1] <= 0x9f;
}

#endif
