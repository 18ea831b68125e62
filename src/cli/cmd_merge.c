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
		"Functions are matched by module (build-id, or path without one) and offset,\n"
		"manual regions by name.  Each file's main thread (tid = pid) is added to\n"
		"OUT's first thread, and its other threads in their order to the next ones.\n"
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

/*
 * What the notes after the reading say of the inputs: each file is
 * freed once added (Note [One file at a time] in src/model/combine.c),
 * so these are gathered as it goes.  They are printed only when every
 * file could be read, and before any refusal of the sum, as when all the
 * files were read first.  A field that names a file holds its index, n
 * for none.
 */
struct merge_notes {
	uint32_t n;
	char *first_program; /* the base name of the first file's program */
	uint32_t other;      /* the first file of another program */
	char *other_program; /* its base name */
	uint32_t heap;       /* the first file with heap data */
	uint32_t counted;    /* how many counted allocations */
	uint32_t uncounted;  /* the first that did not */
};

static void notes_init(struct merge_notes *m, uint32_t n)
{
	*m = (struct merge_notes){.n = n, .other = n, .heap = n, .uncounted = n};
}

static void notes_free(struct merge_notes *m)
{
	free(m->first_program);
	free(m->other_program);
}

static void notes_take(struct merge_notes *m, const struct ccp_profile *p, uint32_t i)
{
	const char *name = model_basename(p->program);
	if (i == 0)
		m->first_program = xstrdup(name);
	else if (m->other == m->n && strcmp(name, m->first_program) != 0) {
		m->other = i;
		m->other_program = xstrdup(name);
	}
	if (m->heap == m->n && heap_measured(p))
		m->heap = i;
	if (p->alloc.measured)
		m->counted++;
	else if (m->uncounted == m->n)
		m->uncounted = i;
}

/* Runs of different programs add up all the same (their functions stay
 * apart: different modules), but it is more likely a mistake. */
static void warn_programs(const struct merge_notes *m, char **files)
{
	if (m->other == m->n)
		return;
	char *sn = cli_shown(m->other_program), *sf = cli_shown(m->first_program);
	cli_error("ccprof merge: warning: %s is a profile of %s, %s of %s", files[m->other], sn,
		  files[0], sf);
	free(sn);
	free(sf);
}

/* Heap data does not add up: the samples are each run's own timeline,
 * and the peak of a sum is not the sum of the peaks (nor any number the
 * runs recorded).  So the result has none (combine.c writes no HEAP),
 * which is worth a line: a report --heap of it will refuse. */
static void note_heap(const struct merge_notes *m, char **files)
{
	if (m->heap < m->n)
		cli_error("ccprof merge: note: heap data (%s has some) is left out: "
			  "runs' live heaps do not add up; allocations are merged",
			  files[m->heap]);
}

/* A run that did not count allocations adds none: the merged bytes are
 * those of the runs that did, which a report of OUT cannot tell from a
 * sum over every run, so the command says so. */
static void note_alloc(const struct merge_notes *m, char **files)
{
	if (m->counted && m->uncounted < m->n)
		cli_error("ccprof merge: note: %s did not count allocations: the merged "
			  "allocations are those of the %u run%s that did",
			  files[m->uncounted], m->counted, m->counted == 1 ? "" : "s");
}

/* "-o -": to standard output, for a pipe (`merge -o - a b | ccprof report
 * -`); else as cli_write_profile.  0, or -1 with errno. */
static int write_sum(const struct ccp_profile *sum, const char *out_path)
{
	if (!cli_is_stdout(out_path))
		return cli_write_profile(sum, out_path);
	return ccp_format_write_fd(sum, STDOUT_FILENO);
}

/* One input read as every command reads a profile, with its source
 * lines.  0, or CLI_EXIT_FAIL said. */
static int read_input(const char *file, struct ccp_profile *p)
{
	char err[512] = "";
	if (ccp_format_read_file(cli_input_path(file), p, err, sizeof err) != 0) {
		cli_error("ccprof: %s: %s", file, err[0] ? err : "cannot read profile");
		return CLI_EXIT_FAIL;
	}
	cli_anchor_modules(p, file); /* Note [Relative module paths] */
	sources_resolve(p);
	combine_fold_reloads(p); /* Note [One function, several cost centres] */
	return 0;
}

/* Each file is read, added to sum and freed before the next (Note [One
 * file at a time] in src/model/combine.c).  0, or CLI_EXIT_FAIL at the
 * first file that cannot be read, said. */
static int add_files(struct combine *sum, struct merge_notes *notes, char **files, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct ccp_profile in;
		if (read_input(files[i], &in) != 0)
			return CLI_EXIT_FAIL;
		notes_take(notes, &in, i);
		combine_add(sum, &in, files[i]);
		ccp_profile_free(&in);
	}
	return 0;
}

/* Every file read: the sum written, then the notes on it; or why there
 * is none (result NULL, err), in one line with no notes on a merge that
 * did not happen. */
static int conclude(const struct merge_notes *notes, char **files,
		    const struct ccp_profile *result, const char *err, const char *out_path)
{
	if (!result) {
		cli_error("ccprof merge: cannot merge: %s", err);
		return CLI_EXIT_FAIL;
	}
	if (write_sum(result, out_path) != 0) {
		cli_error("ccprof: %s: %s", cli_is_stdout(out_path) ? "standard output" : out_path,
			  strerror(errno));
		return CLI_EXIT_FAIL;
	}
	warn_programs(notes, files);
	note_heap(notes, files);
	note_alloc(notes, files);
	return 0;
}

/* OUT is written only when every file was read and added. */
static int merge_files(const char *out_path, char **files, uint32_t n)
{
	struct ccp_arena *arena = ccp_arena_new();
	if (!arena)
		xalloc_die(0, __func__);
	struct combine *sum = combine_begin(arena);
	struct merge_notes notes;
	notes_init(&notes, n);
	int status = add_files(sum, &notes, files, n);
	struct ccp_profile result;
	char err[512] = "";
	int summed = combine_end(sum, &result, err, sizeof err) == 0;
	if (status == 0)
		status = conclude(&notes, files, summed ? &result : NULL, err, out_path);
	notes_free(&notes);
	ccp_arena_free(arena);
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
	if ((c = cli_check_inputs(&cli_merge, argv + optind, argc - optind)) != 0)
		return c;
	return merge_files(out, argv + optind, (uint32_t)(argc - optind));
}
