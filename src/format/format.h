/*
 * format.h - the ccprof file format, shared by the runtime's writer and the
 * tool's reader.  The layout is specified in docs/format.md.
 */
#ifndef CCPROF_FORMAT_H
#define CCPROF_FORMAT_H

#include "profile.h"

#define CCP_FORMAT_VERSION 1

/*
 * Serialise a profile into a malloc'd buffer.  Returns 0 and sets *buf,
 * *len, or -1 (out of memory; errno set).  Deterministic: the same profile
 * always gives the same bytes.
 */
int ccp_format_encode(const struct ccp_profile *p, unsigned char **buf, size_t *len);

/*
 * Where the encoder gets memory.  The runtime's writer in a signal handler
 * cannot call malloc, so it passes its own; NULL means malloc.  `realloc`
 * gets the old size too (an arena needs it to copy) and must treat p ==
 * NULL as an allocation; `free` may do nothing.  The buffer returned in
 * *buf then also comes from this allocator.
 */
struct ccp_allocator {
	void *(*realloc)(void *ctx, void *p, size_t old_size, size_t new_size);
	void (*free)(void *ctx, void *p, size_t size);
	void *ctx;
};

int ccp_format_encode_with(const struct ccp_profile *p, const struct ccp_allocator *a,
			   unsigned char **buf, size_t *len);

/* Encode and write to an open descriptor.  0 on success, -1 with errno. */
int ccp_format_write_fd(const struct ccp_profile *p, int fd);

/*
 * Parse and validate a profile from memory.  On success returns 0 and fills
 * *p (free with ccp_profile_free).  On failure returns -1 and writes a short
 * reason ("truncated section", "bad magic", ...) into err.
 */
int ccp_format_decode(const unsigned char *buf, size_t len, struct ccp_profile *p,
		      char *err, size_t errlen);

/*
 * Whether the first len bytes of a file (CCP_HEADER_SIZE, 16, or more;
 * the whole file if shorter) can start a profile: -1 with the reason
 * ccp_format_decode would give (bad magic, version, ...) in err if not.
 * For a reader of a pipe or a device, which can refuse at once instead of
 * reading up to the size limit first.
 */
int ccp_format_check_start(const unsigned char *buf, size_t len, char *err, size_t errlen);

/*
 * ccp_format_decode with flags.  CCP_DECODE_NO_CRC skips the checksum, so
 * that tests and fuzzers can reach the structural checks behind it (and a
 * damaged file can be salvaged); every other check still applies.
 */
#define CCP_DECODE_NO_CRC 1u
int ccp_format_decode_flags(const unsigned char *buf, size_t len, struct ccp_profile *p,
			    char *err, size_t errlen, unsigned flags);

/*
 * The pid and start time (META) of the profile open on fd, read with
 * pread into a small buffer: no allocation, async-signal-safe, so that
 * the runtime's writer can call it from a signal handler (peek.c).  No
 * checksum is checked.  0, or -1 if fd holds no profile or is cut short.
 */
int ccp_format_peek_pid(int fd, uint64_t *pid, uint64_t *start_ns);

/* Read a file and decode it; err gets the reason (without the file name). */
int ccp_format_read_file(const char *path, struct ccp_profile *p, char *err, size_t errlen);
/* The same, and *bytes = the file's length (also of a pipe). */
int ccp_format_read_file_sized(const char *path, struct ccp_profile *p, size_t *bytes, char *err,
			       size_t errlen);

void ccp_profile_free(struct ccp_profile *p);

/*
 * Every sum a view makes stays below 2^64 when the whole file's does:
 * calls (entries + recursive) and time, each added over every context of
 * every thread.  Both sides keep running totals with this; -1 means the
 * context would take one past 2^64 (and the totals are left unchanged).
 */
struct ccp_totals {
	uint64_t calls, time;
};
int ccp_totals_add(struct ccp_totals *sum, uint64_t entries, uint64_t recursive, uint64_t time);

/* The same for allocations: bytes and blocks, each added over every
 * context and the allocations outside them, stay below 2^64. */
struct ccp_alloc_sums {
	uint64_t bytes, blocks;
};
int ccp_alloc_sums_add(struct ccp_alloc_sums *sum, uint64_t bytes, uint64_t blocks);

#endif
