/*
 * shortnames.c - C++ names without what a reader can do without (see
 * shortnames.h).
 *
 * Note [Short names]: g++'s names are long.  A profile of a small
 * simulation shows
 *
 *   bool __gnu_cxx::operator!=<std::unique_ptr<(anonymous namespace)::Field,
 *   std::default_delete<(anonymous namespace)::Field> > const*, std::vector<
 *   ... 950 characters more ...
 *
 * for `it != end`, and a table of such rows cannot be read.  pprof
 * simplifies C++ names by default and KCacheGrind offers to; ccprof does
 * when asked (--short-names), by these rules, on demangled names only:
 *
 *   - template argument lists go: std::vector<int, ...>::size -> std::vector::size;
 *   - parameter lists go, with the qualifiers after them (const, &, &&,
 *     noexcept), also inside a name: f(int)::{lambda(int)#1} -> f::{lambda#1};
 *   - the return type of a template function goes: bool ns::f<int>(int) -> ns::f;
 *   - "(anonymous namespace)::", ABI tags ([abi:cxx11]) and gcc's clone
 *     suffixes ([clone .constprop.0]) go;
 *   - an operator keeps its name (operator<, operator(), operator new[],
 *     operator delete, a conversion's type: operator std::string);
 *   - a thunk keeps its prefix ("non-virtual thunk to Derived::f"), and
 *     so do a thread-local's init and wrapper functions.
 *
 * A name of another shape (a function pointer in its return type, a
 * decltype (expression) there, a word after the parameters that is no
 * qualifier, as a requires clause, a bracket out of place) stays whole.
 * A review ran 90,039 function names of libstdc++, LLVM, clang, ICU,
 * Boost, gtest, abseil, protobuf, grpc and gtk through every tier under
 * ASan and UBSan (session 54): no error, and 12,351 left whole at the
 * first tier, all but 44 of them C names; tests/unit/short_names.c
 * holds the shapes it found wrong then.
 *
 * Short names must not make two functions one: diff keys rows by name,
 * callgrind_annotate and flamegraph.pl add up what shares a name.  So a
 * short name is used only where no function of a different whole name
 * would show the same text, in any of the models shortened together.
 * Where one would, each keeps more, a tier at a time (shortnames.h),
 * until they differ: the outer template arguments (std::vector<int,
 * std::allocator>::push_back beside std::vector<long,
 * std::allocator>::push_back; std::get<0ul, int, long> beside
 * std::get<1ul, int, long>), then the parameters too, each without
 * template arguments of its own (weigh(int) beside weigh(double);
 * scale(double) beside a C function scale; std::vector<int,
 * std::allocator>::end() beside its end() const), then all the template
 * arguments (A<B<int> >::f beside A<B<long> >::f), then those and the
 * whole parameters, then the whole name.  Functions of one whole name (a
 * static function in two modules) keep one short name, and the report
 * tells them apart by module as before (Note [Names that collide] in
 * output/names.c).  Patterns match the short name and the whole one
 * (select.c).
 */
#include "model/shortnames.h"

#include <stdlib.h>
#include <string.h>

#include "model/xalloc.h"

/* How much of a kind of bracketed list a tier keeps. */
enum { KEEP_NONE, KEEP_OUTER /* without the template arguments inside */, KEEP_ALL };

/* What each tier keeps (shortnames.h). */
static const struct {
	int args, params;
} tier_keeps[] = {
	[SHORT_BARE] = {KEEP_NONE, KEEP_NONE},
	[SHORT_OUTER] = {KEEP_OUTER, KEEP_NONE},
	[SHORT_OUTER_PARAMS] = {KEEP_OUTER, KEEP_OUTER},
	[SHORT_ARGS] = {KEEP_ALL, KEEP_NONE},
	[SHORT_PARAMS] = {KEEP_ALL, KEEP_ALL},
};

