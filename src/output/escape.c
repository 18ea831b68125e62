/*
 * escape.c - table-driven escaping (see escape.h).
 *
 * A table gives the replacement for each ASCII byte (NULL: copy it), the
 * replacement for a byte that does not start valid UTF-8, and optional
 * replacements for the C1 controls U+0080..U+009F and for U+2028 and
 * U+2029 (JavaScript line terminators).
 * escape_mem is the one engine; the others feed it.
 */
#include "output/escape.h"
#include "common/utf8.h"

#include <string.h>

struct escape_table {
	const char *ascii[128];
	const char *bad_utf8;  /* for each byte of an invalid sequence */
	const char *c1;        /* for each of U+0080..U+009F; NULL: copy */
	const char *u2028, *u2029; /* NULL: copy */
};

#define CTRL_JSON                                                                          \
	[0x00] = "\\u0000", [0x01] = "\\u0001", [0x02] = "\\u0002", [0x03] = "\\u0003",    \
	[0x04] = "\\u0004", [0x05] = "\\u0005", [0x06] = "\\u0006", [0x07] = "\\u0007",    \
	[0x08] = "\\b", [0x09] = "\\t", [0x0a] = "\\n", [0x0b] = "\\u000b",                \
	[0x0c] = "\\f", [0x0d] = "\\r", [0x0e] = "\\u000e", [0x0f] = "\\u000f",            \
	[0x10] = "\\u0010", [0x11] = "\\u0011", [0x12] = "\\u0012", [0x13] = "\\u0013",    \
	[0x14] = "\\u0014", [0x15] = "\\u0015", [0x16] = "\\u0016", [0x17] = "\\u0017",    \
	[0x18] = "\\u0018", [0x19] = "\\u0019", [0x1a] = "\\u001a", [0x1b] = "\\u001b",    \
	[0x1c] = "\\u001c", [0x1d] = "\\u001d", [0x1e] = "\\u001e", [0x1f] = "\\u001f"

const struct escape_table escape_json = {
	.ascii = {
		CTRL_JSON,
		['"'] = "\\\"",
		['\\'] = "\\\\",
		['<'] = "\\u003c",
		['>'] = "\\u003e",
		['&'] = "\\u0026",
		[0x7f] = "\\u007f",
	},
	.bad_utf8 = "\\ufffd",
	.u2028 = "\\u2028",
	.u2029 = "\\u2029",
};

/* The terminal: C1 controls as C0 ones, since a terminal may act on
 * them in UTF-8 too (U+009B is CSI to some, as ESC [ is to all). */
#define Q "?"
const struct escape_table escape_text = {
	.ascii = {
		Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q,
		Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q, Q,
		[0x7f] = Q,
	},
	.bad_utf8 = Q,
	.c1 = Q,
};
#undef Q

/* U+FFFD, for formats that take UTF-8 text rather than escapes. */
#define REPLACEMENT "\xef\xbf\xbd"
/* Control characters other than TAB, LF and CR, each replaced by r. */
#define CTRL_OTHER(r)                                                                      \
	[0x00] = r, [0x01] = r, [0x02] = r, [0x03] = r, [0x04] = r, [0x05] = r, [0x06] = r,  \
	[0x07] = r, [0x08] = r, [0x0b] = r, [0x0c] = r, [0x0e] = r, [0x0f] = r, [0x10] = r,  \
	[0x11] = r, [0x12] = r, [0x13] = r, [0x14] = r, [0x15] = r, [0x16] = r, [0x17] = r,  \
	[0x18] = r, [0x19] = r, [0x1a] = r, [0x1b] = r, [0x1c] = r, [0x1d] = r, [0x1e] = r,  \
	[0x1f] = r, [0x7f] = r
#define CTRL_TO(r) CTRL_OTHER(r), ['\t'] = r, ['\n'] = r, ['\r'] = r

/* XML character data and attribute values (SVG).  XML 1.0 forbids most
 * control characters even as references, so those become U+FFFD. */
const struct escape_table escape_xml = {
	.ascii = {
		CTRL_OTHER(REPLACEMENT),
		['\t'] = "&#9;",
		['\n'] = "&#10;",
		['\r'] = "&#13;",
		['&'] = "&amp;",
		['<'] = "&lt;",
		['>'] = "&gt;",
		['"'] = "&quot;",
		['\''] = "&#39;",
	},
	.bad_utf8 = REPLACEMENT,
};

