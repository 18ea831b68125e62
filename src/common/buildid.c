/*
 * buildid.c - see buildid.h.
 */
#include <elf.h>
#include <link.h>
#include <string.h>

#include "buildid.h"

#define BUILDID_MAX_BYTES ((BUILDID_HEX_SIZE - 1) / 2)

static uint64_t note_align(uint64_t n)
{
	return (n + 3) & ~(uint64_t)3;
}

static void put_hex(const unsigned char *id, uint32_t len, char out[BUILDID_HEX_SIZE])
{
	uint32_t i;

	if (len > BUILDID_MAX_BYTES)
		len = BUILDID_MAX_BYTES;
	for (i = 0; i < len; i++) {
		out[2 * i] = "0123456789abcdef"[id[i] >> 4];
		out[2 * i + 1] = "0123456789abcdef"[id[i] & 15];
	}
	out[2 * len] = '\0';
}

int buildid_from_notes(const unsigned char *notes, uint64_t len, char out[BUILDID_HEX_SIZE])
{
	uint64_t off = 0;

	while (off <= len && len - off >= sizeof(ElfW(Nhdr))) {
		ElfW(Nhdr) n; /* copied: a file places it, aligned or not */
		uint64_t name = off + sizeof n, desc;

		memcpy(&n, notes + off, sizeof n);
		desc = name + note_align(n.n_namesz);
		if (desc > len || n.n_descsz > len - desc)
			break;
		if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 &&
		    memcmp(notes + name, "GNU", 4) == 0) {
			put_hex(notes + desc, n.n_descsz, out);
			return 1;
		}
		off = desc + note_align(n.n_descsz);
	}
	return 0;
}