/* The state of one shortening: input s[i..n), output out[o..). */
struct shortening {
	const char *s;
	size_t i, n;
	char *out;
	size_t o;
	size_t name_at;  /* where the name proper starts in out: after the
			  * last space that ended a return type */
	int name_ended;  /* out ends in a name: a '(' here opens parameters */
	int args;        /* template arguments kept: KEEP_* */
	int params;      /* parameter lists kept: KEEP_* */
	int failed;
};

static int is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$';
}

static int at(const struct shortening *st, const char *word)
{
	size_t len = strlen(word);
	return st->n - st->i >= len && memcmp(st->s + st->i, word, len) == 0;
}

static void put(struct shortening *st, const char *p, size_t len)
{
	memcpy(st->out + st->o, p, len);
	st->o += len;
}

static void copy(struct shortening *st, size_t len)
{
	put(st, st->s + st->i, len);
	st->i += len;
}

/* Brackets open in a group: the closing one each waits for. */
struct brackets {
	char want[64];
	size_t depth;
};

/*
 * Note [Brackets in a name]: template arguments may hold expressions,
 * which the demangler writes in parentheses, with their own < and >:
 * enable_if<((12)>=(sizeof (long))), void>.  Inside parentheses, < and >
 * are operators; elsewhere they bracket template arguments.  Returns
 * 1 when c closes the group, -1 when it cannot be (a closing bracket
 * of the wrong kind, too deep), else 0.
 */
static int bracket(struct brackets *b, char c)
{
	int in_parens = b->depth > 0 && b->want[b->depth - 1] == ')';
	if ((c == '<' || c == '>') && in_parens)
		return 0;
	if (c == '(' || c == '<' || c == '[' || c == '{') {
		if (b->depth == sizeof b->want)
			return -1;
		b->want[b->depth++] = c == '(' ? ')' : c == '<' ? '>' : c == '[' ? ']' : '}';
		return 0;
	}
	if (c == ')' || c == '>' || c == ']' || c == '}') {
		if (b->depth == 0 || b->want[--b->depth] != c)
			return -1;
		return b->depth == 0;
	}
	return 0;
}

/* Skip the bracketed group that starts at s[i] (any of ( < [ {), nested
 * brackets of every kind included; "->" is an arrow, not a bracket. */
static void skip_group(struct shortening *st)
{
	struct brackets b = {.depth = 0};
	while (st->i < st->n) {
		if (at(st, "->")) {
			st->i += 2;
			continue;
		}
		int r = bracket(&b, st->s[st->i++]);
		if (r != 0) {
			st->failed = r < 0;
			return;
		}
	}
	st->failed = 1; /* never closed */
}

#define ANONYMOUS "(anonymous namespace)::"

/* Copy the bracketed group that starts at s[i] (template arguments,
 * parameters), brackets nested in it included, but without the
 * anonymous namespace, and, with drop_nested, without the template
 * argument lists nested in it: std::vector<Money, std::allocator<Money> >
 * -> std::vector<Money, std::allocator> (and the demangler's space
 * before the closing >, which was there for the inner one's). */
static void copy_group(struct shortening *st, int drop_nested)
{
	struct brackets b = {.depth = 0};
	/* A parameter list's own parentheses hold types, whose < opens
	 * template arguments; deeper ones are expressions' or function
	 * types' (Note [Brackets in a name]). */
	int params = st->s[st->i] == '(';
	while (st->i < st->n) {
		char c = st->s[st->i];
		int in_list = b.depth > 0 && (b.want[b.depth - 1] != ')' || (b.depth == 1 && params));
		if (at(st, "->")) {
			copy(st, 2);
		} else if (at(st, ANONYMOUS)) {
			st->i += strlen(ANONYMOUS);
		} else if (c == '<' && in_list && drop_nested) {
			skip_group(st);
			if (st->failed)
				return;
			if (at(st, " >"))
				st->i++;
		} else {
			copy(st, 1);
			int r = bracket(&b, c);
			if (r != 0) {
				st->failed = r < 0;
				return;
			}
		}
	}
	st->failed = 1; /* never closed */
}

