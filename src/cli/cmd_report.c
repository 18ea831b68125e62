/*
 * cmd_report.c - `ccprof report`: read a profile, build the model of the
 * view asked for (view_opts.h), run the view passes, and hand it to the
 * text or the JSON writer.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/report_heap.h"
#include "cli/view_opts.h"
#include "model/heap.h"
#include "model/sources.h"
#include "model/view.h"
#include "output/report.h"

#define REPORT_TOP_DEFAULT 20

static int report_run(int argc, char **argv);

const struct cli_command cli_report = {
	.name = "report",
	.summary = "print a profile: top cost centres, stack tree, call graph, views",
	.usage = "ccprof report [--top N] [--sort time|alloc|calls] [--graph] [--contexts] "
		 "[--callers F] [--around F] "
		 "[--cycles] [--hot] [--threads] [--hook-cost] [--heap] [VIEW OPTIONS] [--json] FILE",
	.help = "Print the profile in FILE (written by the ccprof runtime) in the style of\n"
		"GHC's .prof report: a header, the top cost centres by self time, and the\n"
		"stack tree (contexts grouped by compressed stack, with individual and\n"
		"inherited time).  The top cost centres end in SRC, the file and line that\n"
		"define each function, from its binary's debug information (-g) when that\n"
		"is still the build that ran.  When the run counted allocations, GHC's\n"
		"%alloc stands beside %time.  docs/views.md shows every view.\n\n"
		"Options:\n"
		"  -t, --top N        rows in the tables of top cost centres (default 20; 0: all)\n"
		"  -s, --sort KEY     order of those tables: time (self time, the default),\n"
		"                     alloc (self bytes allocated: a profile with allocation\n"
		"                     data only) or calls\n"
		"  -g, --graph        add a gprof-style call graph with exact arc times\n"
		"  -c, --contexts     add every context with its history, most expensive first\n"
		"  --callers PATTERNS add the inverted tree of each matching function: its\n"
		"                     callers, their callers, ... along real call chains\n"
		"  --around PATTERNS  add each matching function's callers and callees with\n"
		"                     exact arc times (one block of the call graph)\n"
		"  --cycles           add the cycles of recursion that ran\n"
		"  --hot              add the most expensive context and the expensive arm\n"
		"  --threads          add each thread's totals and top cost centres\n"
		"  --hook-cost        add what the hooks cost per function, and the gcc\n"
		"                     options that would leave out those costing more than\n"
		"                     the function's own work\n"
		"  --heap             the live heap of a heap profile (record --heap) instead:\n"
		"                     the peak, what was live at the end by function and by\n"
		"                     stack, and the largest sample by stack (with --threads,\n"
		"                     each thread's); JSON has it whenever the profile does\n"
		"  -j, --json         print as JSON instead (see docs/json.md): everything\n"
		"                     --graph and --contexts add is always there, the other\n"
		"                     sections when asked for\n"
		"  -h, --help         show this help\n\n" VIEW_OPTIONS_HELP,
	.run = report_run,
};

enum {
	OPT_CALLERS = 256,
	OPT_AROUND,
	OPT_CYCLES,
	OPT_HOT,
	OPT_THREADS,
	OPT_HOOK_COST,
	OPT_HEAP,
	OPT_TO,
};

static const struct option report_options[] = {
	VIEW_OPTIONS,
	{"top", required_argument, NULL, 't'},
	{"sort", required_argument, NULL, 's'},
	{"graph", no_argument, NULL, 'g'},
	{"contexts", no_argument, NULL, 'c'},
	{"callers", required_argument, NULL, OPT_CALLERS},
	{"around", required_argument, NULL, OPT_AROUND},
	{"cycles", no_argument, NULL, OPT_CYCLES},
	{"hot", no_argument, NULL, OPT_HOT},
	{"threads", no_argument, NULL, OPT_THREADS},
	{"hook-cost", no_argument, NULL, OPT_HOOK_COST},
	{"heap", no_argument, NULL, OPT_HEAP},
	/* Not an option of report's: named so that getopt does not take
	 * --to, convert's, for an abbreviation of --top. */
	{"to", required_argument, NULL, OPT_TO},
	{"json", no_argument, NULL, 'j'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* What the command line asked for. */
struct report_args {
	struct report_opts o;
	struct model_view_opts view;
	struct model_patterns callers, around;
	int cycles, hot, threads, hook_cost, json, heap;
	const char *path;
};

static int parse_sort(const char *arg, enum report_sort *out)
{
	static const char *const keys[] = {[REPORT_SORT_TIME] = "time",
					   [REPORT_SORT_ALLOC] = "alloc",
					   [REPORT_SORT_CALLS] = "calls"};
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (strcmp(arg, keys[i]) == 0) {
			*out = (enum report_sort)i;
			return 0;
		}
	return -1;
}

static int report_parse(int argc, char **argv, struct report_args *a)
{
	char err[256];
	int c;
	opterr = 0;
	while ((c = cli_getopt(argc, argv, ":t:s:gcjh", report_options)) != -1) {
		int r = view_opts_parse(&a->view, c, optarg, err, sizeof err);
		if (r < 0)
			return cli_usage_error(&cli_report, "%s", err);
		if (r > 0)
			continue;
		switch (c) {
		case 't':
			if (cli_parse_count(optarg, &a->o.top) != 0)
				return cli_usage_error(&cli_report, "--top needs a count, digits only "
						       "and at most " CLI_COUNT_MAX ", not '%s'",
						       optarg);
			break;
		case 's':
			if (parse_sort(optarg, &a->o.sort) != 0)
				return cli_usage_error(&cli_report,
						       "--sort needs time, alloc or calls, not '%s'",
						       optarg);
			break;
		case 'g': a->o.graph = 1; break;
		case 'c': a->o.contexts = 1; break;
		case 'j': a->json = 1; break;
		case OPT_CALLERS:
		case OPT_AROUND:
			if (!view_opts_has_pattern(optarg))
				return cli_usage_error(&cli_report, "--%s needs a pattern, not '%s'",
						       c == OPT_CALLERS ? "callers" : "around", optarg);
			model_patterns_add(c == OPT_CALLERS ? &a->callers : &a->around, optarg);
			break;
		case OPT_CYCLES: a->cycles = 1; break;
		case OPT_HOT: a->hot = 1; break;
		case OPT_THREADS: a->threads = 1; break;
		case OPT_HOOK_COST: a->hook_cost = 1; break;
		case OPT_HEAP: a->heap = 1; break;
		case OPT_TO:
			return cli_usage_error(&cli_report, "report writes text or --json; other "
					       "formats are convert's: ccprof convert --to %s FILE",
					       optarg);
		case 'h':
			cli_help(stdout, &cli_report);
			return -1;
		default:
			return cli_bad_option(&cli_report, c, argv);
		}
	}
	if (a->heap && (a->o.graph || a->o.contexts || a->callers.n || a->around.n || a->cycles ||
			a->hot || a->hook_cost || a->o.sort != REPORT_SORT_TIME))
		return cli_usage_error(&cli_report, "--heap shows the live heap alone: of the "
				       "sections, only --threads goes with it");
	return cli_one_profile(&cli_report, argc, argv, &a->path);
}

/* The passes the writer and the views need. */
static unsigned report_passes(const struct report_args *a)
{
	unsigned p = a->json ? REPORT_JSON_PASSES : report_text_passes(&a->o);
	if (a->json)
		return a->around.n ? p | MODEL_ARC_LISTS : p;
	if (a->hot)
		p |= MODEL_TREE | MODEL_CONTEXTS;
	if (a->around.n)
		p |= MODEL_ARC_LISTS | MODEL_FLAT;
	return p;
}

/* The functions a --callers or --around list names, in the view.  Each
 * pattern must match, in a list as alone (--callers f,typo once showed
 * f's tree and said nothing of typo). */
static int find_targets(struct model *m, const char *path, const char *opt,
			const struct model_patterns *pats, uint32_t **out, uint32_t *n)
{
	const struct model *const view[1] = {m};
	*n = 0;
	*out = NULL;
	for (uint32_t i = 0; i < pats->n; i++) {
		char *miss = model_unmatched_pattern(view, 1, pats->v[i]);
		if (miss) {
			/* "in this view" only where a selection or focus left
			 * functions out (the model always has a view). */
			int narrowed = m->view && (m->view->selected || m->view->focus);
			cli_error("ccprof: %s: --%s '%s' matches no function%s", path, opt,
				miss, narrowed ? " in this view" : "");
			free(miss);
			return -1;
		}
		uint32_t *found, k = model_find_fns(m, pats->v[i], &found);
		uint32_t *all = model_calloc(m, *n + k, sizeof *all);
		for (uint32_t j = 0; j < *n; j++)
			all[j] = (*out)[j];
		for (uint32_t j = 0; j < k; j++)
			all[*n + j] = found[j];
		*out = all;
		*n += k;
	}
	return 0;
}

/* Each thread's model needs its flat profile; the JSON one also its arcs,
 * where a function's entries as the thread's first function (root_calls)
 * are kept (arcs from MODEL_NONE). */
static unsigned thread_passes(const struct report_args *a)
{
	return a->json ? MODEL_FLAT | MODEL_ARCS : MODEL_FLAT;
}

static int report_views(struct model *m, const struct report_args *a)
{
	uint32_t *fns, n;
	if (find_targets(m, a->path, "callers", &a->callers, &fns, &n) != 0)
		return -1;
	if (n)
		model_callers(m, fns, n);
	if (find_targets(m, a->path, "around", &a->around, &fns, &n) != 0)
		return -1;
	if (n)
		model_around(m, fns, n);
	if (a->cycles)
		model_cycles(m);
	if (a->hot)
		model_hot(m);
	if (a->threads)
		model_threads(m, thread_passes(a));
	if (a->hook_cost)
		model_hook_cost(m);
	return 0;
}

static int report_show(struct report_args *a)
{
	struct cli_profile cp;
	struct model vm;
	struct model_view v;
	if (cli_load(a->path, 0, &cp) != 0)
		return CLI_EXIT_FAIL;
	if (a->o.sort == REPORT_SORT_ALLOC && !model_alloc_measured(&cp.model)) {
		cli_unload(&cp);
		return cli_no_alloc_data(&cli_report, "--sort alloc", a->path);
	}
	if (a->heap && !heap_measured(&cp.prof)) {
		cli_error("ccprof: %s: --heap: %s", a->path, HEAP_NONE(&cp.prof));
		cli_unload(&cp);
		return CLI_EXIT_FAIL;
	}
	sources_resolve(&cp.prof);
	view_opts_names(&a->view, (struct model *[]){&cp.model}, 1);
	if (view_opts_model(a->path, &cp.model, &a->view, report_passes(a), &vm, &v) != 0) {
		cli_unload(&cp);
		return CLI_EXIT_FAIL;
	}
	int status = 0;
	if (report_views(&vm, a) != 0)
		status = CLI_EXIT_FAIL;
	else
		status = report_heap_write(stdout, a->path, &vm, &a->o,
					   &(struct report_heap_args){a->json, a->heap});
	model_free(&vm);
	model_view_free(&v);
	cli_unload(&cp);
	return cli_finish_output(status);
}

static int report_run(int argc, char **argv)
{
	struct report_args a = {.o = {.top = REPORT_TOP_DEFAULT}};
	model_view_opts_init(&a.view);
	int status = report_parse(argc, argv, &a);
	if (status < 0) /* --help */
		status = cli_finish_output(0);
	else if (status == 0)
		status = report_show(&a);
	model_view_opts_free(&a.view);
	free(a.callers.v);
	free(a.around.v);
	return status;
}
