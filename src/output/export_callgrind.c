/*
 * export_callgrind.c - the call graph in callgrind's profile format
 * (docs/exports.md, "callgrind"), for callgrind_annotate and KCachegrind.
 *
 * Events: the time in the profile's own ticks (nanoseconds of CPU or wall
 * time, or TSC cycles), so every figure is exact, and calls.  Per cost
 * centre (docs/semantics.md, "The views"):
 *
 *   fn=F            self(F) and calls(F) as its self costs
 *   calls=N         arc calls(A→F), in the caller A's block
 *   next line       the arc's inclusive cost: time self_in + child_in,
 *                   calls Σ E+R by the same rule as the time
 *
 * Why the _in times: callgrind_annotate --inclusive=yes (and KCachegrind)
 * take a called function's inclusive cost to be the sum of the costs on
 * the calls into it.  A context charges its time to the incoming arc of
 * each marked entry (the pair with the entry before it, or the thread's
 * start for the first), once per function, so the arcs into F add up to
 * inherited(F) exactly, also under mutual recursion (re-entry is not
 * counted twice).  The start of a thread is the function "<root>", which
 * calls each thread root (the model's spontaneous arcs), in its file, and
 * holds the time outside every cost centre as its self cost, so the
 * totals are ccprof's total.  A recursive arc F→F carries its calls and no cost.
 * An arc with time and no call (a view's: under a selection with mutual
 * recursion, reduced stacks put side by side functions of which neither
 * called the other) is written as it is, calls=0 with its cost: the calls
 * into F in the file still add up to inherited(F), but callgrind_annotate
 * counts the cost as the caller's own (docs/exports.md).
 *
 * With allocation data (Note [Allocation as a cost] in model.h), two
 * more events after those, alloc_bytes and alloc_blocks: self costs are
 * self_alloc(F), <root>'s the allocations of the empty stack, and a
 * call's inclusive cost is charged by the same rule as its time, so the
 * calls into F add up to inherited_alloc(F) and the totals to the
 * model's total_alloc.  Without it the file is as before, two events.
 *
 * Positions are source lines where known, else 0; the call site is
 * unknown, so a call's cost line is at the caller's line.  Name
 * compression: each object, file and function is defined once, on first
 * use.  `events:` is the last header line, as callgrind_annotate
 * requires.
 */
#include "output/export.h"

#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"
#include "output/escape.h"
#include "output/names.h"
#include "output/ob.h"

/* A name space of compressed names (files or objects): ids from 1 in
 * order of first use, each defined once, at its first reference. */
struct cg_names {
	struct export_strtab tab; /* id - 1 -> name */
	unsigned char *done;      /* per id: defined already */
};

struct cg {
	struct ob *o;
	const struct model *m;
	struct names names;     /* escape_line */
	struct cg_names files, objects;
	uint32_t *file_of;      /* cc -> file id; [nfns] the root's */
	uint32_t *object_of;    /* cc -> object id; [nfns] the root's */
	unsigned char *fn_done; /* function names defined already */
	uint64_t *arc_calls;    /* inclusive calls per arc */
	int alloc;              /* the allocation events too */
};

/* ---- files and objects --------------------------------------------------- */

/*
 * A cost centre's object is its module (the program for a region); its
 * file the source file when known, else "???", callgrind's own name for
 * an unknown file.  Not the object's name: callgrind_annotate (with its
 * default --auto=yes) opens every fl= file it finds in the current
 * directory as source, and the program usually sits there, so it would
 * "annotate" the executable, with Perl warnings on stderr; "???" it skips.
 * callgrind_annotate strips the current directory from fl= names but not
 * from cfi= names, so a full path under it would make a function appear
 * twice; cfi= is written only for calls across files, and never for
 * <root>'s (Note [The root in its callees' file]).
 */
static const char *cg_file(const struct model *m, uint32_t cc)
{
	if (cc != MODEL_NONE && ccp_cc_has_source(&m->prof->ccs[cc]))
		return m->prof->ccs[cc].file;
	return "???";
}

static uint32_t cg_names_add(struct cg_names *n, const char *name)
{
	return export_strtab_add(&n->tab, name) + 1;
}