/* Words that may follow a parameter list: the function's qualifiers. */
static const char *const qualifiers[] = {
	"const", "volatile", "&&", "&", "noexcept", "throw", "transaction_safe",
};

/* The qualifier word at s[i], or 0. */
static size_t qualifier_at(const struct shortening *st)
{
	for (size_t k = 0; k < sizeof qualifiers / sizeof *qualifiers; k++) {
		size_t len = strlen(qualifiers[k]);
		if (at(st, qualifiers[k]) && (st->i + len == st->n || !is_ident(st->s[st->i + len])))
			return len;
	}
	return 0;
}

/* After a parameter list: its qualifiers (" const", " &&", " noexcept",
 * " throw()", clang's " (.llvm.1234)"), up to the next "::" of a name
 * that goes on, or the end.  Anything else means the '(' was no
 * parameter list: the name is of a shape the rules do not know. */
static void skip_qualifiers(struct shortening *st)
{
	while (st->i < st->n && !at(st, "::") && !st->failed) {
		size_t len;
		if (st->s[st->i] == ' ')
			st->i++;
		else if (st->s[st->i] == '(')
			skip_group(st);
		else if ((len = qualifier_at(st)) != 0)
			st->i += len;
		else
			st->failed = 1;
	}
}

/* The same at the tiers that keep parameter lists: the qualifiers stay. */
static void copy_qualifiers(struct shortening *st)
{
	while (st->i < st->n && !at(st, "::") && !st->failed) {
		char c = st->s[st->i];
		if (c == '(' || c == '<' || c == '[' || c == '{')
			copy_group(st, st->params == KEEP_OUTER);
		else if (c == ')' || c == '>' || c == ']' || c == '}')
			st->failed = 1;
		else
			copy(st, 1);
	}
}

/* A template argument list: gone, kept without the lists nested in it,
 * or kept, by the tier. */
static void template_args(struct shortening *st)
{
	if (st->args != KEEP_NONE)
		copy_group(st, st->args == KEEP_OUTER);
	else
		skip_group(st);
}

/* A lambda's or an unnamed type's braces: kept, without the lambda's
 * parameters: {lambda(int const&)#1} -> {lambda#1}. */
static void copy_braces(struct shortening *st)
{
	copy(st, 1);
	while (st->i < st->n && !st->failed) {
		char c = st->s[st->i];
		if (c == '}') {
			copy(st, 1);
			st->name_ended = 1;
			return;
		}
		if (c == '(' || c == '<' || c == '[' || c == '{')
			skip_group(st);
		else if (c == ')' || c == '>' || c == ']')
			st->failed = 1;
		else
			copy(st, 1);
	}
	st->failed = 1;
}

/* Operators by their spelling after "operator", each before the shorter
 * ones it begins with (->* before ->, <<= before <<). */
static const char *const operator_symbols[] = {
	"()", "[]", "->*", "<=>", "<<=", ">>=", "->", "<<", ">>", "<=", ">=", "==", "!=", "&&",
	"||",  "++", "--",  "+=",  "-=",  "*=",  "/=", "%=", "&=", "|=", "^=", "+",  "-",  "*",
	"/",   "%",  "^",   "&",   "|",   "~",   "!",  "=",  "<",  ">",  ",",
};

/* "operator" followed by its name, at s[i]; 0 if s[i] starts no operator
 * name (my_operator, operatorish). */
