/*
 * main.c - the ccprof command: global options and dispatch to one
 * subcommand per file, in the order of the commands table below and
 * `ccprof --help`: cmd_record.c, cmd_report.c, cmd_diff.c, cmd_merge.c,
 * cmd_convert.c, cmd_info.c.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "model/sources.h"
#include "model/xalloc.h"

static const struct cli_command *const commands[] = {
	&cli_record,
	&cli_report,
	&cli_diff,
	&cli_merge,
	&cli_convert,
	&cli_info,
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

#define MAIN_USAGE "ccprof [--help] [--version] COMMAND [ARGS]"

static const struct cli_command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

/* For a command name people guess from other tools, a hint naming the
 * command that does it, to follow "unknown command 'NAME'"; else "". */
static const char *command_hint(const char *name)
{
	static const struct {
		const char *guess, *hint;
	} hints[] = {
		{"export", "; to write another format, see 'ccprof convert'"},
		{"view", "; to view a profile, see 'ccprof report', or 'ccprof convert --to html' "
			 "for a page"},
	};
	for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++)
		if (strcmp(name, hints[i].guess) == 0)
			return hints[i].hint;
	return "";
}

/* text after column col, its words wrapped at 79 columns under the
 * summaries (column 11). */
static void wrap_more(FILE *f, size_t col, const char *text)
{
	while (*text) {
		size_t n = strcspn(text, " ");
		if (col + 1 + n > 79) {
			fputs("\n          ", f);
			col = 10;
		}
		fprintf(f, " %.*s", (int)n, text);
		col += 1 + n;
		text += n + strspn(text + n, " ");
	}
}

static void main_help(FILE *f)
{
	fputs("usage: " MAIN_USAGE "\n\n"
	      "ccprof is a calling-context profiler for programs built with\n"
	      "-finstrument-functions: it records, for every context a thread runs in,\n"
	      "the calls and time spent, and reports exact inherited times.\n\n"
	      "Commands:\n", f);
	for (size_t i = 0; i < NCOMMANDS; i++) {
		fprintf(f, "  %-8s %s", commands[i]->name, commands[i]->summary);
		if (commands[i]->summary_more)
			wrap_more(f, 11 + strlen(commands[i]->summary),
				  commands[i]->summary_more());
		fputc('\n', f);
	}
	fputs("\nOptions:\n"
	      "  -h, --help [COMMAND]  show this help, or the command's\n"
	      "  -V, --version         show the version\n\n"
	      "'ccprof help COMMAND' or 'ccprof COMMAND --help' describes a command.\n", f);
}

__attribute__((format(printf, 1, 2))) static int main_usage_error(const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	va_start(ap, fmt);
	char *msg = xvformat(fmt, ap);
	va_end(ap);
	cli_error("ccprof: %s (usage: " MAIN_USAGE ")", msg);
	free(msg);
	return CLI_EXIT_USAGE;
}

/* ccprof help [COMMAND], and the same as ccprof --help [COMMAND] or
 * ccprof -h [COMMAND]: argv[0] is the word the user typed. */
static int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		main_help(stdout);
		return cli_finish_output(0);
	}
	if (argc > 2)
		return main_usage_error("%s takes one command ('%s' is extra)", argv[0], argv[2]);
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		main_help(stdout);
		return cli_finish_output(0);
	}
	const struct cli_command *c = find_command(argv[1]);
	if (!c)
		return main_usage_error("unknown command '%s'%s", argv[1], command_hint(argv[1]));
	cli_help(stdout, c);
	return cli_finish_output(0);
}

int main(int argc, char **argv)
{
	/* A closed pipe ends the tool quietly (`ccprof report f | head`): undo
	 * an inherited SIG_IGN; a write past `ulimit -f` fails, said.  record
	 * keeps both dispositions for the program it runs. */
	if (argc < 2 || strcmp(argv[1], "record") != 0) {
		signal(SIGPIPE, SIG_DFL);
		cli_no_size_signal();
	}
	if (argc < 2)
		return main_usage_error("no command given");
	const char *cmd = argv[1];
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		if (argc > 2)
			return main_usage_error("%s takes no arguments ('%s' is extra)", cmd, argv[2]);
		const char *dw = sources_library();
		printf("ccprof %s\nsource lines: %s\n", CCPROF_VERSION,
		       dw ? dw : "none (built without libdw)");
		return cli_finish_output(0);
	}
	if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0)
		return cmd_help(argc - 1, argv + 1);
	if (cmd[0] == '-')
		return main_usage_error("unknown option '%s'", cmd);
	const struct cli_command *c = find_command(cmd);
	if (!c)
		return main_usage_error("unknown command '%s'%s", cmd, command_hint(cmd));
	return c->run(argc - 1, argv + 1);
}