static void cg_files(struct cg *g)
{
	const struct model *m = g->m;
	export_strtab_init(&g->files.tab);
	export_strtab_init(&g->objects.tab);
	g->file_of = xcalloc((size_t)m->nfns + 1, sizeof *g->file_of);
	g->object_of = xcalloc((size_t)m->nfns + 1, sizeof *g->object_of);
	for (uint32_t cc = 0; cc <= m->nfns; cc++) {
		uint32_t c = cc == m->nfns ? MODEL_NONE : cc;
		if (c != MODEL_NONE && !m->fns[c].seen)
			continue;
		g->object_of[cc] = cg_names_add(&g->objects, export_object(m, c));
		g->file_of[cc] = cg_names_add(&g->files, cg_file(m, c));
	}
	g->files.done = xcalloc(g->files.tab.n + 1, 1);
	g->objects.done = xcalloc(g->objects.tab.n + 1, 1);
	g->fn_done = xcalloc((size_t)m->nfns + 2, 1);
}

/* "(id)", and the first time id is used " " too: returns whether the
 * name is to follow (callgrind's name compression). */
static int cg_id(struct cg *g, uint32_t id, unsigned char *done)
{
	ob_putc(g->o, '(');
	ob_u64(g->o, id, 0);
	ob_putc(g->o, ')');
	if (done[id])
		return 0;
	done[id] = 1;
	ob_putc(g->o, ' ');
	return 1;
}

/* "KEY=(id)" and, the first time, " name". */
static void cg_ref(struct cg *g, const char *key, struct cg_names *n, uint32_t id)
{
	ob_puts(g->o, key);
	if (cg_id(g, id, n->done))
		escape_puts(g->o, &escape_line, n->tab.s[id - 1]);
	ob_putc(g->o, '\n');
}

/* Function ids: cost centre + 1; the root pseudo-function is nfns + 1. */
static void cg_fn_ref(struct cg *g, uint32_t cc)
{
	uint32_t id = cc == MODEL_NONE ? g->m->nfns + 1 : cc + 1;
	if (cg_id(g, id, g->fn_done)) {
		if (cc == MODEL_NONE)
			ob_puts(g->o, EXPORT_ROOT_NAME);
		else
			names_put(g->o, &g->names, cc);
	}
	ob_putc(g->o, '\n');
}

/* ---- inclusive calls per arc ---------------------------------------------- */

/* The arc-time rule of docs/semantics.md, "The views", with E+R for T:
 * each marked entry charges its incoming arc (from MODEL_NONE for the
 * first entry).  An arc's inclusive allocations are the model's by the
 * same rule (model.arc_alloc: self_in + child_in, as for its time). */
static void cg_arc_calls(struct cg *g)
{
	const struct model *m = g->m;
	g->arc_calls = xcalloc(m->narcs ? m->narcs : 1, sizeof *g->arc_calls);
	for (uint32_t k = 0; k < m->nctx; k++) {
		const struct ccp_context *c = &m->ctx[k];
		uint64_t calls = c->entries + c->recursive;
		if (!calls)
			continue;
		for (uint32_t i = 0; i < c->len; i++) {
			if (!CCP_ENTRY_MARKED(c->hist[i]))
				continue;
			uint32_t caller = i ? CCP_ENTRY_CC(c->hist[i - 1]) : MODEL_NONE;
			const struct model_arc *a =
				model_find_arc(m, caller, CCP_ENTRY_CC(c->hist[i]));
			if (a)
				g->arc_calls[a - m->arcs] += calls;
		}
	}
}

/* ---- writing ------------------------------------------------------------ */

/* The time event: named after its unit, with a long name after ':'. */
static const char *cg_event(const struct ccp_profile *p)
{
	if (p->clock == CCP_CLOCK_CYCLES)
		return "cycles : time-stamp counter cycles";
	if (p->ticks_per_sec != 1000000000u)
		return "ticks : time (clock ticks, see ccprof info)";
	return p->clock == CCP_CLOCK_WALL ? "wall_ns : wall-clock time (ns)"
					  : "cpu_ns : CPU time (ns)";
}

/* The costs of a line, one per event: time, calls and (with allocation
 * data) bytes and blocks. */
