/*
 * cmd_diff.c - `ccprof diff A B`: how profile B differs from profile A,
 * per function and per compressed stack (model/diff.h).
 *
 * The view options apply to both sides alike (each resolved against its
 * own profile), so `--deselect` or `--focus` compare like with like.
 * The pruning options are usage errors: diff shows no tree, and its rows
 * (every stack, each side's own) are cut by --top instead; hiding a
 * stack small on one side only would show it as present on one side.
 * Profiles of different programs, or with different clocks, are still
 * compared, after a warning: comparing two versions of a program is the
 * point, and their paths often differ.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/view_opts.h"
#include "model/diff.h"
#include "model/heap.h"
#include "output/report.h"

static int diff_run(int argc, char **argv);

const struct cli_command cli_diff = {
	.name = "diff",
	.summary = "compare two profiles per function and per stack",
	.usage = "ccprof diff [--normalize] [--top N] [VIEW OPTIONS] [--json] A B",
	.help = "Show how profile B differs from profile A: for each function, the change\n"
		"in self time, inherited time and calls, absolute (B - A) and relative to\n"
		"A; then the same for each compressed stack (self time and entries).  When\n"
		"both profiles counted allocations, also the change in bytes allocated\n"
		"(self; stacks: individual), and when both followed the heap, in bytes\n"
		"live at the end (the same way).\n"
		"Largest change first; functions or stacks on one side only are listed and\n"
		"marked.  Functions are matched by name.\n\n"
		"Options:\n"
		"  -n, --normalize  scale B's times so its total equals A's: compare shares\n"
		"                   of the run instead of seconds (calls are not scaled)\n"
		"  -t, --top N      rows per table (default: all)\n"
		"  -j, --json       print as JSON (see docs/json.md), every row\n"
		"  -h, --help       show this help\n\n" VIEW_SELECT_HELP
		"(--min-percent, --min-calls and --min-time do not apply: diff shows no tree;\n"
		"--top limits the rows)\n",
	.run = diff_run,
};

static const struct option diff_options[] = {
	VIEW_OPTIONS,
	{"normalize", no_argument, NULL, 'n'},
	{"top", required_argument, NULL, 't'},
	{"json", no_argument, NULL, 'j'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct diff_args {
	struct model_view_opts view;
	int normalize, json;
	unsigned top;
	const char *path[2];
};

static int diff_parse(int argc, char **argv, struct diff_args *a)
{
	char err[256];
	int c;
	opterr = 0;
	while ((c = cli_getopt(argc, argv, ":nt:jh", diff_options)) != -1) {
		int r = view_opts_parse(&a->view, c, optarg, err, sizeof err);
		if (r < 0)
			return cli_usage_error(&cli_diff, "%s", err);
		if (r > 0)
			continue;
		switch (c) {
		case 'n': a->normalize = 1; break;
		case 'j': a->json = 1; break;
		case 't':
			if (cli_parse_count(optarg, &a->top) != 0)
				return cli_usage_error(&cli_diff, "--top needs a count, digits only "
						       "and at most " CLI_COUNT_MAX ", not '%s'", optarg);
			break;
		case 'h':
			cli_help(stdout, &cli_diff);
			return -1;
		default:
			return cli_bad_option(&cli_diff, c, argv);
		}
	}
	if (model_prune_any(&a->view.prune))
		return cli_usage_error(&cli_diff, "--min-percent, --min-calls and --min-time do "
						  "not apply to diff (no tree; --top limits the rows)");
	if (argc - optind < 2)
		return cli_usage_error(&cli_diff, "two profiles needed");
	if (argc - optind > 2)
		return cli_usage_error(&cli_diff, "two profiles only ('%s' is extra)",
				       argv[optind + 2]);
	a->path[0] = argv[optind];
	a->path[1] = argv[optind + 1];
	return cli_check_inputs(&cli_diff, argv + optind, 2);
}

static void diff_warn(const struct diff_args *a, const struct ccp_profile *pa,
		      const struct ccp_profile *pb)
{
	const char *na = model_basename(pa->program), *nb = model_basename(pb->program);
	if (strcmp(na, nb) != 0) {
		char *sa = cli_shown(na), *sb = cli_shown(nb);
		cli_error("ccprof diff: warning: %s and %s are profiles of different "
			  "programs (%s, %s)",
			a->path[0], a->path[1], sa, sb);
		free(sa);
		free(sb);
	}
	if (pa->clock != pb->clock)
		cli_error("ccprof diff: warning: %s and %s were measured with different "
			  "clocks (%s, %s)",
			a->path[0], a->path[1], report_clock_name(pa->clock),
			report_clock_name(pb->clock));
}

/* Both sides loaded and viewed; on failure everything loaded is freed. */
struct side {
	struct cli_profile cp;
	struct model vm;
	struct model_view v;
	int focus_missed; /* --focus matched nothing here: the view is empty */
	int heap;             /* live and its base were built (model/heap.h) */
	struct heap_base hb;
	struct model live;    /* the live heap at the end under vm's view */
};

