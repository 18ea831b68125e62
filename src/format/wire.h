/*
 * wire.h - private to src/format: the byte-level pieces that the encoder
 * (encode.c) and the decoder (decode.c) must agree on.  The layout itself
 * is specified in docs/format.md; change both together.  One outside user:
 * the tool's protocol-buffers encoder (output/pbuf.c) writes its varints
 * with ccp_varint_put, since protobuf's are the same LEB128.
 */
#ifndef CCPROF_FORMAT_WIRE_H
#define CCPROF_FORMAT_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* 0x89 keeps 7-bit channels from passing the file unnoticed, "\r\n" and
 * "\n" catch line-ending conversion, 0x1a stops a DOS `type`.  Written as
 * two literals because "\x89C" would be one hex escape. */
#define CCP_MAGIC "\x89" "CCP\r\n\x1a\n"
#define CCP_MAGIC_LEN 8
#define CCP_HEADER_SIZE 16
#define CCP_PROBE "\x01\x02\x03\x04" /* the u32 0x04030201, little-endian */

#define CCP_VARINT_MAX 10 /* bytes in the longest LEB128 of a uint64_t */

/* Section tags, in the order they must appear (END last). */
enum ccp_section {
	CCP_SEC_END = 0,
	CCP_SEC_STRINGS = 1,
	CCP_SEC_META = 2,
	CCP_SEC_MODULES = 3,
	CCP_SEC_CCS = 4,
	CCP_SEC_THREAD = 5,
	CCP_SEC_STATS = 6,
	CCP_SEC_ALLOC = 7, /* optional, after STATS: format.md 3.7 */
	CCP_SEC_HEAP = 8,  /* optional, after ALLOC: format.md 3.8 */
	CCP_SEC_FIRST_UNKNOWN = 9, /* this tag and above: skipped by readers */
};

#define CCP_END_PAYLOAD 4 /* the CRC-32 */
#define CCP_STAT_KEYS 10  /* STATS keys 1..10: written always */
#define CCP_STAT_SUBTRACTED 11 /* written only when not 0 (format.md 3.6) */
#define CCP_STAT_MERGED 12     /* written only when not 0 (format.md 3.6) */
#define CCP_STAT_OWN_TIME 13   /* written only when not 0 (format.md 3.6) */
#define CCP_STAT_LOOKS 14      /* written only when not 0 (format.md 3.6) */
#define CCP_STAT_SLOW_FINDS 15 /* written only when not 0 (format.md 3.6) */
#define CCP_STAT_UNTRACKED 16  /* written only when not 0 (format.md 3.6) */

/* CCP_ENTRY(cc, mark) must fit a uint32_t, so there are at most 2^31 CCs. */
#define CCP_MAX_CCS (UINT32_C(1) << 31)

/* Name of a section for messages ("STRINGS"; "unknown" above ALLOC). */
const char *ccp_section_name(uint64_t tag);

/* CRC-32 (IEEE 802.3, reflected, poly 0xEDB88320), zlib-style chaining
 * (crc32.c):
 * pass 0 to start, the previous result to continue. */
uint32_t ccp_crc32(uint32_t crc, const unsigned char *p, size_t n);

/* Write v as an unsigned LEB128 varint into out (room for CCP_VARINT_MAX
 * bytes); returns the number of bytes written (1..10). */
size_t ccp_varint_put(unsigned char *out, uint64_t v);

/* The struct ccp_stats field a STATS key stands for, or NULL if the key is
 * not one this version knows (readers then ignore it). */
uint64_t *ccp_stats_slot(struct ccp_stats *s, uint64_t key);

/*
 * History validation shared by both sides, so that the writer never emits a
 * file the reader refuses.  A valid history is empty (the root context) or
 * has every CC index < nccs, its last entry marked, and no CC marked twice.
 * The double-mark test stamps each marked CC with a per-history generation
 * number: O(len), no clearing between histories.
 */
struct ccp_marks {
	uint32_t *stamp; /* nccs entries, the generation that last marked it */
	uint32_t gen;
	uint32_t nccs;
};

enum ccp_hist_err {
	CCP_HIST_OK = 0,
	CCP_HIST_BAD_CC,      /* an entry's CC index >= nccs */
	CCP_HIST_UNMARKED,    /* the running (last) entry is not marked */
	CCP_HIST_TWICE,       /* a CC marked twice */
};

int ccp_marks_init(struct ccp_marks *m, uint32_t nccs); /* -1 = no memory */
void ccp_marks_fini(struct ccp_marks *m);
enum ccp_hist_err ccp_history_check(struct ccp_marks *m, const uint32_t *hist, uint32_t len);

#endif
