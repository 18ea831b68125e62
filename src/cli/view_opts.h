/*
 * view_opts.h - the view options every command that shows a profile
 * accepts (report, diff, convert): selection, focus, pruning (diff
 * refuses pruning: it shows no tree).  One table, one parser, one help
 * text, so the commands agree.
 *
 * Use (see model/view.h for what the options do):
 *
 *   static const struct option opts[] = {
 *           VIEW_OPTIONS,
 *           {"json", no_argument, NULL, 'j'},
 *           ...
 *           {NULL, 0, NULL, 0},
 *   };
 *   struct model_view_opts vo;
 *   model_view_opts_init(&vo);
 *   while ((c = cli_getopt(argc, argv, ":j...", opts)) != -1) {
 *           int r = view_opts_parse(&vo, c, optarg, err, sizeof err);
 *           if (r < 0)
 *                   return cli_usage_error(&cmd, "%s", err);
 *           if (r > 0)
 *                   continue;
 *           switch (c) { ...the command's own options... }
 *   }
 *   ...
 *   view_opts_model(path, &cp.model, &vo, passes, &vm, &v) builds the
 *   view's model (warnings and errors printed), then write vm.
 *
 * The option values are VIEW_OPT_FIRST and up: commands keep theirs
 * below 0x1000.
 */
#ifndef CCPROF_CLI_VIEW_OPTS_H
#define CCPROF_CLI_VIEW_OPTS_H

#include <getopt.h>
#include <stddef.h>

#include "cli/cli.h"
#include "model/view.h"

enum {
	VIEW_OPT_FIRST = 0x1000,
	VIEW_OPT_SELECT = VIEW_OPT_FIRST,
	VIEW_OPT_DESELECT,
	VIEW_OPT_ONLY_EXPORTED,
	VIEW_OPT_MODULE,
	VIEW_OPT_FOCUS,
	VIEW_OPT_MIN_PERCENT,
	VIEW_OPT_MIN_CALLS,
	VIEW_OPT_MIN_TIME,
	VIEW_OPT_SHORT_NAMES,
	VIEW_OPT_LAST,
};

#define VIEW_OPTIONS                                                         \
	{"select", required_argument, NULL, VIEW_OPT_SELECT},                \
	{"deselect", required_argument, NULL, VIEW_OPT_DESELECT},            \
	{"exclude", required_argument, NULL, VIEW_OPT_DESELECT},             \
	{"only-exported", no_argument, NULL, VIEW_OPT_ONLY_EXPORTED},        \
	{"module", required_argument, NULL, VIEW_OPT_MODULE},                \
	{"focus", required_argument, NULL, VIEW_OPT_FOCUS},                  \
	{"min-percent", required_argument, NULL, VIEW_OPT_MIN_PERCENT},      \
	{"min-calls", required_argument, NULL, VIEW_OPT_MIN_CALLS},          \
	{"min-time", required_argument, NULL, VIEW_OPT_MIN_TIME},            \
	{"short-names", no_argument, NULL, VIEW_OPT_SHORT_NAMES}

/* The help of the view options: VIEW_SELECT_HELP for commands that do not
 * prune (diff: no tree shown, so the pruning options are usage errors). */
#define VIEW_OPTIONS_HELP VIEW_SELECT_HELP VIEW_PRUNE_HELP
#define VIEW_SELECT_HELP                                                               \
	"View options (any combination; PATTERNS are comma-separated names, * matches\n" \
	"any text; repeat an option to add more):\n"                                   \
	"  --select PATTERNS    show costs in terms of these functions only: the others'\n" \
	"                       costs go to their nearest selected caller, as if they\n"  \
	"                       had not been profiled (thread roots stay selected)\n"     \
	"  --deselect PATTERNS  the same, leaving these out (alias --exclude)\n"          \
	"  --only-exported      select only global (exported) symbols\n"                  \
	"  --module PATTERNS    select only functions of these modules (path or base\n"  \
	"                       name)\n"                                                  \
	"  --focus PATTERNS     only contexts where one of these is active; the stack\n"  \
	"                       tree is rooted at it\n"                                  \
	"  --short-names        C++ names without template arguments, parameters and\n"  \
	"                       return types, where that tells functions apart\n"
#define VIEW_PRUNE_HELP                                                                \
	"  --min-percent X      hide tree nodes under X % of the total time (and of the\n" \
	"                       bytes allocated, when the run counted them)\n"          \
	"  --min-calls N        hide tree nodes whose subtree has fewer than N calls\n"   \
	"  --min-time S         hide tree nodes under S seconds\n"                        \
	"                       (hidden nodes add up on one \"(n hidden)\" line)\n"

/* Whether a comma-separated pattern list holds a pattern (not "" or ","). */
int view_opts_has_pattern(const char *list);

/* --short-names, if o asks for it: ms[0..n)'s functions get their short
 * names, all shortened together (model_short_names). */
void view_opts_names(const struct model_view_opts *o, struct model *const *ms, uint32_t n);

/* 1: c was a view option and is recorded; 0: not a view option; -1: a
 * bad value (message in err, for cli_usage_error). */
int view_opts_parse(struct model_view_opts *o, int c, const char *arg, char *err,
		    size_t errlen);

/*
 * Resolve o against base and build the view's model with the passes
 * given (and pruning, after MODEL_TREE).  Patterns of --select,
 * --deselect or --module that match nothing get a warning line on
 * stderr; a --focus that matches nothing is an error ("ccprof: PATH:
 * ...", returns 1).  On success *v must be freed after *vm.
 */
int view_opts_model(const char *path, const struct model *base, const struct model_view_opts *o,
		    unsigned passes, struct model *vm, struct model_view *v);
/* The same, but a --focus that matches nothing sets *focus_missed (the
 * view is then empty), and one that matches in part is no error: one
 * side of a diff may lack a function (the caller checks each pattern
 * matches on some side). */
int view_opts_model_may_miss(const char *path, const struct model *base,
			     const struct model_view_opts *o, unsigned passes, struct model *vm,
			     struct model_view *v, int *focus_missed);

#endif