/* Inside a double-quoted DOT string.  Graphviz reads HTML entities in
 * every string, so a literal & is written as one; a backslash starts an
 * escape such as \n or \N, so it is doubled. */
const struct escape_table escape_dot = {
	.ascii = {
		CTRL_TO("?"),
		['"'] = "\\\"",
		['\\'] = "\\\\",
		['&'] = "&amp;",
	},
	.bad_utf8 = REPLACEMENT,
};

/* A frame of a folded-stacks line: ';' separates frames, so it becomes
 * U+FF1B FULLWIDTH SEMICOLON, which looks the same to a reader. */
const struct escape_table escape_folded = {
	.ascii = {
		CTRL_TO("?"),
		[';'] = "\xef\xbc\x9b",
	},
	.bad_utf8 = REPLACEMENT,
};

/* The rest of a line of a line-oriented text format (callgrind names). */
const struct escape_table escape_line = {
	.ascii = {
		CTRL_TO("?"),
	},
	.bad_utf8 = REPLACEMENT,
};

/* GHC's .hp heap profile (docs/exports.md, "hp"), read by hp2ps byte by
 * byte in the C locale: a band name ends at whitespace, so a space becomes
 * '_' (and "operator new(unsigned long)" stays one name); a string (JOB,
 * DATE) ends at a lone '"', so that is doubled, as GHC writes it, and
 * control characters become '?' there.  Any control character is '_' in a
 * name, and invalid UTF-8 '?' in both. */
const struct escape_table escape_hp_name = {
	.ascii = {
		CTRL_TO("_"),
		[' '] = "_",
	},
	.bad_utf8 = "?",
};

const struct escape_table escape_hp_string = {
	.ascii = {
		CTRL_TO("?"),
		['"'] = "\"\"",
	},
	.bad_utf8 = "?",
};

/* Valid UTF-8 and nothing else changed (protobuf strings). */
const struct escape_table escape_utf8 = {
	.ascii = {0},
	.bad_utf8 = REPLACEMENT,
};
#undef CTRL_TO
#undef CTRL_OTHER
#undef REPLACEMENT

size_t escape_utf8_len(const unsigned char *s, size_t avail)
{
	return utf8_len(s, avail);
}

/* Replacement for the sequence at s of length n, or NULL to copy it. */
static const char *replacement(const struct escape_table *t, const unsigned char *s, size_t n)
{
	if (n == 0)
		return t->bad_utf8;
	if (n == 1)
		return t->ascii[s[0]];
	if (utf8_is_c1(s, n))
		return t->c1;
	if (n == 3 && s[0] == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9))
		return s[2] == 0xa8 ? t->u2028 : t->u2029;
	return NULL;
}

size_t escape_mem(char *out, const struct escape_table *t, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	char *o = out;

	while (len > 0) {
		/* Plain ASCII is the common case: copy it without lookups
		 * beyond the table. */
		if (s[0] < 0x80 && !t->ascii[s[0]]) {
			*o++ = (char)*s++;
			len--;
			continue;
		}
		size_t n = escape_utf8_len(s, len);
		const char *rep = replacement(t, s, n);
		size_t step = n ? n : 1;
		if (rep) {
			size_t k = strlen(rep);
			memcpy(o, rep, k);
			o += k;
		} else {
			memcpy(o, s, step);
			o += step;
		}
		s += step;
		len -= step;
	}
	return (size_t)(o - out);
}

#define ESCAPE_CHUNK 4096

void escape_write(struct ob *o, const struct escape_table *t, const char *s, size_t len)
{
	while (len > 0) {
		size_t n = len;
		if (n > ESCAPE_CHUNK) {
			/* Cut before a continuation byte, never inside a
			 * character, so each chunk is judged whole. */
			n = ESCAPE_CHUNK;
			for (int back = 0; back < 3 && ((unsigned char)s[n] & 0xc0) == 0x80; back++)
				n--;
		}
		o->p += escape_mem(ob_reserve(o, ESCAPE_MAX(n)), t, s, n);
		s += n;
		len -= n;
	}
}

void escape_puts(struct ob *o, const struct escape_table *t, const char *s)
{
	if (s)
		escape_write(o, t, s, strlen(s));
}

size_t escape_text_width(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str), w = 0;

	while (len > 0) {
		size_t n = escape_utf8_len(s, len);
		n = n ? n : 1;
		w++;
		s += n;
		len -= n;
	}
	return w;
}
