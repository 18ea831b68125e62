/*
 * select.c - view options and their resolution into sets of cost centres
 * (view.h): name patterns, modules, exported symbols, thread roots.
 */
#include "model/view.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/symtabs.h"
#include "model/xalloc.h"

void model_view_opts_init(struct model_view_opts *o)
{
	memset(o, 0, sizeof *o);
}

static void patterns_free(struct model_patterns *p)
{
	free(p->v);
	memset(p, 0, sizeof *p);
}

void model_view_opts_free(struct model_view_opts *o)
{
	patterns_free(&o->select);
	patterns_free(&o->deselect);
	patterns_free(&o->module);
	patterns_free(&o->focus);
}

void model_patterns_add(struct model_patterns *p, const char *value)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 4;
		p->v = xrealloc(p->v, p->cap, sizeof *p->v);
	}
	p->v[p->n++] = value;
}

int model_prune_any(const struct model_prune_opts *o)
{
	return o->min_percent > 0 || o->min_time > 0 || o->min_calls > 0;
}

int model_view_opts_any(const struct model_view_opts *o)
{
	return o->select.n || o->deselect.n || o->module.n || o->focus.n || o->only_exported ||
	       model_prune_any(&o->prune);
}

/* ---- matching ------------------------------------------------------------ */

/* Glob with `*` only, so that names like operator[] or f<int>? match as
 * written.  Iterative, with one backtrack point: linear enough for names. */
static int glob_match(const char *p, size_t plen, const char *s, size_t slen)
{
	size_t pi = 0, si = 0, star = SIZE_MAX, mark = 0;
	while (si < slen) {
		if (pi < plen && p[pi] == '*') {
			star = pi++;
			mark = si;
		} else if (pi < plen && p[pi] == s[si]) {
			pi++;
			si++;
		} else if (star != SIZE_MAX) {
			pi = star + 1;
			si = ++mark;
		} else {
			return 0;
		}
	}
	while (pi < plen && p[pi] == '*')
		pi++;
	return pi == plen;
}

/* A C++ name without its parameter list: "ns::f(int) const" -> "ns::f".
 * The list is the last top-level "(...)" group; operator() is kept. */
static size_t without_params(const char *name)
{
	size_t len = strlen(name);
	if (len == 0 || (name[len - 1] != ')' && !strstr(name, ") ")))
		return len;
	int depth = 0;
	for (size_t i = len; i-- > 0;) {
		if (name[i] == ')')
			depth++;
		else if (name[i] == '(' && --depth == 0)
			return i > 0 && strncmp(name + (i >= 8 ? i - 8 : 0), "operator", 8) != 0
				       ? i
				       : len;
	}
	return len;
}

/*
 * Note [Operator names in patterns]: the < and > of an operator's name
 * (operator<, operator<<=, operator->, operator<=> ...) open and close
 * no template list.  Counted as brackets, the < of `gold::operator<*`
 * left the list one level deep, so every later comma was taken as part
 * of that pattern and `operator<*,f` matched neither.  The demangler
 * writes the operator right after `operator`, then its template
 * arguments if any, with a space between only when the operator ends in
 * < (`operator< <int>`, but `operator*<int, long>`, `operator<=<int>`),
 * so exactly the operator is skipped, its longest spelling, and a < that
 * follows it opens a list.  The comma operator is a name too
 * (`A::operator,(A const&)`): a comma right after `operator` is one when
 * what follows could not start a pattern of its own (`(`, `<`, `*`, a
 * comma or the end), so `operator,f` is still two C names.
 */
static size_t operator_chars(const char *list, size_t i)
{
	static const char *const ops[] = {"<=>", "<<=", ">>=", "->*", "<<", ">>", "<=", ">=",
					  "==", "->", "-=", "*=", "<", ">", "=", "-", "*"};
	if (i < 8 || strncmp(list + i - 8, "operator", 8) != 0)
		return 0;
	if (i > 8 && (isalnum((unsigned char)list[i - 9]) || list[i - 9] == '_'))
		return 0; /* the end of a longer name: my_operator<int, int> */
	if (list[i] == ',')
		return strchr("(<*,", list[i + 1]) ? 1 : 0; /* also at the end: the NUL */
	for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
		if (strncmp(list + i, ops[k], strlen(ops[k])) == 0)
			return strlen(ops[k]);
	return 0;
}

