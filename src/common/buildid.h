/*
 * buildid.h - an ELF file's build-id (NT_GNU_BUILD_ID), in the lowercase
 * hex a profile's MODULES records, read from its notes.
 *
 * Shared by the runtime (modules.c reads a loaded module's notes in
 * memory) and elfsym.c (a file's notes, for the runtime and the tool), so
 * that both spell a build-id alike.  No allocation, no stdio, only memcpy
 * and memcmp: async-signal-safe.
 */
#ifndef CCPROF_BUILDID_H
#define CCPROF_BUILDID_H

#include <stdint.h>

/* At most 20 bytes of build-id, two hex digits each, and the NUL. */
#define BUILDID_HEX_SIZE 41

/* The build-id among the notes at `notes`, `len` bytes of them: 1, its hex
 * in out; or 0, out untouched.  A note is read only if its header, name
 * and description lie within the len bytes. */
int buildid_from_notes(const unsigned char *notes, uint64_t len, char out[BUILDID_HEX_SIZE]);

#endif
