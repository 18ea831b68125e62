/*
 * heapdump.c - print what a profile's heap part holds, read through the
 * format library's reader alone (format.h), so that tests/heap.py checks
 * the runtime's numbers without going through the tool's views.
 *
 * Usage: heapdump FILE.  Lines:
 *   heap INTERVAL_NS PEAK OUTSIDE_LIVE_BYTES OUTSIDE_LIVE_BLOCKS NSAMPLES
 *   alloc OUTSIDE_BYTES OUTSIDE_BLOCKS
 *   ctx THREAD ALLOC_BYTES ALLOC_BLOCKS LIVE_BYTES LIVE_BLOCKS : HISTORY
 *   sample TIME_NS OUTSIDE_BYTES TOTAL_BYTES
 *   rec THREAD BYTES : HISTORY
 * HISTORY as docs/semantics.md draws it, "[main] P [Q]", marked in
 * brackets; only contexts that allocated are listed.  Exits 1 if the file is
 * unreadable, 2 if it has no heap part.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "format/format.h"

static void history(const struct ccp_profile *p, const struct ccp_context *c)
{
	for (uint32_t i = 0; i < c->len; i++) {
		uint32_t e = c->hist[i];
		const char *name = p->ccs[CCP_ENTRY_CC(e)].name;

		printf(CCP_ENTRY_MARKED(e) ? " [%s]" : " %s", name);
	}
	putchar('\n');
}

static void samples(const struct ccp_profile *p)
{
	for (uint32_t k = 0; k < p->heap.nsamples; k++) {
		const struct ccp_heap_sample *s = &p->heap.samples[k];
		uint64_t total = s->outside_bytes;

		for (uint32_t i = 0; i < s->nrecords; i++)
			total += s->records[i].bytes;
		printf("sample %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", s->time_ns, s->outside_bytes,
		       total);
		for (uint32_t i = 0; i < s->nrecords; i++) {
			const struct ccp_heap_record *r = &s->records[i];

			printf("rec %" PRIu32 " %" PRIu64 " :", r->thread, r->bytes);
			history(p, &p->threads[r->thread].contexts[r->context]);
		}
	}
}

int main(int argc, char **argv)
{
	struct ccp_profile p;
	char err[512];

	if (argc != 2) {
		fprintf(stderr, "usage: heapdump FILE\n");
		return 1;
	}
	if (ccp_format_read_file(argv[1], &p, err, sizeof err) != 0) {
		fprintf(stderr, "heapdump: %s\n", err);
		return 1;
	}
	if (!p.heap.measured)
		return 2;
	printf("heap %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu32 "\n",
	       p.heap.interval_ns, p.heap.peak_bytes, p.heap.outside_live_bytes,
	       p.heap.outside_live_blocks, p.heap.nsamples);
	printf("alloc %" PRIu64 " %" PRIu64 "\n", p.alloc.outside_bytes, p.alloc.outside_blocks);
	for (uint32_t t = 0; t < p.nthreads; t++)
		for (uint32_t i = 0; i < p.threads[t].ncontexts; i++) {
			const struct ccp_context *c = &p.threads[t].contexts[i];

			if (!c->alloc_bytes && !c->alloc_blocks)
				continue;
			printf("ctx %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " :", t,
			       c->alloc_bytes, c->alloc_blocks, c->live_bytes, c->live_blocks);
			history(&p, c);
		}
	samples(&p);
	ccp_profile_free(&p);
	return 0;
}
