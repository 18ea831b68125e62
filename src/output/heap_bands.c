/*
 * heap_bands.c - a heap sample's records as bands of the view (see
 * heap_bands.h).
 */
#include "output/heap_bands.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/view.h"
#include "model/xalloc.h"
#include "output/export.h"

#define BAND_UNSET UINT32_MAX /* not looked up yet */

void heap_bands_init(struct heap_bands *b, const struct model *m)
{
	const struct ccp_profile *p = m->prof;
	uint32_t n = 0;
	*b = (struct heap_bands){.m = m, .nbands = 2 * m->nnodes};
	htab_init(&b->children, m->nnodes);
	for (uint32_t k = 1; k < m->nnodes; k++)
		htab_put_u64(&b->children, (uint64_t)m->nodes[k].parent << 32 | m->nodes[k].cc, k);
	b->first = xnmalloc(p->nthreads + 1, sizeof *b->first);
	for (uint32_t t = 0; t < p->nthreads; t++) {
		b->first[t] = n;
		n += p->threads[t].ncontexts;
	}
	b->band = xnmalloc(n ? n : 1, sizeof *b->band);
	for (uint32_t i = 0; i < n; i++)
		b->band[i] = BAND_UNSET;
	b->bytes = xcalloc((size_t)b->nbands + 1, sizeof *b->bytes);
	b->touched = xnmalloc((size_t)b->nbands + 1, sizeof *b->touched);
}

void heap_bands_free(struct heap_bands *b)
{
	htab_free(&b->children);
	free(b->first);
	free(b->band);
	free(b->buf);
	free(b->bytes);
	free(b->touched);
}

/* The band of the node of a view history h[0..n): its marked entries
 * from the root (view histories are all marked under a selection); a
 * hidden node's is the stand-in under its nearest shown ancestor. */
static uint32_t node_band(const struct heap_bands *b, const uint32_t *hist, uint32_t n)
{
	const struct model *m = b->m;
	const uint8_t *hidden = m->tree_pruned.hidden;
	uint32_t node = 0;
	for (uint32_t i = 0; i < n && node != HTAB_NONE; i++)
		if (CCP_ENTRY_MARKED(hist[i]))
			node = htab_get_u64(&b->children,
					    (uint64_t)node << 32 | CCP_ENTRY_CC(hist[i]));
	if (node == HTAB_NONE) /* cannot be: the tree has every view stack */
		return HEAP_BAND_DROPPED;
	if (!hidden || !hidden[node])
		return node;
	while (hidden[m->nodes[node].parent])
		node = m->nodes[node].parent;
	return m->nnodes + m->nodes[node].parent;
}

uint32_t heap_bands_record(struct heap_bands *b, const struct ccp_heap_record *r)
{
	uint32_t *band = &b->band[b->first[r->thread] + r->context];
	const struct ccp_context *c = &b->m->prof->threads[r->thread].contexts[r->context];
	int calls;
	if (*band != BAND_UNSET)
		return *band;
	if (c->len > b->buf_cap) {
		b->buf_cap = 2 * c->len;
		b->buf = xrealloc(b->buf, b->buf_cap, sizeof *b->buf);
	}
	uint32_t n = model_view_history(b->m->view, c->hist, c->len, b->buf, &calls);
	*band = n == MODEL_NONE ? HEAP_BAND_DROPPED : node_band(b, b->buf, n);
	return *band;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, c = *(const uint32_t *)y;
	return a < c ? -1 : a > c;
}

void heap_bands_sample(struct heap_bands *b, const struct ccp_heap_sample *s)
{
	b->ntouched = 0;
	for (uint32_t r = 0; r < s->nrecords; r++) {
		uint32_t k = heap_bands_record(b, &s->records[r]);
		if (k == HEAP_BAND_DROPPED)
			continue;
		if (!b->bytes[k])
			b->touched[b->ntouched++] = k;
		b->bytes[k] += s->records[r].bytes; /* records' bytes are > 0 */
	}
	qsort(b->touched, b->ntouched, sizeof *b->touched, cmp_u32);
}

void heap_bands_clear(struct heap_bands *b)
{
	for (uint32_t i = 0; i < b->ntouched; i++)
		b->bytes[b->touched[i]] = 0;
	b->ntouched = 0;
}

int heap_bands_outside(const struct heap_bands *b)
{
	return !(b->m->view && b->m->view->focus);
}

/* What a band's stack starts with: a stand-in's "(hidden)", with a '/'
 * before its parent's names, the root's "<root>", or nothing. */
static const char *band_head(const struct model *m, uint32_t band)
{
	if (band >= m->nnodes)
		return band - m->nnodes ? EXPORT_HIDDEN_NAME "/" : EXPORT_HIDDEN_NAME;
	return band == 0 ? EXPORT_ROOT_NAME : "";
}

/* The bytes of a band's stack after "(k)": its head, names and the '/'s. */
static size_t stack_length(const struct heap_bands *b, const struct names *nm, uint32_t band)
{
	const struct model *m = b->m;
	uint32_t k = band < m->nnodes ? band : band - m->nnodes;
	size_t len = strlen(band_head(m, band));
	for (; k != 0; k = m->nodes[k].parent)
		len += nm->off[m->nodes[k].cc + 1] - nm->off[m->nodes[k].cc] +
		       (m->nodes[k].parent != 0);
	return len;
}

/* Writes what fits of s[0 .. n) in *room bytes, cut at a UTF-8 character
 * boundary; returns 0 once the room has run out. */
static int put_within(struct ob *o, const char *s, size_t n, size_t *room)
{
	if (n <= *room) {
		ob_write(o, s, n);
		*room -= n;
		return 1;
	}
	ob_write(o, s, names_cut(s, *room));
	*room = 0;
	return 0;
}

void heap_bands_name(struct ob *o, const struct heap_bands *b, const struct names *nm,
		     uint32_t band, size_t max)
{
	const struct model *m = b->m;
	uint32_t k = band < m->nnodes ? band : band - m->nnodes;
	int cut = max && stack_length(b, nm, band) > max;
	size_t room = cut ? max - strlen(HEAP_BANDS_CUT) : SIZE_MAX;
	const char *head = band_head(m, band);
	ob_putc(o, '(');
	ob_u64(o, band, 0);
	ob_putc(o, ')');
	int more = put_within(o, head, strlen(head), &room);
	for (; more && k != 0; k = m->nodes[k].parent) {
		uint32_t cc = m->nodes[k].cc;
		more = put_within(o, nm->pool + nm->off[cc], nm->off[cc + 1] - nm->off[cc], &room);
		if (more && m->nodes[k].parent != 0)
			more = put_within(o, "/", 1, &room);
	}
	if (cut)
		ob_puts(o, HEAP_BANDS_CUT);
}
