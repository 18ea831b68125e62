/*
 * escape.h - the tool's one string escaper, driven by tables.
 *
 * Every string that leaves the tool (names, paths, arguments, options all
 * come from the profiled program and may hold any byte) goes through
 * escape_write with the table for the output: no call site escapes by
 * hand.
 *
 *   escape_json  for JSON string contents: ", \ and control characters
 *                escaped; <, > and & as \u003c \u003e \u0026 and U+2028,
 *                U+2029 as \u2028 \u2029, so the JSON can be pasted into an
 *                HTML <script> or a JavaScript literal unchanged; invalid
 *                UTF-8 replaced by \ufffd, so the output is always valid.
 *   escape_text  for the terminal: control characters (C0, DEL and C1,
 *                U+0080..U+009F) and invalid UTF-8 become '?', so a name
 *                cannot move the cursor or recolour the report.
 *
 * For the export formats (docs/exports.md), invalid UTF-8 becomes U+FFFD:
 *   escape_xml     SVG text and attributes: & < > " ' as entities
 *   escape_dot     a quoted Graphviz string: \" \\ and &amp;
 *   escape_folded  a folded-stacks frame: ';' becomes U+FF1B
 *   escape_line    the rest of a text line (callgrind): control chars '?'
 *   escape_utf8    only the UTF-8 repair (protobuf strings)
 * and for GHC's .hp, which hp2ps reads as bytes, '?':
 *   escape_hp_name    a band name: whitespace becomes '_'
 *   escape_hp_string  inside a "string": '"' doubled
 */
#ifndef CCPROF_OUTPUT_ESCAPE_H
#define CCPROF_OUTPUT_ESCAPE_H

#include <stddef.h>

#include "output/ob.h"

struct escape_table;

extern const struct escape_table escape_json;
extern const struct escape_table escape_text;
extern const struct escape_table escape_xml;
extern const struct escape_table escape_dot;
extern const struct escape_table escape_folded;
extern const struct escape_table escape_line;
extern const struct escape_table escape_utf8;
extern const struct escape_table escape_hp_name;
extern const struct escape_table escape_hp_string;

/* The most bytes escape_mem writes for len input bytes ("\u003c" is six). */
#define ESCAPE_MAX(len) ((len) * 6)

/* Escape s[0..len) into out (room for ESCAPE_MAX(len) bytes, no NUL
 * added); returns the bytes written.  The engine of everything below. */
size_t escape_mem(char *out, const struct escape_table *t, const char *s, size_t len);

/* Escape s[0..len) onto the buffer, no surrounding quotes. */
void escape_write(struct ob *o, const struct escape_table *t, const char *s, size_t len);

/* The same for a NUL-terminated string; NULL writes nothing. */
void escape_puts(struct ob *o, const struct escape_table *t, const char *s);

/* Columns that escape_puts(escape_text, s) takes on a terminal (one per
 * character; wide characters are not measured). */
size_t escape_text_width(const char *s);

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
size_t escape_utf8_len(const unsigned char *s, size_t avail);

#endif
