/*
 * pbuf.h - a protocol-buffers encoder into a growable byte buffer, just
 * enough for pprof's profile.proto (export_pprof.c).
 *
 * Fields are written in the standard wire format: varints for integers
 * (an int64 is its two's complement, no zigzag), length-delimited bytes,
 * strings, packed repeated scalars and nested messages.  A nested message
 * is written in place after pb_begin; pb_end then puts its length in
 * front, moving the body by the size of that varint, so the encoding is
 * canonical (the length takes the fewest bytes).
 */
#ifndef CCPROF_OUTPUT_PBUF_H
#define CCPROF_OUTPUT_PBUF_H

#include <stddef.h>
#include <stdint.h>

struct pbuf {
	unsigned char *p;
	size_t len, cap;
};

enum { PB_VARINT = 0, PB_LEN = 2 };

void pb_free(struct pbuf *b);
void pb_raw(struct pbuf *b, const void *data, size_t n);
void pb_varint(struct pbuf *b, uint64_t v);
void pb_tag(struct pbuf *b, uint32_t field, unsigned wire);

/* field = v (a varint: uint64, int64 as two's complement, bool). */
void pb_uint(struct pbuf *b, uint32_t field, uint64_t v);
/* field = bytes (strings are bytes in valid UTF-8). */
void pb_bytes(struct pbuf *b, uint32_t field, const void *data, size_t n);

/* A nested message or packed list: pb_begin returns a mark for pb_end. */
size_t pb_begin(struct pbuf *b, uint32_t field);
void pb_end(struct pbuf *b, size_t mark);

#endif