static void free_side(struct side *s)
{
	if (s->heap) {
		model_free(&s->live);
		heap_base_free(&s->hb);
	}
	model_free(&s->vm);
	model_view_free(&s->v);
	cli_unload(&s->cp);
}

/* Side i's view of its loaded profile. */
static int view_side(const struct diff_args *a, int i, struct side *s)
{
	return view_opts_model_may_miss(a->path[i], &s->cp.model, &a->view, MODEL_FLAT | MODEL_TREE,
					&s->vm, &s->v, &s->focus_missed);
}

/* Both sides, their names shortened together (--short-names: rows are
 * keyed by name, so one function must have one name on both sides). */
static int load_sides(const struct diff_args *a, struct side s[2])
{
	if (cli_load(a->path[0], 0, &s[0].cp) != 0)
		return -1;
	if (cli_load(a->path[1], 0, &s[1].cp) != 0) {
		cli_unload(&s[0].cp);
		return -1;
	}
	view_opts_names(&a->view, (struct model *[]){&s[0].cp.model, &s[1].cp.model}, 2);
	if (view_side(a, 0, &s[0]) != 0) {
		cli_unload(&s[1].cp);
		cli_unload(&s[0].cp);
		return -1;
	}
	if (view_side(a, 1, &s[1]) != 0) {
		cli_unload(&s[1].cp);
		free_side(&s[0]);
		return -1;
	}
	return 0;
}

/* A function focused on may exist in one run only (added or removed):
 * then the other side is empty, and everything shows as new or gone.
 * A pattern that matches in neither run is an error, as for report; each
 * pattern of a list is checked (--focus f,g with f in A only and g in B
 * only once failed as matching in neither). */
static int check_focus(const struct diff_args *a, const struct side s[2])
{
	const struct model *const base[2] = {&s[0].cp.model, &s[1].cp.model};
	for (uint32_t i = 0; i < a->view.focus.n; i++) {
		char *miss = model_unmatched_pattern(base, 2, a->view.focus.v[i]);
		if (miss) {
			cli_error("ccprof diff: --focus '%s' matches no function in either profile",
				  miss);
			free(miss);
			return -1;
		}
	}
	for (int i = 0; i < 2; i++)
		if (s[i].focus_missed)
			cli_error("ccprof: %s: warning: --focus '%s' matches no function: that "
				  "side is empty",
				  a->path[i], s[i].v.unmatched_focus);
	return 0;
}

/* The live heap at the end of both sides, when both followed the heap:
 * diff compares it as it compares allocations. */
static void load_heap(struct side s[2])
{
	char err[256];
	if (!heap_measured(&s[0].cp.prof) || !heap_measured(&s[1].cp.prof))
		return;
	for (int i = 0; i < 2; i++) {
		/* it cannot fail: vm was built from the same histories */
		if (heap_base_build(&s[i].hb, &s[i].cp.prof, HEAP_AT_END, err, sizeof err) != 0) {
			heap_base_free(&s[i].hb);
			return;
		}
		heap_view_build(&s[i].live, &s[i].hb, &s[i].vm, MODEL_FLAT | MODEL_TREE);
		s[i].heap = 1;
	}
}

static int diff_show(const struct diff_args *a)
{
	struct side s[2];
	memset(s, 0, sizeof s); /* heap: 0 until load_heap */
	if (load_sides(a, s) != 0)
		return CLI_EXIT_FAIL;
	if (check_focus(a, s) != 0) {
		free_side(&s[1]);
		free_side(&s[0]);
		return CLI_EXIT_FAIL;
	}
	diff_warn(a, &s[0].cp.prof, &s[1].cp.prof);
	load_heap(s);
	struct diff d;
	diff_build_live(&d, &s[0].vm, &s[1].vm, s[0].heap && s[1].heap ? &s[0].live : NULL,
			s[1].heap ? &s[1].live : NULL, a->normalize);
	struct diff_input in = {
		.d = &d,
		.path = {a->path[0], a->path[1]},
		.prof = {&s[0].cp.prof, &s[1].cp.prof},
		.normalized = a->normalize,
		.top = a->top,
	};
	(a->json ? diff_json : diff_text)(stdout, &in);
	diff_free(&d);
	free_side(&s[1]);
	free_side(&s[0]);
	return cli_finish_output(0);
}

static int diff_run(int argc, char **argv)
{
	struct diff_args a = {.top = 0};
	model_view_opts_init(&a.view);
	int status = diff_parse(argc, argv, &a);
	if (status < 0)
		status = cli_finish_output(0);
	else if (status == 0)
		status = diff_show(&a);
	model_view_opts_free(&a.view);
	return status;
}
