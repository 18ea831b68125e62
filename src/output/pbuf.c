/*
 * pbuf.c - protocol-buffers encoding (see pbuf.h).
 */
#include "output/pbuf.h"

#include <stdlib.h>
#include <string.h>

#include "format/wire.h"
#include "model/xalloc.h"

void pb_free(struct pbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

static void pb_room(struct pbuf *b, size_t n)
{
	if (b->cap - b->len >= n)
		return;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap - b->len < n)
		cap *= 2;
	b->p = xrealloc(b->p, cap, 1);
	b->cap = cap;
}

void pb_raw(struct pbuf *b, const void *data, size_t n)
{
	pb_room(b, n);
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
}

/* Protocol buffers' varint is the format's: unsigned LEB128. */
void pb_varint(struct pbuf *b, uint64_t v)
{
	pb_room(b, CCP_VARINT_MAX);
	b->len += ccp_varint_put(b->p + b->len, v);
}

void pb_tag(struct pbuf *b, uint32_t field, unsigned wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

void pb_uint(struct pbuf *b, uint32_t field, uint64_t v)
{
	pb_tag(b, field, PB_VARINT);
	pb_varint(b, v);
}

void pb_bytes(struct pbuf *b, uint32_t field, const void *data, size_t n)
{
	pb_tag(b, field, PB_LEN);
	pb_varint(b, n);
	pb_raw(b, data, n);
}

size_t pb_begin(struct pbuf *b, uint32_t field)
{
	pb_tag(b, field, PB_LEN);
	return b->len;
}

void pb_end(struct pbuf *b, size_t mark)
{
	unsigned char len[CCP_VARINT_MAX];
	size_t body = b->len - mark;
	size_t n = ccp_varint_put(len, body);
	pb_room(b, n);
	memmove(b->p + mark + n, b->p + mark, body);
	memcpy(b->p + mark, len, n);
	b->len += n;
}