static int copy_operator(struct shortening *st)
{
	if (!at(st, "operator") || (st->i > 0 && is_ident(st->s[st->i - 1])) ||
	    (st->i + 8 < st->n && is_ident(st->s[st->i + 8])))
		return 0;
	copy(st, 8);
	st->name_ended = 1;
	for (size_t k = 0; k < sizeof operator_symbols / sizeof *operator_symbols; k++)
		if (at(st, operator_symbols[k])) {
			size_t len = strlen(operator_symbols[k]);
			copy(st, len);
			/* the demangler's space between operator< and its <...>,
			 * which goes with them */
			if (st->s[st->i - 1] == '<' && at(st, " <")) {
				if (st->args == KEEP_NONE)
					st->i++;
				else
					copy(st, 1);
			}
			return 1;
		}
	if (at(st, "\"\"")) { /* operator"" _km */
		copy(st, 2);
		if (at(st, " "))
			copy(st, 1);
		while (st->i < st->n && is_ident(st->s[st->i]))
			copy(st, 1);
		return 1;
	}
	if (!at(st, " ")) {
		st->failed = 1;
		return 1;
	}
	/* new, delete (with []) or a conversion's type, spaces and all, up to
	 * the parameters; its template arguments go as any do. */
	while (st->i < st->n && !st->failed && st->s[st->i] != '(') {
		char c = st->s[st->i];
		if (at(st, "[]"))
			copy(st, 2);
		else if (at(st, "[abi:"))
			skip_group(st);
		else if (c == '<')
			template_args(st);
		else if (c == ')' || c == '>' || c == '[' || c == ']' || c == '{' || c == '}')
			st->failed = 1;
		else
			copy(st, 1);
	}
	return 1;
}

static void step(struct shortening *st)
{
	char c = st->s[st->i];
	if (copy_operator(st))
		return;
	switch (c) {
	case '<':
		template_args(st);
		st->name_ended = 1;
		break;
	case '(':
		if (at(st, ANONYMOUS)) {
			st->i += strlen(ANONYMOUS);
		} else if (st->o - st->name_at == 8 && !memcmp(st->out + st->name_at, "decltype", 8)) {
			skip_group(st); /* decltype(auto): a return type */
			st->name_ended = 0;
		} else if (st->name_ended && st->params != KEEP_NONE) {
			copy_group(st, st->params == KEEP_OUTER);
			copy_qualifiers(st);
		} else if (st->name_ended) {
			skip_group(st);
			skip_qualifiers(st);
		} else {
			st->failed = 1; /* a function type, a decltype */
		}
		break;
	case '[':
		if (at(st, "[abi:"))
			skip_group(st);
		else
			st->failed = 1;
		break;
	case '{':
		copy_braces(st);
		break;
	case ')':
	case '>':
	case ']':
	case '}':
		st->failed = 1;
		break;
	case ' ': /* the end of a return type */
		st->i++;
		st->name_at = st->o;
		st->name_ended = 0;
		break;
	default:
		copy(st, 1);
		st->name_ended = is_ident(c);
		break;
	}
}

/* Prefixes that say what a function is, kept before its short name. */
static const char *const special_prefixes[] = {
	"non-virtual thunk to ", "virtual thunk to ", "covariant return thunk to ",
	"transaction clone for ", "TLS init function for ", "TLS wrapper function for ",
};

/* The length of s without gcc's clone suffixes: "f(int) [clone
 * .constprop.0] [clone .cold]" -> "f(int)". */
static size_t without_clones(const char *s, size_t n)
{
	for (;;) {
		size_t k = n;
		while (k > 0 && s[k - 1] != '[')
			k--;
		if (n == 0 || s[n - 1] != ']' || k < 2 || s[k - 2] != ' ' ||
		    strncmp(s + k, "clone .", 7) != 0)
			return n;
		n = k - 2;
	}
}

static int shortens_well(const char *name, size_t len)
{
	return len > 0 && name[0] != ':' && name[len - 1] != ':' && name[len - 1] != ' ';
}

