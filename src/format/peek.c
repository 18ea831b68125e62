/*
 * peek.c - the pid and start time of a profile file, read without
 * allocating: the runtime's writer needs them in a signal handler (dump.c,
 * Note [Pre-exec profile]), where the decoder, which reads the whole file
 * into memory, cannot run.  Only the header, the STRINGS section's length
 * and the start of META are read (docs/format.md); no checksum is checked.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "format.h"
#include "wire.h"

struct peek {
	int fd;
	off_t off;                /* file offset of buf[0] */
	size_t n, pos;            /* bytes in buf, next one */
	unsigned char buf[256];
};

static int next_byte(struct peek *k, unsigned char *b)
{
	if (k->pos == k->n) {
		ssize_t r;

		k->off += (off_t)k->n;
		do
			r = pread(k->fd, k->buf, sizeof k->buf, k->off);
		while (r < 0 && errno == EINTR);
		if (r <= 0)
			return -1;
		k->n = (size_t)r;
		k->pos = 0;
	}
	*b = k->buf[k->pos++];
	return 0;
}

static off_t position(const struct peek *k)
{
	return k->off + (off_t)k->pos;
}

static void seek(struct peek *k, off_t to)
{
	k->off = to;
	k->n = k->pos = 0;
}

static int varint(struct peek *k, uint64_t *v)
{
	unsigned char b;
	int shift;

	*v = 0;
	for (shift = 0; shift < 70; shift += 7) {
		if (next_byte(k, &b) != 0)
			return -1;
		if (shift == 63 && b > 1)
			return -1;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

int ccp_format_peek_pid(int fd, uint64_t *pid, uint64_t *start_ns)
{
	struct peek k = { fd, 0, 0, 0, { 0 } };
	unsigned char head[CCP_HEADER_SIZE];
	uint64_t tag, len, v, argc, i;
	off_t end;
	ssize_t r;

	do
		r = pread(fd, head, sizeof head, 0);
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)sizeof head || memcmp(head, CCP_MAGIC, CCP_MAGIC_LEN) != 0 ||
	    (head[10] | head[11] << 8) < CCP_HEADER_SIZE)
		return -1;
	seek(&k, (off_t)(head[10] | head[11] << 8));
	if (varint(&k, &tag) != 0 || tag != CCP_SEC_STRINGS || varint(&k, &len) != 0 ||
	    len > (uint64_t)1 << 40)
		return -1;
	seek(&k, position(&k) + (off_t)len);
	if (varint(&k, &tag) != 0 || tag != CCP_SEC_META || varint(&k, &len) != 0 ||
	    len > (uint64_t)1 << 40)
		return -1;
	end = position(&k) + (off_t)len;
	if (varint(&k, &v) != 0 || varint(&k, &argc) != 0) /* program, argc */
		return -1;
	for (i = 0; i < argc; i++)
		if (varint(&k, &v) != 0 || position(&k) > end)
			return -1;
	if (varint(&k, pid) != 0 || varint(&k, start_ns) != 0 || position(&k) > end)
		return -1;
	return 0;
}