/* Length of the next pattern of a comma list: commas inside () <> []
 * belong to the pattern (C++ parameter and template lists). */
static size_t next_pattern(const char *list)
{
	int depth = 0;
	size_t i = 0;
	while (list[i]) {
		size_t op = operator_chars(list, i);
		if (op) {
			i += op;
			continue;
		}
		if (list[i] == ',' && depth == 0)
			break;
		if (strchr("(<[", list[i]))
			depth++;
		else if (strchr(")>]", list[i]) && depth > 0)
			depth--;
		i++;
	}
	return i;
}

static int one_matches(const char *p, size_t plen, const char *name)
{
	size_t n = strlen(name);
	if (glob_match(p, plen, name, n))
		return 1;
	size_t short_len = without_params(name);
	return short_len < n && glob_match(p, plen, name, short_len);
}

/* Whether one of the patterns of a comma list satisfies match. */
typedef int pattern_test(const char *p, size_t len, const void *arg);

static int list_matches(const char *list, pattern_test *match, const void *arg)
{
	for (const char *p = list; *p;) {
		size_t len = next_pattern(p);
		if (len && match(p, len, arg))
			return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

static int name_test(const char *p, size_t len, const void *name)
{
	return one_matches(p, len, name);
}

int model_name_matches(const char *list, const char *name)
{
	return list_matches(list, name_test, name);
}

/*
 * Note [Qualified names in patterns]: where functions share a name, the
 * text report shows each with its module, and with its offset where the
 * module's base name is shared too: "helper [libl.so]", "helper
 * [prog+0x1169]"; with the module's path, or its build-id's first
 * digits, where even those are shared (Note [Names that collide] in
 * output/names.c).  A pattern may be such a label, to pick one of them:
 * the part before the last " [" matches the name as any pattern does;
 * in the brackets, the module's base name, or its path if the pattern
 * has a '/' there (`*` globs; "?" for a function whose module is not
 * known), then the offset after "+0x", if given, and after that a
 * prefix of the build-id after '@', if given.  A pattern that matches a
 * name whole (operator[]) still does.
 */
static int hex_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return n > 0;
}

/* The index of the last "+0x" in q[0, n), or n if there is none. */
static size_t offset_mark(const char *q, size_t n)
{
	for (size_t i = n; i-- > 0;)
		if (i + 3 <= n && q[i] == '+' && q[i + 1] == '0' && q[i + 2] == 'x')
			return i;
	return n;
}

/* A label's "@BUILDID" after its offset: 0 if cc's module's build-id does
 * not begin with it, else 1, with *qlen cut to before the '@' (left as
 * it is where q has no such part). */
static int build_id_matches(const struct model *m, uint32_t cc, const char *q, size_t *qlen)
{
	size_t at = *qlen;
	while (at > 0 && q[at - 1] != '@')
		at--;
	if (at == 0 || *qlen - at > 40 || !hex_digits(q + at, *qlen - at) ||
	    offset_mark(q, at - 1) == at - 1)
		return 1;
	const char *id = model_module_build_id(m, cc);
	for (size_t i = at; i < *qlen; i++, id++)
		if (*id != tolower((unsigned char)q[i]))
			return 0;
	*qlen = at - 1;
	return 1;
}

static int qualifier_matches(const struct model *m, uint32_t cc, const char *q, size_t qlen)
{
	if (!build_id_matches(m, cc, q, &qlen))
		return 0;
	size_t plus = offset_mark(q, qlen);
	if (plus < qlen) {
		char hex[20];
		size_t n = qlen - plus - 3;
		/* 64 bits, no more: model.js reads them alike; digits only:
		 * strtoull would take a second 0x, and spaces */
		if (n > 16 || !hex_digits(q + plus + 3, n))
			return 0;
		memcpy(hex, q + plus + 3, n);
		hex[n] = '\0';
		if (strtoull(hex, NULL, 16) != m->prof->ccs[cc].offset)
			return 0;
		qlen = plus;
	}
	const char *path = model_module_path(m, cc);
	const char *mod = memchr(q, '/', qlen) ? path : model_basename(path);
	if (!mod[0])
		mod = "?";
	return glob_match(q, qlen, mod, strlen(mod));
}

/* Whether pattern p matches function cc shown as name: the name itself,
 * or the label that names its module too (Note [Qualified names in
 * patterns]). */
static int fn_matches_as(const struct model *m, uint32_t cc, const char *p, size_t plen,
			 const char *name)
{
	if (one_matches(p, plen, name))
		return 1;
	if (plen < 4 || p[plen - 1] != ']' || m->prof->ccs[cc].kind != CCP_CC_FUNCTION)
		return 0;
	size_t open = plen - 1;
	while (open > 1 && !(p[open] == '[' && p[open - 1] == ' '))
		open--;
	return open > 1 && one_matches(p, open - 1, name) &&
	       qualifier_matches(m, cc, p + open + 1, plen - open - 2);
}

/* Whether pattern p matches function cc: as shown, or by its whole name
 * where that is shortened (Note [Short names] in shortnames.c). */
static int fn_matches(const struct model *m, uint32_t cc, const char *p, size_t plen)
{
	const char *full = m->fns[cc].full;
	return fn_matches_as(m, cc, p, plen, m->fns[cc].name) ||
	       (full && fn_matches_as(m, cc, p, plen, full));
}

static char *copy_pattern(const char *p, size_t len)
{
	char *s = xmalloc(len + 1);
	memcpy(s, p, len);
	s[len] = '\0';
	return s;
}

static int matches_any(const struct model *m, const char *p, size_t len)
{
	for (uint32_t cc = 0; cc < m->nfns; cc++)
		if (m->fns[cc].seen && fn_matches(m, cc, p, len))
			return 1;
	return 0;
}

char *model_unmatched_pattern(const struct model *const *ms, uint32_t n, const char *list)
{
	for (const char *p = list; *p;) {
		size_t len = next_pattern(p);
		uint32_t i = 0;
		while (len && i < n && !matches_any(ms[i], p, len))
			i++;
		if (len && i == n)
			return copy_pattern(p, len);
		p += len + (p[len] == ',');
	}
	return NULL;
}

struct fn_ref {
	const struct model *m;
	uint32_t cc;
};

static int fn_test(const char *p, size_t len, const void *arg)
{
	const struct fn_ref *f = arg;
	return fn_matches(f->m, f->cc, p, len);
}

int model_fn_matches(const struct model *m, uint32_t cc, const char *list)
{
	struct fn_ref f = { m, cc };
	return list_matches(list, fn_test, &f);
}

uint32_t model_find_fns(struct model *m, const char *patterns, uint32_t **out)
{
	uint32_t n = 0;
	*out = model_calloc(m, m->nfns ? m->nfns : 1, sizeof **out);
	for (uint32_t cc = 0; cc < m->nfns; cc++)
		if (m->fns[cc].seen && model_fn_matches(m, cc, patterns))
			(*out)[n++] = cc;
	return n;
}

/* ---- resolution ---------------------------------------------------------- */

/*
 * Apply every pattern list of p to the seen cost centres: set[cc] = value
 * for each match, where match(m, cc, pattern) decides.  Remembers the
 * first pattern that matched nothing.
 */
typedef int matcher(const struct model *m, uint32_t cc, const char *p, size_t len);

static int match_name(const struct model *m, uint32_t cc, const char *p, size_t len)
{
	return fn_matches(m, cc, p, len);
}

static int match_module(const struct model *m, uint32_t cc, const char *p, size_t len)
{
	const struct ccp_profile *prof = m->prof;
	const struct ccp_cc *c = &prof->ccs[cc];
	if (c->module < 0 || (uint32_t)c->module >= prof->nmodules)
		return 0;
	const char *path = prof->modules[c->module].path ? prof->modules[c->module].path : "";
	const char *base = model_basename(path);
	return glob_match(p, len, path, strlen(path)) || glob_match(p, len, base, strlen(base));
}

static void apply_patterns(const struct model *m, const struct model_patterns *pats, matcher *match,
			   uint8_t *set, uint8_t value, char **unmatched)
{
	for (uint32_t i = 0; i < pats->n; i++) {
		for (const char *p = pats->v[i]; *p;) {
			size_t len = next_pattern(p);
			int any = 0;
			for (uint32_t cc = 0; len && cc < m->nfns; cc++) {
				if (m->fns[cc].seen && match(m, cc, p, len)) {
					set[cc] = value;
					any = 1;
				}
			}
			if (!any && len && !*unmatched)
				*unmatched = copy_pattern(p, len);
			p += len + (p[len] == ',');
		}
	}
}

/* Keep only functions whose module's symbol table calls them global;
 * every module file is read once.  Manual regions are kept. */
static void keep_exported(const struct model *m, uint8_t *sel, char **unreadable)
{
	const struct ccp_profile *p = m->prof;
	struct symtabs tabs;
	symtabs_init(&tabs, p);
	for (uint32_t cc = 0; cc < m->nfns; cc++) {
		const struct ccp_cc *c = &p->ccs[cc];
		if (!sel[cc] || c->kind == CCP_CC_MANUAL)
			continue;
		if (c->kind != CCP_CC_FUNCTION || c->module < 0 || (uint32_t)c->module >= p->nmodules) {
			sel[cc] = 0;
			continue;
		}
		const char *path = p->modules[c->module].path ? p->modules[c->module].path : "";
		const struct elfsym_table *tab = symtabs_get(&tabs, (uint32_t)c->module);
		if (!tab && !*unreadable)
			*unreadable = xstrdup(path[0] ? path : "(unknown module)");
		const struct elfsym *s = tab ? elfsym_lookup(tab, c->offset) : NULL;
		sel[cc] = s && s->global;
	}
	symtabs_free(&tabs);
}

/* Keep only functions of the modules asked for (manual regions too). */
static void keep_modules(const struct model *m, const struct model_patterns *mods, uint8_t *sel,
			 char **unmatched)
{
	uint8_t *in = xcalloc(m->nfns ? m->nfns : 1, 1);
	apply_patterns(m, mods, match_module, in, 1, unmatched);
	for (uint32_t cc = 0; cc < m->nfns; cc++)
		if (m->prof->ccs[cc].kind != CCP_CC_MANUAL)
			sel[cc] &= in[cc];
	free(in);
}

/* The first entry of every history is a thread root. */
static void keep_roots(const struct model *m, uint8_t *sel)
{
	for (uint32_t k = 0; k < m->nctx; k++)
		if (m->ctx[k].len > 0)
			sel[CCP_ENTRY_CC(m->ctx[k].hist[0])] = 1;
}

static void resolve_selection(struct model_view *v, const struct model *m,
			      const struct model_view_opts *o)
{
	uint8_t *sel = xcalloc(m->nfns ? m->nfns : 1, 1);
	if (o->select.n)
		apply_patterns(m, &o->select, match_name, sel, 1, &v->unmatched_select);
	else
		memset(sel, 1, m->nfns);
	if (o->module.n)
		keep_modules(m, &o->module, sel, &v->unmatched_module);
	if (o->only_exported)
		keep_exported(m, sel, &v->unreadable_module);
	apply_patterns(m, &o->deselect, match_name, sel, 0, &v->unmatched_deselect);
	keep_roots(m, sel);
	for (uint32_t cc = 0; v->focus && cc < m->nfns; cc++)
		sel[cc] |= v->focus[cc];
	v->deselected = 0;
	for (uint32_t cc = 0; cc < m->nfns; cc++)
		v->deselected |= m->fns[cc].seen && !sel[cc];
	v->selected = sel;
}

int model_view_resolve(struct model_view *v, const struct model *base,
		       const struct model_view_opts *o, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	memset(v, 0, sizeof *v);
	v->nfns = base->nfns;
	v->thread = MODEL_NONE;
	if (o->focus.n) {
		v->focus = xcalloc(base->nfns ? base->nfns : 1, 1);
		apply_patterns(base, &o->focus, match_name, v->focus, 1, &v->unmatched_focus);
	}
	if (o->select.n || o->deselect.n || o->module.n || o->only_exported)
		resolve_selection(v, base, o);
	if (v->selected && !v->deselected) { /* everything selected after all */
		free(v->selected);
		v->selected = NULL;
	}
	return 0;
}

void model_view_free(struct model_view *v)
{
	free(v->selected);
	free(v->focus);
	free(v->unmatched_select);
	free(v->unmatched_deselect);
	free(v->unmatched_module);
	free(v->unmatched_focus);
	free(v->unreadable_module);
	memset(v, 0, sizeof *v);
	v->thread = MODEL_NONE;
}
