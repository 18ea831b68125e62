/*
 * hookcost.c - what the instrumentation costs, by function, and which
 * hooks could go (report --hook-cost).
 *
 * Every hooked call costs about the runtime's calibrated estimate per call
 * (the profile's overhead_milliticks), whatever the function does.  A
 * function whose own time per call is near that or below does little
 * more work than its hooks (Note [Hooks that outweigh]): on gcc, whose -finstrument-functions hooks inlined copies too,
 * such helpers can make most of a profiled run's time (docs/performance.md,
 * "tiny").  Built without hooks, its time counts as its callers' (as
 * --deselect shows it now), so the profile loses little and the run gets
 * faster.
 *
 * gcc can leave functions out by name or by the file that defines them,
 * both matched as substrings (-finstrument-functions-exclude-function-list,
 * -exclude-file-list).  A name or path is suggested only if it matches no
 * function in the profile that does work worth seeing (does_work): a
 * substring hides every function it is part of.  Names are suggested for
 * C functions (gcc matches C++ functions by a printable name ccprof does
 * not have), files for any candidate whose file holds no such function;
 * a candidate a file covers is not named again.
 */
#include "model/model.h"

#include <math.h>
#include <stdlib.h>

#include "model/xalloc.h"

static int is_function(const struct model *m, uint32_t cc)
{
	return m->prof->ccs[cc].kind == CCP_CC_FUNCTION && m->fns[cc].seen;
}

struct row_key {
	uint64_t calls;
	uint32_t cc;
};

