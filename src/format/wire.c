/*
 * wire.c - byte-level primitives shared by the encoder and the decoder:
 * varints, section names, the STATS key table and the history validity
 * rule (the CRC-32 is in crc32.c).  Keeping them in one place is what
 * makes "the writer never produces a file the reader refuses" true by
 * construction.
 */
#include <stdlib.h>

#include "format.h"
#include "wire.h"

const char *ccp_section_name(uint64_t tag)
{
	static const char *const names[] = {"END", "STRINGS", "META",  "MODULES",
					    "CCS", "THREAD",  "STATS", "ALLOC", "HEAP"};
	return tag < CCP_SEC_FIRST_UNKNOWN ? names[tag] : "unknown";
}

size_t ccp_varint_put(unsigned char *out, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		out[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (unsigned char)v;
	return n;
}

uint64_t *ccp_stats_slot(struct ccp_stats *s, uint64_t key)
{
	/* Keys are fixed forever; a new counter gets key 17, never a reused one. */
	switch (key) {
	case 1: return &s->calls;
	case 2: return &s->contexts;
	case 3: return &s->transitions;
	case 4: return &s->deepest_history;
	case 5: return &s->max_depth;
	case 6: return &s->memory_bytes;
	case 7: return &s->samples;
	case 8: return &s->lost_calls;
	case 9: return &s->lost_time;
	case 10: return &s->dispatchers;
	case CCP_STAT_SUBTRACTED: return &s->subtracted;
	case CCP_STAT_MERGED: return &s->merged;
	case CCP_STAT_OWN_TIME: return &s->own_time;
	case CCP_STAT_LOOKS: return &s->looks;
	case CCP_STAT_SLOW_FINDS: return &s->slow_finds;
	case CCP_STAT_UNTRACKED: return &s->untracked_allocs;
	default: return NULL;
	}
}

int ccp_marks_init(struct ccp_marks *m, uint32_t nccs)
{
	/* calloc(0) may return NULL; one spare slot keeps "NULL = no memory". */
	m->stamp = calloc((size_t)nccs + 1, sizeof *m->stamp);
	m->gen = 0;
	m->nccs = nccs;
	return m->stamp ? 0 : -1;
}

void ccp_marks_fini(struct ccp_marks *m)
{
	free(m->stamp);
	m->stamp = NULL;
}

enum ccp_hist_err ccp_history_check(struct ccp_marks *m, const uint32_t *hist, uint32_t len)
{
	if (len == 0)
		return CCP_HIST_OK; /* the root context */
	if (++m->gen == 0) { /* wrapped: old stamps could collide, clear them */
		for (uint32_t i = 0; i < m->nccs; i++)
			m->stamp[i] = 0;
		m->gen = 1;
	}
	for (uint32_t i = 0; i < len; i++) {
		uint32_t cc = CCP_ENTRY_CC(hist[i]);
		if (cc >= m->nccs)
			return CCP_HIST_BAD_CC;
		if (!CCP_ENTRY_MARKED(hist[i]))
			continue;
		if (m->stamp[cc] == m->gen)
			return CCP_HIST_TWICE;
		m->stamp[cc] = m->gen;
	}
	return CCP_ENTRY_MARKED(hist[len - 1]) ? CCP_HIST_OK : CCP_HIST_UNMARKED;
}

int ccp_totals_add(struct ccp_totals *sum, uint64_t entries, uint64_t recursive, uint64_t time)
{
	uint64_t calls, t;
	if (__builtin_add_overflow(sum->calls, entries, &calls) ||
	    __builtin_add_overflow(calls, recursive, &calls) ||
	    __builtin_add_overflow(sum->time, time, &t))
		return -1;
	sum->calls = calls;
	sum->time = t;
	return 0;
}

int ccp_alloc_sums_add(struct ccp_alloc_sums *sum, uint64_t bytes, uint64_t blocks)
{
	uint64_t by, bl;
	if (__builtin_add_overflow(sum->bytes, bytes, &by) ||
	    __builtin_add_overflow(sum->blocks, blocks, &bl))
		return -1;
	sum->bytes = by;
	sum->blocks = bl;
	return 0;
}
