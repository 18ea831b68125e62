/*
 * export_hp.c - GHC's heap profile, .hp (docs/exports.md, "hp"), for hp2ps
 * and the other readers of GHC's heap profiles: the live heap over time,
 * by stack.
 *
 * Mapping (docs/exports.md, "hp"):
 *   JOB, DATE     the command line; the run's start ("%a %b %d %H:%M %Y",
 *                 as GHC writes it)
 *   SAMPLE_UNIT   "seconds", since the runtime started; VALUE_UNIT "bytes"
 *   samples       one per heap sample of the profile, oldest first, and an
 *                 empty one at 0.0 first when the first is later (GHC
 *                 writes one there); the runtime takes the last as it
 *                 writes the profile, so it is the live heap at the end
 *   bands         one per stack of the view with live bytes in the sample,
 *                 named as GHC's -hc names a cost-centre stack: the
 *                 node's number in parentheses, then the stack innermost
 *                 first, "(12)inner/caller/main"; the root context (in a
 *                 thread, outside any cost centre) is "(0)<root>", a
 *                 pruned subtree "(N)(hidden)/parent/..." (N = the
 *                 number of nodes + the parent's), and the bytes live in
 *                 no context "(outside)" (not under a focus, which keeps
 *                 none of them, as it keeps no outside allocation);
 *                 with --name-length N, a stack longer than N bytes is
 *                 cut to N - 3 and "...", as GHC's +RTS -L (GHC cuts at
 *                 25 by default; C++ stacks run to thousands of bytes)
 *
 * Threads are merged: one stack's bytes in every thread make one band,
 * as the stack tree adds them up (heap_bands.h, shared with heap-svg).
 */
#include "output/export.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/heap.h"
#include "output/escape.h"
#include "output/heap_bands.h"
#include "output/names.h"

struct hp {
	struct ob *o;
	struct names names;     /* escape_hp_name */
	struct heap_bands bands;
	size_t name_length;     /* --name-length, 0: whole names */
};

static void hp_init(struct hp *h, FILE *f, const struct model *m, size_t name_length)
{
	h->o = ob_open(f);
	h->name_length = name_length;
	names_init(&h->names, m, &escape_hp_name, 0);
	heap_bands_init(&h->bands, m);
}

static void hp_free(struct hp *h)
{
	names_free(&h->names);
	heap_bands_free(&h->bands);
}

/* Seconds as %f writes them (six decimals), whatever the locale. */
static void hp_time(struct ob *o, const char *key, uint64_t ns)
{
	ob_puts(o, key);
	ob_ratio(o, ns, 1000000000u, 0, 6, 0);
	ob_putc(o, '\n');
}

/* One sample: its records added up by band, the bands in node order. */
static void hp_sample(struct hp *h, const struct ccp_heap_sample *s)
{
	struct heap_bands *b = &h->bands;
	hp_time(h->o, "BEGIN_SAMPLE ", s->time_ns);
	heap_bands_sample(b, s);
	for (uint32_t i = 0; i < b->ntouched; i++) {
		heap_bands_name(h->o, b, &h->names, b->touched[i], h->name_length);
		ob_putc(h->o, '\t');
		ob_u64(h->o, b->bytes[b->touched[i]], 0);
		ob_putc(h->o, '\n');
	}
	heap_bands_clear(b);
	if (s->outside_bytes && heap_bands_outside(b))
		ob_printf(h->o, "(outside)\t%llu\n", (unsigned long long)s->outside_bytes);
	hp_time(h->o, "END_SAMPLE ", s->time_ns);
}

/* JOB, DATE and the units, as GHC writes them. */
static void hp_header(struct hp *h)
{
	const struct ccp_profile *p = h->bands.m->prof;
	char date[64] = "";
	time_t t = (time_t)(p->start_ns / 1000000000u);
	struct tm tm;
	ob_puts(h->o, "JOB \"");
	for (uint32_t i = 0; i < p->argc; i++) {
		if (i)
			ob_putc(h->o, ' ');
		escape_puts(h->o, &escape_hp_string, p->argv[i]);
	}
	if (p->start_ns && localtime_r(&t, &tm))
		strftime(date, sizeof date, "%a %b %d %H:%M %Y", &tm);
	ob_printf(h->o, "\"\nDATE \"%s\"\nSAMPLE_UNIT \"seconds\"\nVALUE_UNIT \"bytes\"\n", date);
}

/* The samples of the profile; the command refuses a profile without
 * heap data (hp needs the model's tree: MODEL_TREE). */
int export_hp(FILE *f, const struct export_input *in, const struct export_opts *opts)
{
	const struct ccp_heap *heap = &in->m->prof->heap;
	struct hp h;
	hp_init(&h, f, in->m, opts->name_length);
	hp_header(&h);
	/* hp2ps wants a sample; GHC starts with an empty one at 0 */
	if (heap->nsamples == 0 || heap->samples[0].time_ns > 0)
		ob_puts(h.o, "BEGIN_SAMPLE 0.000000\nEND_SAMPLE 0.000000\n");
	for (uint32_t k = 0; k < heap->nsamples; k++)
		hp_sample(&h, &heap->samples[k]);
	hp_free(&h);
	return ob_close(h.o);
}