static void cg_costs(struct cg *g, uint64_t time, uint64_t calls, struct model_alloc a)
{
	struct ob *o = g->o;
	ob_u64(o, time, 0);
	ob_putc(o, ' ');
	ob_u64(o, calls, 0);
	if (g->alloc) {
		ob_putc(o, ' ');
		ob_u64(o, a.bytes, 0);
		ob_putc(o, ' ');
		ob_u64(o, a.blocks, 0);
	}
}

/* A cost line at a position (a source line, or 0). */
static void cg_cost_line(struct cg *g, uint32_t line, uint64_t time, uint64_t calls,
			 struct model_alloc a)
{
	ob_u64(g->o, line, 0);
	ob_putc(g->o, ' ');
	cg_costs(g, time, calls, a);
	ob_putc(g->o, '\n');
}

static void cg_header(struct cg *g)
{
	struct ob *o = g->o;
	const struct ccp_profile *p = g->m->prof;
	const char *event = cg_event(p);
	ob_puts(o, "# callgrind format\nversion: 1\ncreator: ccprof " CCPROF_VERSION "\npid: ");
	ob_u64(o, p->pid, 0);
	ob_puts(o, "\ncmd: ");
	if (p->argc == 0)
		escape_puts(o, &escape_line, export_program(g->m));
	for (uint32_t i = 0; i < p->argc; i++) {
		if (i)
			ob_putc(o, ' ');
		escape_puts(o, &escape_line, p->argv[i]);
	}
	ob_puts(o, "\npart: 1\npositions: line\nevent: ");
	ob_puts(o, event);
	ob_puts(o, "\nevent: calls : calls (entries)\n");
	if (g->alloc)
		ob_puts(o, "event: alloc_bytes : bytes allocated\n"
			   "event: alloc_blocks : blocks allocated\n");
	ob_puts(o, "events: ");
	ob_write(o, event, strcspn(event, " "));
	ob_puts(o, g->alloc ? " calls alloc_bytes alloc_blocks\nsummary: " : " calls\nsummary: ");
	cg_costs(g, g->m->total_time, g->m->total_calls, g->m->total_alloc);
	ob_puts(o, "\n\n");
}

/* The position the body is at: the current ob= and fl=. */
struct cg_pos {
	uint32_t object, file;
};

/* ob= and fl= for a function (index nfns: the root), when they change. */
static void cg_move(struct cg *g, struct cg_pos *pos, uint32_t idx)
{
	if (g->object_of[idx] != pos->object) {
		pos->object = g->object_of[idx];
		cg_ref(g, "ob=", &g->objects, pos->object);
	}
	if (g->file_of[idx] != pos->file) {
		pos->file = g->file_of[idx];
		cg_ref(g, "fl=", &g->files, pos->file);
	}
}

/* A call of arc k from the current function, at the caller's line. */
static void cg_call(struct cg *g, const struct cg_pos *pos, uint32_t k, uint32_t line)
{
	struct ob *o = g->o;
	const struct model *m = g->m;
	const struct model_arc *a = &m->arcs[k];
	uint32_t callee = a->callee;
	if (g->object_of[callee] != pos->object)
		cg_ref(g, "cob=", &g->objects, g->object_of[callee]);
	if (g->file_of[callee] != pos->file)
		cg_ref(g, "cfi=", &g->files, g->file_of[callee]);
	ob_puts(o, "cfn=");
	cg_fn_ref(g, callee);
	ob_puts(o, "calls=");
	ob_u64(o, a->calls, 0);
	ob_putc(o, ' ');
	ob_u64(o, m->prof->ccs[callee].line, 0);
	ob_putc(o, '\n');
	/* the very next line: the inclusive cost */
	struct model_alloc in = {0, 0};
	if (m->arc_alloc) {
		in = m->arc_alloc[k].self_in;
		model_alloc_add(&in, m->arc_alloc[k].child_in);
	}
	cg_cost_line(g, line, a->self_in + a->child_in, g->arc_calls[k], in);
}

static void cg_function(struct cg *g, uint32_t cc, struct cg_pos *pos)
{
	struct ob *o = g->o;
	const struct model *m = g->m;
	const struct model_fn *fn = &m->fns[cc];
	uint32_t line = m->prof->ccs[cc].line;

	cg_move(g, pos, cc);
	ob_puts(o, "fn=");
	cg_fn_ref(g, cc);
	cg_cost_line(g, line, fn->self, fn->calls, fn->self_alloc);
	for (uint32_t i = m->out_start[cc]; i < m->out_start[cc + 1]; i++)
		cg_call(g, pos, m->out[i], line);
	ob_putc(o, '\n');
}

