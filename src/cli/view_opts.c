/*
 * view_opts.c - parsing the shared view options (see view_opts.h).
 */
#include "cli/view_opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/shortnames.h"

static int bad_value(char *err, size_t errlen, const char *opt, const char *what,
		     const char *arg)
{
	/* A value cut short here, in a buffer of 256, would lose its quote and the usage after. */
	snprintf(err, errlen, "--%s needs %s, not '%.100s%s'", opt, what, arg,
		 strlen(arg) > 100 ? "..." : "");
	return -1;
}

int view_opts_has_pattern(const char *list)
{
	return list[strspn(list, ",")] != '\0';
}

/* A pattern list with at least one pattern: "" or "," would select,
 * deselect or focus on nothing without a word. */
static int add_patterns(struct model_patterns *p, const char *opt, const char *arg, char *err,
			size_t errlen)
{
	if (!view_opts_has_pattern(arg))
		return bad_value(err, errlen, opt, "a pattern", arg);
	model_patterns_add(p, arg);
	return 1;
}

void view_opts_names(const struct model_view_opts *o, struct model *const *ms, uint32_t n)
{
	if (o->short_names)
		model_short_names(ms, n);
}

int view_opts_parse(struct model_view_opts *o, int c, const char *arg, char *err,
		    size_t errlen)
{
	switch (c) {
	case VIEW_OPT_SELECT: return add_patterns(&o->select, "select", arg, err, errlen);
	case VIEW_OPT_DESELECT: return add_patterns(&o->deselect, "deselect", arg, err, errlen);
	case VIEW_OPT_MODULE: return add_patterns(&o->module, "module", arg, err, errlen);
	case VIEW_OPT_FOCUS: return add_patterns(&o->focus, "focus", arg, err, errlen);
	case VIEW_OPT_ONLY_EXPORTED: o->only_exported = 1; return 1;
	case VIEW_OPT_SHORT_NAMES: o->short_names = 1; return 1;
	case VIEW_OPT_MIN_PERCENT:
		if (cli_parse_decimal(arg, &o->prune.min_percent) != 0 || o->prune.min_percent > 100)
			return bad_value(err, errlen, "min-percent", "a percentage from 0 to 100",
					 arg);
		return 1;
	case VIEW_OPT_MIN_TIME:
		if (cli_parse_decimal(arg, &o->prune.min_time) != 0)
			return bad_value(err, errlen, "min-time", "seconds", arg);
		return 1;
	case VIEW_OPT_MIN_CALLS:
		/* 64 bits, as the calls it is compared with. */
		if (cli_parse_count64(arg, &o->prune.min_calls) != 0)
			return bad_value(err, errlen, "min-calls", "a count, digits only and below 2^64",
					 arg);
		return 1;
	default:
		return 0;
	}
}

static void warn_unmatched(const char *path, const char *opt, const char *pattern)
{
	if (pattern)
		cli_error("ccprof: %s: warning: --%s '%s' matches no function", path, opt,
			pattern);
}

int view_opts_model(const char *path, const struct model *base, const struct model_view_opts *o,
		    unsigned passes, struct model *vm, struct model_view *v)
{
	return view_opts_model_may_miss(path, base, o, passes, vm, v, NULL);
}

/* A focus asked for that holds no function: the view is empty. */
static int focus_empty(const struct model_view *v)
{
	for (uint32_t cc = 0; v->focus && cc < v->nfns; cc++)
		if (v->focus[cc])
			return 0;
	return v->focus != NULL;
}

int view_opts_model_may_miss(const char *path, const struct model *base,
			     const struct model_view_opts *o, unsigned passes, struct model *vm,
			     struct model_view *v, int *focus_missed)
{
	char err[256] = "";
	if (model_view_resolve(v, base, o, err, sizeof err) != 0) {
		cli_error("ccprof: %s: %s", path, err);
		model_view_free(v);
		return CLI_EXIT_FAIL;
	}
	if (focus_missed)
		*focus_missed = focus_empty(v);
	if (v->unmatched_focus && !focus_missed) {
		cli_error("ccprof: %s: --focus '%s' matches no function", path,
			v->unmatched_focus);
		model_view_free(v);
		return CLI_EXIT_FAIL;
	}
	warn_unmatched(path, "select", v->unmatched_select);
	warn_unmatched(path, "deselect", v->unmatched_deselect);
	warn_unmatched(path, "module", v->unmatched_module);
	if (v->unreadable_module)
		cli_error("ccprof: %s: warning: --only-exported: cannot read symbols of %s; "
			  "its functions count as not exported",
			  path, v->unreadable_module);
	model_view_build(vm, base, v, passes);
	if ((passes & MODEL_TREE) && model_prune_any(&o->prune))
		model_prune(vm, &o->prune);
	return 0;
}
