/*
 * export_hp.c - GHC's heap profile, .hp (FORMATS.md §3), for hp2ps and
 * the other readers of GHC's heap profiles: the live heap over time, by
 * stack.
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
 *                 none of them, as it keeps no outside allocation)
 *
 * Threads are merged: one stack's bytes in every thread make one band,
 * as the stack tree adds them up.  Each record of a sample goes to the
 * stack-tree node of its context under the view (selection, focus), found
 * through the view's history and the tree's children, once per context.
 */
#include "output/export.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/heap.h"
#include "model/view.h"
#include "model/xalloc.h"
#include "output/escape.h"
#include "output/names.h"

#define HP_UNSET UINT32_MAX          /* band not looked up yet */
#define HP_DROPPED (UINT32_MAX - 1)  /* the view drops the context */

struct hp {
	struct ob *o;
	const struct model *m;
	struct names names;  /* escape_hp_name */
	struct htab children; /* parent << 32 | cc -> node of m's tree */
	uint32_t *band;      /* per profile context, threads one after another */
	uint32_t *first;     /* per thread: its first context's place in band */
	uint32_t *buf, buf_cap; /* one view history */
	uint64_t *bytes;     /* per band: the sample being written */
	uint32_t *touched, ntouched; /* bands with bytes in it */
};

static void hp_init(struct hp *h, FILE *f, const struct model *m)
{
	const struct ccp_profile *p = m->prof;
	uint32_t n = 0;
	*h = (struct hp){.o = ob_open(f), .m = m};
	names_init(&h->names, m, &escape_hp_name, 0);
	htab_init(&h->children, m->nnodes);
	for (uint32_t k = 1; k < m->nnodes; k++)
		htab_put_u64(&h->children, (uint64_t)m->nodes[k].parent << 32 | m->nodes[k].cc, k);
	h->first = xnmalloc(p->nthreads + 1, sizeof *h->first);
	for (uint32_t t = 0; t < p->nthreads; t++) {
		h->first[t] = n;
		n += p->threads[t].ncontexts;
	}
	h->band = xnmalloc(n ? n : 1, sizeof *h->band);
	for (uint32_t i = 0; i < n; i++)
		h->band[i] = HP_UNSET;
	/* bands: the nodes, then a hidden stand-in under each */
	h->bytes = xcalloc(2 * (size_t)m->nnodes + 1, sizeof *h->bytes);
	h->touched = xnmalloc(2 * (size_t)m->nnodes + 1, sizeof *h->touched);
}

static void hp_free(struct hp *h)
{
	names_free(&h->names);
	htab_free(&h->children);
	free(h->first);
	free(h->band);
	free(h->buf);
	free(h->bytes);
	free(h->touched);
}

/* The band of the node of a view history h[0..n): its marked entries
 * from the root (view histories are all marked under a selection); a
 * hidden node's is the stand-in under its nearest shown ancestor. */
static uint32_t node_band(const struct hp *h, const uint32_t *hist, uint32_t n)
{
	const struct model *m = h->m;
	const uint8_t *hidden = m->tree_pruned.hidden;
	uint32_t node = 0;
	for (uint32_t i = 0; i < n && node != HTAB_NONE; i++)
		if (CCP_ENTRY_MARKED(hist[i]))
			node = htab_get_u64(&h->children,
					    (uint64_t)node << 32 | CCP_ENTRY_CC(hist[i]));
	if (node == HTAB_NONE) /* cannot be: the tree has every view stack */
		return HP_DROPPED;
	if (!hidden || !hidden[node])
		return node;
	while (hidden[m->nodes[node].parent])
		node = m->nodes[node].parent;
	return m->nnodes + m->nodes[node].parent;
}

/* The band of a record's context, looked up once. */
static uint32_t record_band(struct hp *h, const struct ccp_heap_record *r)
{
	uint32_t *band = &h->band[h->first[r->thread] + r->context];
	const struct ccp_context *c = &h->m->prof->threads[r->thread].contexts[r->context];
	int calls;
	if (*band != HP_UNSET)
		return *band;
	if (c->len > h->buf_cap) {
		h->buf_cap = 2 * c->len;
		h->buf = xrealloc(h->buf, h->buf_cap, sizeof *h->buf);
	}
	uint32_t n = model_view_history(h->m->view, c->hist, c->len, h->buf, &calls);
	*band = n == MODEL_NONE ? HP_DROPPED : node_band(h, h->buf, n);
	return *band;
}

/* "(k)inner/.../bottom": the stack of node k (of the parent's stand-in
 * when k is past the nodes), innermost first. */
static void band_name(const struct hp *h, uint32_t band)
{
	const struct model *m = h->m;
	uint32_t k = band < m->nnodes ? band : band - m->nnodes;
	ob_putc(h->o, '(');
	ob_u64(h->o, band, 0);
	ob_putc(h->o, ')');
	if (band >= m->nnodes)
		ob_puts(h->o, k ? EXPORT_HIDDEN_NAME "/" : EXPORT_HIDDEN_NAME);
	else if (k == 0)
		ob_puts(h->o, EXPORT_ROOT_NAME);
	for (; k != 0; k = m->nodes[k].parent) {
		names_put(h->o, &h->names, m->nodes[k].cc);
		if (m->nodes[k].parent != 0)
			ob_putc(h->o, '/');
	}
}

/* Seconds as %f writes them (six decimals), whatever the locale. */
static void hp_time(struct ob *o, const char *key, uint64_t ns)
{
	ob_puts(o, key);
	ob_ratio(o, ns, 1000000000u, 0, 6, 0);
	ob_putc(o, '\n');
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* One sample: its records added up by band, the bands in node order. */
static void hp_sample(struct hp *h, const struct ccp_heap_sample *s)
{
	int focused = h->m->view && h->m->view->focus;
	hp_time(h->o, "BEGIN_SAMPLE ", s->time_ns);
	h->ntouched = 0;
	for (uint32_t r = 0; r < s->nrecords; r++) {
		uint32_t b = record_band(h, &s->records[r]);
		if (b == HP_DROPPED)
			continue;
		if (!h->bytes[b])
			h->touched[h->ntouched++] = b;
		h->bytes[b] += s->records[r].bytes; /* records' bytes are > 0 */
	}
	qsort(h->touched, h->ntouched, sizeof *h->touched, cmp_u32);
	for (uint32_t i = 0; i < h->ntouched; i++) {
		uint32_t b = h->touched[i];
		band_name(h, b);
		ob_putc(h->o, '\t');
		ob_u64(h->o, h->bytes[b], 0);
		ob_putc(h->o, '\n');
		h->bytes[b] = 0;
	}
	if (s->outside_bytes && !focused)
		ob_printf(h->o, "(outside)\t%llu\n", (unsigned long long)s->outside_bytes);
	hp_time(h->o, "END_SAMPLE ", s->time_ns);
}

/* JOB, DATE and the units, as GHC writes them. */
static void hp_header(struct hp *h)
{
	const struct ccp_profile *p = h->m->prof;
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
	(void)opts;
	hp_init(&h, f, in->m);
	hp_header(&h);
	/* hp2ps wants a sample; GHC starts with an empty one at 0 */
	if (heap->nsamples == 0 || heap->samples[0].time_ns > 0)
		ob_puts(h.o, "BEGIN_SAMPLE 0.000000\nEND_SAMPLE 0.000000\n");
	for (uint32_t k = 0; k < heap->nsamples; k++)
		hp_sample(&h, &heap->samples[k]);
	hp_free(&h);
	return ob_close(h.o);
}
