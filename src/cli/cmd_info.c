/*
 * cmd_info.c - `ccprof info`: statistics about a profile and its run.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "model/sources.h"
#include "output/report.h"

static int info_run(int argc, char **argv);

const struct cli_command cli_info = {
	.name = "info",
	.summary = "statistics about a profile and the run that made it",
	.usage = "ccprof info [--json] FILE",
	.help = "Print facts about the profile in FILE: the program and its run (pid,\n"
		"start, end, duration), the clock (ticks per second, sampling interval or\n"
		"cycle frequency, samples, under clock=cpu the samples' looks at threads,\n"
		"the runtime's overhead estimate per call), and the profiler's own\n"
		"counters (calls, contexts, transitions, functions, threads, modules, how\n"
		"many functions have source lines, deepest history, maximum stack depth,\n"
		"profiling memory, lost calls and time, its own time, slow finds: calls\n"
		"whose transition, made before, the runtime's caches missed; from a\n"
		"runtime before session 51, dispatchers: contexts whose inline cache was\n"
		"bypassed or on retrial), the allocations and the live heap when the run\n"
		"measured them, plus the file's size.\n\n"
		"Options:\n"
		"  -j, --json  print the same as JSON\n"
		"  -h, --help  show this help\n",
	.run = info_run,
};

static const struct option info_options[] = {
	{"json", no_argument, NULL, 'j'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int info_run(int argc, char **argv)
{
	info_writer *write = info_text;
	int c;

	opterr = 0;
	while ((c = cli_getopt(argc, argv, ":jh", info_options)) != -1) {
		switch (c) {
		case 'j': write = info_json; break;
		case 'h':
			cli_help(stdout, &cli_info);
			return cli_finish_output(0);
		default:
			return cli_bad_option(&cli_info, c, argv);
		}
	}
	const char *path;
	int status = cli_one_profile(&cli_info, argc, argv, &path);
	if (status != 0)
		return status;

	struct cli_profile cp;
	if (cli_load(path, MODEL_FLAT, &cp) != 0)
		return CLI_EXIT_FAIL;
	sources_resolve(&cp.prof);
	struct info_input in = {.m = &cp.model, .path = path, .file_size = cp.file_size};
	write(stdout, &in);
	cli_unload(&cp);
	return cli_finish_output(0);
}