char *short_name(const char *demangled, int tier)
{
	if (tier < SHORT_BARE || tier > SHORT_PARAMS)
		return NULL;
	size_t pre = 0;
	for (size_t k = 0; k < sizeof special_prefixes / sizeof *special_prefixes; k++)
		if (strncmp(demangled, special_prefixes[k], strlen(special_prefixes[k])) == 0)
			pre = strlen(special_prefixes[k]);
	size_t whole = strlen(demangled);
	struct shortening st = {.s = demangled + pre, .n = without_clones(demangled + pre, whole - pre),
				.args = tier_keeps[tier].args, .params = tier_keeps[tier].params};
	st.out = xmalloc(whole + 1);
	while (st.i < st.n && !st.failed)
		step(&st);
	size_t len = st.o - st.name_at;
	if (st.failed || !shortens_well(st.out + st.name_at, len) || pre + len == whole) {
		free(st.out);
		return NULL;
	}
	char *s = xmalloc(pre + len + 1);
	memcpy(s, demangled, pre);
	memcpy(s + pre, st.out + st.name_at, len);
	s[pre + len] = '\0';
	free(st.out);
	return s;
}

/* One function of one model, as model_short_names weighs it. */
struct shown {
	const char *whole;
	char *shortened; /* malloc'd, or NULL: shown whole */
	int tier;        /* of shortened; past SHORT_PARAMS: whole */
	struct model *m;
	uint32_t cc;
};

static const char *shown_text(const struct shown *x)
{
	return x->shortened ? x->shortened : x->whole;
}

static int by_text(const void *a, const void *b)
{
	const struct shown *x = a, *y = b;
	int c = strcmp(shown_text(x), shown_text(y));
	return c ? c : strcmp(x->whole, y->whole);
}

/* The next tier's short name of x, or the whole name after the last,
 * or where a tier has none (a name of a shape short_name leaves whole
 * has none at any tier). */
static void keep_more(struct shown *x)
{
	free(x->shortened);
	x->shortened = ++x->tier <= SHORT_PARAMS ? short_name(x->whole, x->tier) : NULL;
}

/* Each run of equal text that holds more than one whole name: its short
 * names keep more; 1 if any did. */
static int keep_more_where_clashing(struct shown *v, size_t n)
{
	int changed = 0;
	qsort(v, n, sizeof *v, by_text);
	for (size_t i = 0, j; i < n; i = j) {
		int clash = 0;
		for (j = i + 1; j < n && !strcmp(shown_text(&v[i]), shown_text(&v[j])); j++)
			clash |= strcmp(v[i].whole, v[j].whole) != 0;
		for (size_t k = i; clash && k < j; k++)
			if (v[k].shortened) {
				keep_more(&v[k]);
				changed = 1;
			}
	}
	return changed;
}

void model_short_names(struct model *const *ms, uint32_t n)
{
	size_t total = 0, used = 0;
	for (uint32_t i = 0; i < n; i++)
		total += ms[i]->nfns;
	struct shown *v = xnmalloc(total ? total : 1, sizeof *v);
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t cc = 0; cc < ms[i]->nfns; cc++) {
			struct model_fn *f = &ms[i]->fns[cc];
			if (!f->seen)
				continue;
			v[used] = (struct shown){.whole = f->name, .m = ms[i], .cc = cc,
						 .tier = f->demangled ? SHORT_BARE - 1 : SHORT_PARAMS};
			keep_more(&v[used++]);
		}
	/* Every pass moves a short name up a tier, or to the whole name, so
	 * the passes end. */
	while (keep_more_where_clashing(v, used))
		;
	for (size_t k = 0; k < used; k++) {
		if (!v[k].shortened)
			continue;
		struct model_fn *f = &v[k].m->fns[v[k].cc];
		size_t len = strlen(v[k].shortened) + 1;
		char *s = model_calloc(v[k].m, len, 1);
		memcpy(s, v[k].shortened, len);
		f->full = f->name;
		f->name = s;
		free(v[k].shortened);
	}
	free(v);
}
