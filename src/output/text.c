/*
 * text.c - helpers shared by the text writers (see text.h).
 */
#include "output/text.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "model/view.h"
#include "output/escape.h"

void text_begin(struct text *t, FILE *f, const struct model *m)
{
	*t = (struct text){
		.o = ob_open(f),
		.m = m,
		.tps = m->prof->ticks_per_sec,
		/* sampling clocks resolve milliseconds at best; cycles finer */
		.prec = m->prof->clock == CCP_CLOCK_CYCLES ? 6 : 3,
		.alloc = model_alloc_measured(m),
	};
	names_init_text(&t->names, m);
}

int text_end(struct text *t)
{
	names_free(&t->names);
	return ob_close(t->o);
}

int text_max(int a, int b)
{
	return a > b ? a : b;
}

int text_udigits(uint64_t v)
{
	int n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

void text_secs(const struct text *t, uint64_t ticks, int width)
{
	ob_ratio(t->o, ticks, t->tps, 0, t->prec, width);
}

void text_pct(const struct text *t, uint64_t ticks)
{
	ob_ratio(t->o, ticks, t->m->total_time, 2, 1, 6);
}

void text_alloc_pct(const struct text *t, uint64_t bytes)
{
	ob_ratio(t->o, bytes, t->m->total_alloc.bytes, 2, 1, 6);
}

void text_bytes_blocks(struct ob *o, struct model_alloc a)
{
	ob_u64(o, a.bytes, 0);
	ob_puts(o, a.bytes == 1 ? " byte in " : " bytes in ");
	ob_u64(o, a.blocks, 0);
	ob_puts(o, a.blocks == 1 ? " block" : " blocks");
}

void text_pct_alloc_secs(const struct text *t, uint64_t ticks, uint64_t bytes, int width)
{
	text_pct(t, ticks);
	if (t->alloc) {
		ob_spaces(t->o, 2);
		text_alloc_pct(t, bytes);
	}
	ob_spaces(t->o, 2);
	text_secs(t, ticks, width);
}

void text_pct_alloc_heads(const struct text *t, int width)
{
	ob_printf(t->o, "%6s  ", "%time");
	if (t->alloc)
		ob_printf(t->o, "%6s  ", "%alloc");
	ob_printf(t->o, "%*s\n", width, "secs");
}

void text_secs_pct(const struct text *t, uint64_t ticks, int width)
{
	text_secs(t, ticks, width);
	ob_spaces(t->o, 2);
	text_pct(t, ticks);
}

int text_secs_width(const struct text *t, uint64_t max_ticks, const char *heading)
{
	return text_max(ob_ratio_len(max_ticks, t->tps, 0, t->prec), (int)strlen(heading));
}

size_t text_name_width(const struct text *t, uint32_t cc)
{
	if (cc == MODEL_GAP)
		return 1;
	if (cc == MODEL_NONE)
		return strlen("<root>");
	return t->names.width[cc];
}

void text_name(const struct text *t, uint32_t cc, size_t indent, size_t w)
{
	ob_spaces(t->o, indent);
	if (cc == MODEL_GAP)
		ob_puts(t->o, TEXT_ELLIPSIS);
	else if (cc == MODEL_NONE)
		ob_puts(t->o, "<root>");
	else
		names_put(t->o, &t->names, cc);
	size_t used = indent + text_name_width(t, cc);
	ob_spaces(t->o, used < w ? w - used + 1 : 1);
}

void text_label(const struct text *t, const char *label, size_t indent, size_t w)
{
	ob_spaces(t->o, indent);
	ob_puts(t->o, label);
	size_t used = indent + strlen(label);
	ob_spaces(t->o, used < w ? w - used + 1 : 1);
}

size_t text_name_col(size_t widest, const char *heading)
{
	size_t w = widest < TEXT_NAME_COL_MAX ? widest : TEXT_NAME_COL_MAX;
	return w > strlen(heading) ? w : strlen(heading);
}

static size_t hidden_label(const struct model_hidden *h, char *buf, size_t len)
{
	int n = snprintf(buf, len, "(%lu hidden)", (unsigned long)h->count);
	return n > 0 ? (size_t)n : 0;
}

size_t text_indent(uint32_t depth)
{
	return depth < TEXT_INDENT_MAX ? depth : TEXT_INDENT_MAX;
}

void text_hidden(const struct text *t, const struct model_hidden *h, uint32_t depth, size_t w)
{
	char label[48];
	hidden_label(h, label, sizeof label);
	text_label(t, label, text_indent(depth), w);
}

size_t text_hidden_width(const struct model_hidden *h, uint32_t depth)
{
	char label[48];
	return text_indent(depth) + hidden_label(h, label, sizeof label);
}

size_t text_tree_widest(const struct text *t, const struct model_node *nodes, uint32_t n,
			const struct model_pruned *pr, uint64_t *max_entries)
{
	size_t widest = 0;
	uint64_t most = 0;
	for (uint32_t k = 0; k < n; k++) {
		const struct model_node *x = &nodes[k];
		if (pr->hidden && pr->hidden[k])
			continue;
		size_t w = text_indent(x->depth) + text_name_width(t, x->cc);
		widest = w > widest ? w : widest;
		most = x->entries > most ? x->entries : most;
		if (pr->rest && pr->rest[k].count) {
			w = text_hidden_width(&pr->rest[k], x->depth + 1);
			widest = w > widest ? w : widest;
			most = pr->rest[k].entries > most ? pr->rest[k].entries : most;
		}
	}
	if (max_entries)
		*max_entries = most;
	return widest;
}

struct tree_lines {
	const struct text *t;
	const struct model_node *nodes;
	const struct model_pruned *pr;
	size_t nw;
	text_row *row;
	void *arg;
};

static void tree_lines_visit(void *arg, uint32_t k, int leaving)
{
	const struct tree_lines *l = arg;
	const struct model_node *x = &l->nodes[k];
	if (!leaving) {
		text_name(l->t, x->cc, text_indent(x->depth), l->nw);
		l->row(l->arg, k, NULL);
	} else if (l->pr->rest && l->pr->rest[k].count) {
		text_hidden(l->t, &l->pr->rest[k], x->depth + 1, l->nw);
		l->row(l->arg, k, &l->pr->rest[k]);
	}
}

void text_tree_lines(const struct text *t, const struct model_node *nodes,
		     const struct model_pruned *pr, size_t nw, text_row *row, void *arg)
{
	struct tree_lines l = {t, nodes, pr, nw, row, arg};
	model_walk(nodes, pr->hidden, tree_lines_visit, &l);
}

void text_history(const struct text *t, const uint32_t *hist, uint32_t len)
{
	struct ob *o = t->o;
	if (len == 0) {
		ob_puts(o, "<root>");
		return;
	}
	for (uint32_t i = 0; i < len; i++) {
		int marked = CCP_ENTRY_MARKED(hist[i]);
		if (i > 0) {
			if (!marked && !CCP_ENTRY_MARKED(hist[i - 1]))
				ob_puts(o, " " TEXT_ELLIPSIS " ");
			else
				ob_putc(o, ' ');
		}
		if (marked)
			ob_putc(o, '[');
		names_put(o, &t->names, CCP_ENTRY_CC(hist[i]));
		if (marked)
			ob_putc(o, ']');
	}
}

void text_title(struct ob *o, const struct ccp_profile *p, const char *title)
{
	char date[64];
	time_t when = (time_t)(p->end_ns / 1000000000u);
	struct tm tm;
	ob_puts(o, title);
	if (p->end_ns && localtime_r(&when, &tm) &&
	    strftime(date, sizeof date, "  (%a %b %d %H:%M %Y)", &tm))
		ob_puts(o, date);
	ob_puts(o, "\n\n    program      ");
	escape_puts(o, &escape_text, p->program ? p->program : "");
	ob_puts(o, "\n    command     ");
	for (uint32_t i = 0; i < p->argc; i++) {
		ob_putc(o, ' ');
		text_shell_word(o, p->argv[i] ? p->argv[i] : "");
	}
	if (p->stats.merged)
		ob_printf(o, "\n    merged       %" PRIu64 " profile%s (the command of the first)",
			  p->stats.merged, p->stats.merged == 1 ? "" : "s");
}

/* "thread 2 worker (tid 4243)", numbered as --threads numbers them; a
 * thread without a name is "thread 2 (tid 4243)". */
static void overflow_thread(struct ob *o, const struct ccp_profile *p, uint32_t t)
{
	const struct ccp_thread *th = &p->threads[t];

	ob_printf(o, "thread %" PRIu32 " ", t + 1);
	if (th->name && th->name[0]) {
		escape_puts(o, &escape_text, th->name);
		ob_putc(o, ' ');
	}
	ob_printf(o, "(tid %" PRIu64 ")", th->tid);
}

void text_overflow_who(struct ob *o, const struct ccp_profile *p,
		       const struct model_overflow *ov)
{
	uint32_t shown = 0;

	if (p->nthreads == 1)
		ob_puts(o, "the thread");
	else if (ov->threads == p->nthreads)
		ob_printf(o, "all %" PRIu32 " threads", p->nthreads);
	else
		ob_printf(o, "%" PRIu32 " of %" PRIu32 " threads", ov->threads, p->nthreads);
	ob_printf(o, " reached max_contexts=%" PRIu64, ov->max_contexts);
	if (p->stats.merged) /* the options are the first run's */
		ob_puts(o, " (the first run's)");
	if (ov->threads == p->nthreads)
		return;
	ob_puts(o, ": ");
	for (uint32_t t = ov->first_thread; t < p->nthreads && shown < TEXT_OVERFLOW_LISTED; t++) {
		if (!model_thread_overflowed(p, t))
			continue;
		ob_puts(o, shown++ ? ", " : "");
		overflow_thread(o, p, t);
	}
	if (shown < ov->threads)
		ob_printf(o, " and %" PRIu32 " more", ov->threads - shown);
}

/* An argument as a shell would need it quoted.  The text between quotes
 * is escaped a run at a time, not byte by byte, so that a UTF-8
 * character stays whole. */
void text_shell_word(struct ob *o, const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789_@%+=:,./-") == strlen(s)) {
		escape_puts(o, &escape_text, s);
		return;
	}
	ob_putc(o, '\'');
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, "'");
		escape_write(o, &escape_text, p, n);
		p += n;
		if (*p == '\'') {
			ob_puts(o, "'\\''");
			p++;
		}
	}
	ob_putc(o, '\'');
}
