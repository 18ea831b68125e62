/*
 * gzip.c - gzip with stored deflate blocks (see gzip.h).
 *
 * A gzip member (RFC 1952): a 10-byte header (magic 1f 8b, method 8 =
 * deflate, no flags, no time, OS 3 = Unix), the deflate stream, then the
 * CRC-32 and the length mod 2^32 of the data, little-endian.  The deflate
 * stream (RFC 1951 §3.2.4) is stored blocks: one header byte (BFINAL in
 * bit 0, BTYPE 00; the other bits pad to the byte boundary), LEN and its
 * complement NLEN as 16-bit little-endian, then LEN bytes of data.  Empty
 * data is one final block with LEN 0.
 */
#include "output/gzip.h"

#define STORED_MAX 65535u

static uint32_t crc_table[256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

uint32_t gzip_crc32(uint32_t crc, const void *data, size_t n)
{
	const unsigned char *p = data;
	if (!crc_table[1])
		crc_init();
	crc = ~crc;
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static void put_le32(unsigned char *out, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		out[i] = (unsigned char)(v >> (8 * i));
}

int gzip_write(FILE *f, const void *data, size_t n)
{
	static const unsigned char header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
	const unsigned char *p = data;
	fwrite(header, 1, sizeof header, f);
	size_t left = n;
	do {
		unsigned len = left > STORED_MAX ? STORED_MAX : (unsigned)left;
		unsigned char block[5] = {
			left == len, /* BFINAL */
			(unsigned char)len, (unsigned char)(len >> 8),
			(unsigned char)~len, (unsigned char)(~len >> 8),
		};
		fwrite(block, 1, sizeof block, f);
		if (len)
			fwrite(p, 1, len, f);
		p += len;
		left -= len;
	} while (left > 0);
	unsigned char trailer[8];
	put_le32(trailer, gzip_crc32(0, data, n));
	put_le32(trailer + 4, (uint32_t)n);
	fwrite(trailer, 1, sizeof trailer, f);
	return ferror(f) ? -1 : 0;
}