/* For qsort of the thread roots' arcs by their callee's file, then
 * number: the calls of one file together. */
static const struct cg *sort_cg;

static int by_callee_file(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t fx = sort_cg->file_of[sort_cg->m->arcs[x].callee];
	uint32_t fy = sort_cg->file_of[sort_cg->m->arcs[y].callee];
	if (fx != fy)
		return fx < fy ? -1 : 1;
	return (x > y) - (x < y);
}

/*
 * "<root>": the time outside every cost centre, and the thread roots.
 *
 * Note [The root in its callees' file]: callgrind_annotate strips the
 * current directory from fl= names but not from cfi= names, so a call
 * across files, run from a parent of the sources, names its callee
 * otherwise than the callee's own fn= block does: --inclusive=yes then
 * listed main twice, once as /dir/prog.c:main with the calls' cost and
 * once as prog.c:main with its self cost plus its callees'.  <root> has
 * no file of its own, so it is written in its callees' file, one fn=
 * block per file of thread roots (the first with <root>'s self cost):
 * its calls need no cfi=.  Only calls from <root> can be placed so:
 * a.c's f calling b.c's g must say cfi= (fi= would move f's cost to a
 * function "b.c:f"), and docs/exports.md says how to run the tool.
 */
static void cg_root(struct cg *g, struct cg_pos *pos)
{
	struct ob *o = g->o;
	const struct model *m = g->m;
	uint32_t n = 0;
	uint32_t *roots = xnmalloc(m->narcs ? m->narcs : 1, sizeof *roots);
	for (uint32_t k = 0; k < m->narcs; k++)
		if (m->arcs[k].caller == MODEL_NONE)
			roots[n++] = k;
	sort_cg = g;
	qsort(roots, n, sizeof *roots, by_callee_file);
	/* <root>'s own object, in the file of the first group (or ???) */
	if (g->object_of[m->nfns] != pos->object) {
		pos->object = g->object_of[m->nfns];
		cg_ref(g, "ob=", &g->objects, pos->object);
	}
	uint32_t i = 0;
	do {
		uint32_t file = n ? g->file_of[m->arcs[roots[i]].callee] : g->file_of[m->nfns];
		if (file != pos->file) {
			pos->file = file;
			cg_ref(g, "fl=", &g->files, pos->file);
		}
		ob_puts(o, "fn=");
		cg_fn_ref(g, MODEL_NONE);
		if (i == 0)
			cg_cost_line(g, 0, m->root_time, 0, m->root_alloc);
		for (; i < n && g->file_of[m->arcs[roots[i]].callee] == file; i++)
			cg_call(g, pos, roots[i], 0);
		ob_putc(o, '\n');
	} while (i < n);
	free(roots);
}

int export_callgrind(FILE *f, const struct export_input *in, const struct export_opts *opts)
{
	(void)opts;
	const struct model *m = in->m;
	struct cg *g = xcalloc(1, sizeof *g);
	struct ob *o = ob_open(f);
	g->o = o;
	g->m = m;
	g->alloc = model_alloc_measured(m);
	/* one name per function: Note [Names that collide] in names.c */
	names_init_qualified(&g->names, m, &escape_line);
	cg_files(g);
	cg_arc_calls(g);

	cg_header(g);
	struct cg_pos pos = {0, 0};
	for (uint32_t i = 0; i < m->nlisted; i++)
		cg_function(g, m->by_self[i], &pos);
	cg_root(g, &pos);
	ob_puts(o, "totals: ");
	cg_costs(g, m->total_time, m->total_calls, m->total_alloc);
	ob_putc(o, '\n');
	int ret = ob_close(o);

	names_free(&g->names);
	free(g->file_of);
	free(g->object_of);
	export_strtab_free(&g->files.tab);
	export_strtab_free(&g->objects.tab);
	free(g->files.done);
	free(g->objects.done);
	free(g->fn_done);
	free(g->arc_calls);
	free(g);
	return ret;
}
