/*
 * gzip.h - a gzip writer without compression (RFC 1952 around RFC 1951
 * stored blocks), for pprof's .pb.gz (export_pprof.c).
 *
 * Why not zlib: the tool has no library dependencies beyond libc, and
 * every pprof reader accepts a gzip member of stored blocks; the file is
 * the protobuf plus 5 bytes per 64 KiB and 18 of header and trailer.
 * `gzip -dc f.pb.gz | gzip -9 > g.pb.gz` compresses one if size matters.
 */
#ifndef CCPROF_OUTPUT_GZIP_H
#define CCPROF_OUTPUT_GZIP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* CRC-32 (IEEE 802.3, as gzip and zlib) of p[0..n), continuing from crc
 * (0 to start). */
uint32_t gzip_crc32(uint32_t crc, const void *p, size_t n);

/* Write data[0..n) to f as one gzip member; returns 0, or -1 if f had an
 * error. */
int gzip_write(FILE *f, const void *data, size_t n);

#endif
