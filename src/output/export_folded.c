/*
 * export_folded.c - folded ("collapsed") stacks (docs/exports.md,
 * "folded"), the input of flamegraph.pl, inferno and speedscope:
 *
 *     main;parse;lex 20000
 *
 * One line per compressed stack with individual time, root first, the
 * count in integer microseconds (export_scale: the counts add up to
 * ccprof's total rounded to a microsecond).  Stacks whose share rounds
 * to 0 are left out.  Time outside every cost centre is the stack
 * "<root>".  With --threads each line starts with a frame for its thread,
 * "name [tid]", from the thread's own stack tree.
 *
 * --weight alloc: the count is the bytes the stack allocated (its
 * individual allocation, exact), stacks that allocated nothing left out;
 * cmd_convert.c refuses it for a profile without allocation data.
 *
 * Names: ';' would split a frame, so it is written as U+FF1B (escape.h);
 * a name ending in " <digits>" would read as a second count to
 * flamegraph.pl, so that space becomes U+00A0.
 */
#include "output/export.h"

#include <stdlib.h>
#include <string.h>

#include "model/view.h"
#include "model/xalloc.h"
#include "output/escape.h"
#include "output/names.h"
#include "output/ob.h"

#define NBSP "\xc2\xa0"

struct folded {
	struct ob *o;
	const struct model *m;
	char **name;           /* escaped frame per cost centre */
	const char *thread;    /* escaped thread frame, or NULL */
	struct export_scale us;
	int alloc;             /* counts are bytes (--weight alloc) */
};

/* An escaped frame e (malloc'd) whose end is not read as the line's
 * count: a blank before trailing digits becomes NBSP; e, or its new
 * place. */
static char *guard_count(char *e)
{
	size_t n = strlen(e), d = n;
	while (d > 0 && e[d - 1] >= '0' && e[d - 1] <= '9')
		d--;
	if (d < n && d > 0 && e[d - 1] == ' ') {
		e = xrealloc(e, n + 2, 1);
		memmove(e + d + 1, e + d, n - d + 1); /* ' ' (1 byte) -> NBSP (2) */
		memcpy(e + d - 1, NBSP, 2);
	}
	return e;
}

/* s escaped for a frame, in a new string. */
static char *frame_of(const char *s)
{
	size_t len = strlen(s);
	char *e = xmalloc(ESCAPE_MAX(len) + 1);
	e[escape_mem(e, &escape_folded, s, len)] = '\0';
	return guard_count(e);
}

static void folded_line(void *arg, const struct model_node *x, const struct model_node_alloc *a,
			const uint32_t *path, uint32_t depth, int leaving)
{
	struct folded *fo = arg;
	if (leaving)
		return;
	uint64_t count = export_node_weight(&fo->us, fo->alloc, x, a);
	if (!count)
		return;
	struct ob *o = fo->o;
	if (fo->thread) {
		ob_puts(o, fo->thread);
		ob_putc(o, ';');
	}
	if (depth == 0)
		ob_puts(o, EXPORT_ROOT_NAME);
	for (uint32_t i = 0; i < depth; i++) {
		if (i)
			ob_putc(o, ';');
		ob_puts(o, path[i] == EXPORT_HIDDEN ? EXPORT_HIDDEN_NAME : fo->name[path[i]]);
	}
	ob_putc(o, ' ');
	ob_u64(o, count, 0);
	ob_putc(o, '\n');
}

/* Names of m's cost centres; a thread's model has the same ones.  Those
 * two functions share are qualified (Note [Names that collide] in
 * names.c): flamegraph.pl adds up the frames of one name. */
static char **folded_names(const struct model *m)
{
	struct names nm;
	char **name = xnmalloc(m->nfns ? m->nfns : 1, sizeof *name);
	names_init_qualified(&nm, m, &escape_folded);
	for (uint32_t cc = 0; cc < m->nfns; cc++)
		name[cc] = guard_count(names_strdup(&nm, cc));
	names_free(&nm);
	return name;
}

int export_folded(FILE *f, const struct export_input *in, const struct export_opts *opts)
{
	struct folded fo = {.m = in->m, .alloc = opts->weight == EXPORT_WEIGHT_ALLOC};
	struct ob *o = ob_open(f);
	fo.o = o;
	fo.name = folded_names(in->m);
	export_scale_init(&fo.us, 1000000u, in->m->prof->ticks_per_sec);
	if (!opts->threads) {
		export_walk_tree(in->m, folded_line, &fo);
	} else {
		for (uint32_t t = 0; t < in->nthreads; t++) {
			struct model_thread one;
			char label[128];
			model_thread_build(&one, in->m, t);
			export_thread_label(&in->threads[t], label, sizeof label);
			char *frame = frame_of(label);
			fo.thread = frame;
			fo.m = &one.m;
			export_walk_tree(&one.m, folded_line, &fo);
			free(frame);
			model_thread_free(&one);
		}
	}
	int ret = ob_close(o);
	for (uint32_t cc = 0; cc < in->m->nfns; cc++)
		free(fo.name[cc]);
	free(fo.name);
	return ret;
}