/* Most calls first, then by cost centre number: a stable order. */
static int cmp_row_key(const void *pa, const void *pb)
{
	const struct row_key *a = pa, *b = pb;
	if (a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	return a->cc < b->cc ? -1 : a->cc > b->cc;
}

/* The functions that were called, most calls first. */
static void sort_rows(struct model *m, struct model_hook_cost *h)
{
	struct row_key *keys = xcalloc(m->nfns ? m->nfns : 1, sizeof *keys);
	for (uint32_t cc = 0; cc < m->nfns; cc++)
		if (is_function(m, cc) && m->fns[cc].calls) {
			keys[h->nrows++] = (struct row_key){m->fns[cc].calls, cc};
			h->calls += m->fns[cc].calls;
		}
	qsort(keys, h->nrows, sizeof *keys, cmp_row_key);
	h->rows = model_calloc(m, h->nrows ? h->nrows : 1, sizeof *h->rows);
	for (uint32_t i = 0; i < h->nrows; i++)
		h->rows[i] = keys[i].cc;
	free(keys);
}

/*
 * Note [Hooks that outweigh]: a function's self time per call is its work
 * plus, under the sampling clocks, about half of its own hooks' cost and
 * half of its callees' (a sample in a hook goes to whichever context is
 * current); under clock=cycles, its work give or take the error of the
 * estimate the hooks subtracted, which is of the order of the estimate
 * itself on tiny functions.  Neither tells a 1 ns function from a 5 ns
 * one.  So the line is drawn at twice the estimate: below it, the hooks
 * cost at least half as much as the function's own work (about two
 * thirds, with sampling).  And a function counts only if its hooks take
 * HOOK_COST_MIN of the run: main, called once, does nothing itself but
 * costs nothing to hook either.
 *
 * Sampled self times rest on few samples: a function with none may still
 * do real work (on a 30 ms objdump run, bfd_sprintf_vma had no sample and
 * takes 5-8 % of a longer run).  So with the sampling clocks both tests
 * take self time at its upper bound, k + 2 sqrt(k) + 3 samples for k
 * seen (about 95 %, Poisson): a function is marked only when even that
 * is below the line, and counts as possibly doing work, which no
 * suggested substring may hide, when that reaches the line.
 */
#define HOOK_COST_MIN 0.001
#define WORK_PER_HOOK 2.0

/*
 * Note [A debt that ate work]: under clock=cycles the hooks take the
 * estimate off every interval, and an interval shorter than that leaves
 * a debt that the next longer one pays (Note [Cycles clock] in
 * src/runtime/clock.c).  An estimate a few % high (hookcost.c's 4 M tiny
 * calls: 3 runs in 8 on this VM, either compiler) leaves a debt that
 * grows with every tiny call, and whatever runs next pays it from its
 * own work: rescale's 6-10 ms went, its self time read 0, it counted as
 * doing no work, and the advice hid it by suggesting hookcost.c, its
 * file, whole.  Where it is paid the profile cannot tell; how much there
 * can be, it can: ESTIMATE_HIGH of all that was subtracted.  So under
 * clock=cycles a function's self time is taken at most that much above
 * what it shows, as the sampled clocks take it at the samples' bound: a
 * function that shows none may still do work, and no suggestion may
 * hide it.  A helper stays marked while even that bound, over its calls,
 * is below the line: one with 2 M calls in a run that subtracted 180 ms
 * is marked at 4.5 ns a call of bound.
 */
#define ESTIMATE_HIGH 0.05

/* Self time of cc at its upper bound (ticks): the samples' (Note [Hooks
 * that outweigh]), or under clock=cycles the debt's (Note [A debt that
 * ate work]). */
static double self_bound(const struct model *m, uint32_t cc, const struct model_hook_cost *h)
{
	double self = (double)m->fns[cc].self;
	if (h->sample_ticks <= 0)
		return self + h->debt_bound;
	double k = self / h->sample_ticks;
	return (k + 2 * sqrt(k) + 3) * h->sample_ticks;
}

double model_hook_self_bound(const struct model *m, uint32_t cc)
{
	return self_bound(m, cc, m->hook_cost);
}

static int hooks_outweigh(const struct model *m, uint32_t cc, const struct model_hook_cost *h)
{
	double calls = (double)m->fns[cc].calls;
	return h->per_call > 0 && calls > 0 &&
	       self_bound(m, cc, h) / calls < WORK_PER_HOOK * h->per_call &&
	       h->per_call * calls >= HOOK_COST_MIN * h->run;
}

/* May cc do work worth seeing apart: more per call than the line above,
 * and HOOK_COST_MIN of the run in all?  Leaving out a function that does
 * not loses nothing a profile reader would look for. */
static int does_work(const struct model *m, uint32_t cc, const struct model_hook_cost *h)
{
	double calls = (double)m->fns[cc].calls, self = self_bound(m, cc, h);
	return calls > 0 && self / calls >= WORK_PER_HOOK * h->per_call &&
	       self >= HOOK_COST_MIN * h->run;
}

/* A character of a C identifier (ASCII, whatever the locale). */
static int ident_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* The name gcc would match for a C function: the symbol up to a clone's
 * suffix (foo.part.0, foo.constprop.1 are foo's), or NULL when the name is
 * not a C identifier or is a mangled C++ name (_Z...). */
static const char *c_name(struct model *m, uint32_t cc)
{
	const char *s = m->prof->ccs[cc].name;
	size_t n = 0;
	if (!s || (*s >= '0' && *s <= '9') || strncmp(s, "_Z", 2) == 0)
		return NULL;
	while (ident_char(s[n]))
		n++;
	if (n == 0 || (s[n] != '\0' && s[n] != '.'))
		return NULL;
	char *out = model_calloc(m, n + 1, 1);
	memcpy(out, s, n);
	return out;
}

/*
 * Note [Bounded suggestions]: a substring must be checked against every
 * function that does work, for every candidate.  Both lists are short on
 * a real profile and bounded on any: a function that does work has
 * HOOK_COST_MIN of the run in self time, so there are at most
 * 1 / HOOK_COST_MIN of them, and candidates come from the first
 * HOOK_ROWS_MAX rows only (a hostile file may list a million functions
 * with an estimate that makes each a candidate).  Self times at their
 * upper bound (Note [Hooks that outweigh]) lift the first bound: a short
 * run may leave thousands of functions unsampled that may all do work.
 * Past HOOK_WORK_MAX of those, nothing is suggested.
 */
#define HOOK_ROWS_MAX 1000
#define HOOK_WORK_MAX 20000

struct work_list {
	uint32_t n;
	uint32_t *cc; /* the functions that do work */
};

static void work_list(struct model *m, const struct model_hook_cost *h, struct work_list *w)
{
	w->cc = model_calloc(m, m->nfns ? m->nfns : 1, sizeof *w->cc);
	w->n = 0;
	for (uint32_t cc = 0; cc < m->nfns; cc++)
		if (is_function(m, cc) && does_work(m, cc, h))
			w->cc[w->n++] = cc;
}

/* Would the substring `key` of a name (or file) hide a function that does
 * work? */
static int hides_other(const struct model *m, const struct work_list *w, const char *key,
		       int files)
{
	if (w->n > HOOK_WORK_MAX) /* too many to check: assume it would */
		return 1;
	for (uint32_t i = 0; i < w->n; i++) {
		const struct ccp_cc *c = &m->prof->ccs[w->cc[i]];
		const char *s = files ? c->file : c->name;
		if (s && strstr(s, key))
			return 1;
	}
	return 0;
}

/*
 * Note [Files by base name]: gcc matches -finstrument-functions-exclude-
 * file-list against the file name the compiler saw, which is the path as
 * the build wrote it: "../lib/compress/../common/mem.h", where the profile
 * has "/src/zstd/programs/../lib/compress/../common/mem.h" (DWARF's
 * directory joined to it).  The absolute path is no substring of that, and
 * gcc left the hooks in (zstd: 132 M calls of MEM_readST, rebuilt with the
 * advice).  Only the base name is part of every name the file can have
 * (included as "mem.h" by one file, "../common/mem.h" by another); so the
 * base name is suggested, if it hides no function that does work, else
 * the parent directory and the base name, which needs the compiler to
 * have seen that directory in the name.
 */
static const char *file_key(const struct model *m, const struct work_list *w, const char *path)
{
	const char *base = strrchr(path, '/'), *parent = base;
	if (!base)
		return hides_other(m, w, path, 1) ? NULL : path;
	if (base[1] && !hides_other(m, w, base + 1, 1))
		return base + 1;
	while (parent > path && parent[-1] != '/')
		parent--;
	if (parent > path && strncmp(parent, "../", 3) != 0 && strncmp(parent, "./", 2) != 0 &&
	    !hides_other(m, w, parent, 1))
		return parent;
	return NULL;
}

/* Files with candidates and no function that does work, each by its key
 * (Note [Files by base name]); covered[i] is set for the candidate rows
 * they hold. */
static void suggest_files(struct model *m, struct model_hook_cost *h, const struct work_list *w,
			  uint32_t nrows, uint8_t *covered)
{
	const struct ccp_cc *ccs = m->prof->ccs;
	h->files = model_calloc(m, nrows ? nrows : 1, sizeof *h->files);
	for (uint32_t i = 0; i < nrows; i++) {
		const struct ccp_cc *c = &ccs[h->rows[i]];
		const char *key;
		/* gcc splits the list at commas: such a path cannot be given */
		if (!h->candidate[h->rows[i]] || covered[i] || !ccp_cc_has_source(c) ||
		    strchr(c->file, ',') || !(key = file_key(m, w, c->file)))
			continue;
		for (uint32_t k = i; k < nrows; k++)
			if (h->candidate[h->rows[k]] && ccs[h->rows[k]].file &&
			    strstr(ccs[h->rows[k]].file, key))
				covered[k] = 1;
		h->files[h->nfiles++] = key;
	}
}

/* Names of the candidates no suggested file covers; the others go to
 * h->clashing. */
static void suggest_names(struct model *m, struct model_hook_cost *h, const struct work_list *w,
			  uint32_t nrows, const uint8_t *covered)
{
	h->names = model_calloc(m, nrows ? nrows : 1, sizeof *h->names);
	h->clashing = model_calloc(m, nrows ? nrows : 1, sizeof *h->clashing);
	for (uint32_t i = 0; i < nrows; i++) {
		uint32_t cc = h->rows[i];
		if (!h->candidate[cc] || covered[i])
			continue;
		const char *name = c_name(m, cc);
		int dup = 0;
		for (uint32_t k = 0; name && k < h->nnames; k++)
			dup |= strcmp(h->names[k], name) == 0;
		if (dup) /* a clone of a function already named */
			continue;
		if (name && !hides_other(m, w, name, 0))
			h->names[h->nnames++] = name;
		else
			h->clashing[h->nclashing++] = cc;
	}
}

void model_hook_cost(struct model *m)
{
	struct model_hook_cost *h = model_calloc(m, 1, sizeof *h);
	m->hook_cost = h;
	h->per_call = (double)m->prof->overhead_milliticks / 1000.0;
	h->run = (double)m->total_time;
	sort_rows(m, h);
	if (m->prof->clock == CCP_CLOCK_CYCLES) { /* their cost is off the total already */
		double subtracted = (double)m->prof->stats.subtracted;
		if (subtracted == 0) /* a file from before it was recorded */
			subtracted = h->per_call * (double)h->calls;
		h->run += (double)m->prof->stats.subtracted;
		h->debt_bound = ESTIMATE_HIGH * subtracted;
	} else {
		h->sample_ticks = (double)m->prof->interval_ns * (double)m->prof->ticks_per_sec / 1e9;
	}
	h->candidate = model_calloc(m, m->nfns ? m->nfns : 1, 1);
	uint32_t nrows = h->nrows < HOOK_ROWS_MAX ? h->nrows : HOOK_ROWS_MAX;
	for (uint32_t i = 0; i < nrows; i++)
		h->candidate[h->rows[i]] = (uint8_t)hooks_outweigh(m, h->rows[i], h);
	struct work_list w;
	work_list(m, h, &w);
	uint8_t *covered = xcalloc(nrows ? nrows : 1, 1);
	suggest_files(m, h, &w, nrows, covered);
	suggest_names(m, h, &w, nrows, covered);
	free(covered);
}
