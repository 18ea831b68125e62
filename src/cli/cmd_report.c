/*
 * cmd_report.c - `ccprof report`: read a profile, build the model, and
 * hand it to the text or the JSON writer.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "output/report.h"

#define REPORT_TOP_DEFAULT 20

static int report_run(int argc, char **argv);

const struct cli_command cli_report = {
	.name = "report",
	.summary = "print a profile: top cost centres, stack tree, call graph",
	.usage = "ccprof report [--top N] [--graph] [--contexts] [--json] FILE",
	.help = "Print the profile in FILE (written by the ccprof runtime) in the style of\n"
		"GHC's .prof report: a header, the top cost centres by self time, and the\n"
		"stack tree (contexts grouped by compressed stack, with individual and\n"
		"inherited time).\n\n"
		"Options:\n"
		"  -t, --top N     rows in the table of top cost centres (default 20; 0: all)\n"
		"  -g, --graph     add a gprof-style call graph with exact arc times\n"
		"  -c, --contexts  add every context with its history, most expensive first\n"
		"  -j, --json      print everything as JSON instead (see docs/json.md);\n"
		"                  --top, --graph and --contexts do not apply\n"
		"  -h, --help      show this help\n",
	.run = report_run,
};

static const struct option report_options[] = {
	{"top", required_argument, NULL, 't'},
	{"graph", no_argument, NULL, 'g'},
	{"contexts", no_argument, NULL, 'c'},
	{"json", no_argument, NULL, 'j'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int report_run(int argc, char **argv)
{
	struct report_opts o = {.top = REPORT_TOP_DEFAULT};
	report_writer *write = report_text;
	int json = 0, c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:gcjh", report_options, NULL)) != -1) {
		switch (c) {
		case 't':
			if (cli_parse_count(optarg, &o.top) != 0)
				return cli_usage_error(&cli_report, "--top needs a count, not '%s'",
						       optarg);
			break;
		case 'g': o.graph = 1; break;
		case 'c': o.contexts = 1; break;
		case 'j': json = 1; break;
		case 'h':
			cli_help(stdout, &cli_report);
			return cli_finish_output(0);
		default:
			return cli_bad_option(&cli_report, c, argv);
		}
	}
	if (optind == argc)
		return cli_usage_error(&cli_report, "no profile given");
	if (argc - optind > 1)
		return cli_usage_error(&cli_report, "one profile at a time ('%s' is extra)",
				       argv[optind + 1]);

	struct cli_profile cp;
	if (json)
		write = report_json;
	if (cli_load(argv[optind], json ? REPORT_JSON_PASSES : report_text_passes(&o), &cp) != 0)
		return CLI_EXIT_FAIL;
	write(stdout, &cp.model, &o);
	cli_unload(&cp);
	return cli_finish_output(0);
}
