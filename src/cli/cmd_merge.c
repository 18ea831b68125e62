/*
 * cmd_merge.c - `ccprof merge -o OUT A B ...`: add profiles of several
 * runs into one (model/combine.h), so that `report OUT` shows the sum.
 * The result is written as cli_write_profile says.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "format/format.h"
#include "model/combine.h"
#include "model/heap.h"
#include "model/sources.h"
#include "model/xalloc.h"

static int merge_run(int argc, char **argv);

const struct cli_command cli_merge = {
	.name = "merge",
	.summary = "add profiles of several runs into one",
	.usage = "ccprof merge -o OUT FILE...",
	.help = "Add the profiles FILE... into one profile OUT: contexts with the same\n"
		"history add their calls, times and allocations, so `ccprof report OUT`\n"
		"shows the sum of the runs (with allocations if any FILE has them, and\n"
		"a note when some do not; heap data, which does not add up, is left out,\n"
		"with a note).\n"
		"Functions are matched by module (path and build-id) and offset,\n"
		"manual regions by name; thread i of each file is added to thread i of OUT.\n"
		"The files must have the same clock, sampling interval and clock rate (for\n"
		"the cycles clock, rates within 0.5% are accepted and rescaled to the\n"
		"first file's).  Other header fields come from the first file.  The source\n"
		"lines found in the inputs' binaries are written into OUT, which keeps them\n"
		"when the binaries are gone.\n\n"
		"Options:\n"
		"  -o, --output OUT  the profile to write (required; - is standard output)\n"
		"  -h, --help        show this help\n",
	.run = merge_run,
};

static const struct option merge_options[] = {
	{"output", required_argument, NULL, 'o'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* Runs of different programs add up all the same (their functions stay
 * apart: different modules), but it is more likely a mistake. */
static void warn_programs(const struct ccp_profile *in, char **files, uint32_t n)
{
	const char *first = model_basename(in[0].program);
	for (uint32_t i = 1; i < n; i++) {
		const char *name = model_basename(in[i].program);
		if (strcmp(name, first) != 0) {
			char *sn = cli_shown(name), *sf = cli_shown(first);
			cli_error("ccprof merge: warning: %s is a profile of %s, %s of %s",
				files[i], sn, files[0], sf);
			free(sn);
			free(sf);
			return;
		}
	}
}

/* Heap data does not add up: the samples are each run's own timeline,
 * and the peak of a sum is not the sum of the peaks (nor any number the
 * runs recorded).  So the result has none (combine.c writes no HEAP),
 * which is worth a line: a report --heap of it will refuse. */
static void note_heap(const struct ccp_profile *in, char **files, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (heap_measured(&in[i])) {
			cli_error("ccprof merge: note: heap data (%s has some) is left out: "
				  "runs' live heaps do not add up; allocations are merged",
				files[i]);
			return;
		}
}

/* A run that did not count allocations adds none: the merged bytes are
 * those of the runs that did, which a report of OUT cannot tell from a
 * sum over every run, so the command says so. */
static void note_alloc(const struct ccp_profile *in, char **files, uint32_t n)
{
	uint32_t measured = 0, other = n;
	for (uint32_t i = 0; i < n; i++) {
		if (in[i].alloc.measured)
			measured++;
		else if (other == n)
			other = i;
	}
	if (measured && other < n)
		cli_error("ccprof merge: note: %s did not count allocations: the merged "
			  "allocations are those of the %u run%s that did",
			files[other], measured, measured == 1 ? "" : "s");
}

/* "-o -": to standard output, for a pipe (`merge -o - a b | ccprof report
 * -`); else as cli_write_profile.  0, or -1 with errno. */
static int write_sum(const struct ccp_profile *sum, const char *out_path)
{
	if (!cli_is_stdout(out_path))
		return cli_write_profile(sum, out_path);
	return ccp_format_write_fd(sum, STDOUT_FILENO);
}

static int merge_files(const char *out_path, char **files, uint32_t n)
{
	struct ccp_profile *in = xcalloc(n, sizeof *in);
	const struct ccp_profile **ptrs = xcalloc(n, sizeof *ptrs);
	uint32_t loaded = 0;
	int status = CLI_EXIT_FAIL;
	char err[512] = "";
	for (; loaded < n; loaded++) {
		if (ccp_format_read_file(cli_input_path(files[loaded]), &in[loaded], err, sizeof err) != 0) {
			cli_error("ccprof: %s: %s", files[loaded],
				err[0] ? err : "cannot read profile");
			goto out;
		}
		cli_anchor_modules(&in[loaded], files[loaded]); /* Note [Relative module paths] */
		sources_resolve(&in[loaded]);
		combine_fold_reloads(&in[loaded]); /* Note [One function, several cost centres] */
		ptrs[loaded] = &in[loaded];
	}
	warn_programs(in, files, n);
	note_heap(in, files, n);
	note_alloc(in, files, n);
	struct ccp_arena *arena = ccp_arena_new();
	struct ccp_profile sum;
	if (!arena)
		xalloc_die(0, __func__);
	if (combine_profiles(&sum, arena, ptrs, (const char *const *)files, n, err, sizeof err) != 0)
		cli_error("ccprof merge: cannot merge: %s", err);
	else if (write_sum(&sum, out_path) != 0)
		cli_error("ccprof: %s: %s",
			cli_is_stdout(out_path) ? "standard output" : out_path, strerror(errno));
	else
		status = 0;
	ccp_arena_free(arena);
out:
	for (uint32_t i = 0; i < loaded; i++)
		ccp_profile_free(&in[i]);
	free(in);
	free(ptrs);
	return status;
}

static int merge_run(int argc, char **argv)
{
	const char *out = NULL;
	int c;
	opterr = 0;
	while ((c = cli_getopt(argc, argv, ":o:h", merge_options)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'h':
			cli_help(stdout, &cli_merge);
			return cli_finish_output(0);
		default:
			return cli_bad_option(&cli_merge, c, argv);
		}
	}
	if (!out)
		return cli_usage_error(&cli_merge, "no output file given (-o OUT)");
	if (!*out)
		return cli_usage_error(&cli_merge, "-o needs a file name");
	if (optind == argc)
		return cli_usage_error(&cli_merge, "no profile given");
	if ((c = cli_stdin_once(&cli_merge, argv + optind, argc - optind)) != 0)
		return c;
	return merge_files(out, argv + optind, (uint32_t)(argc - optind));
}
