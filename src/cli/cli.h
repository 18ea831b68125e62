/*
 * cli.h - what the subcommands share: their descriptor, usage errors,
 * loading a profile, and finishing standard output.
 *
 * Conventions (every subcommand): options parsed with getopt_long; exit
 * status 0 on success, 1 when an input or the system fails (one line
 * "ccprof: FILE: REASON" on stderr), 2 on a usage error (one line on
 * stderr).  Every line on stderr is printed by cli_error, which escapes
 * it.  Output goes to stdout.
 */
#ifndef CCPROF_CLI_H
#define CCPROF_CLI_H

#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "format/profile.h"
#include "model/model.h"

#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

struct cli_command {
	const char *name;
	const char *summary; /* one line for `ccprof --help` */
	/* or NULL: more of the summary, made at run time (convert's formats,
	 * from the format table); `ccprof --help` wraps it after summary */
	const char *(*summary_more)(void);
	const char *usage;   /* "ccprof NAME [OPTIONS] ARGS" */
	const char *help;    /* the rest of `ccprof help NAME` */
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
};

extern const struct cli_command cli_report;
extern const struct cli_command cli_info;
extern const struct cli_command cli_record;
extern const struct cli_command cli_convert;
extern const struct cli_command cli_diff;
extern const struct cli_command cli_merge;

/* Print "usage: ..." and the help text of c to f. */
void cli_help(FILE *f, const struct cli_command *c);

/* The one way a line goes to stderr: fmt formatted, control characters
 * and invalid UTF-8 escaped as cli_shown does (a file name or an option
 * value may hold a newline or an escape sequence), then a newline.  See
 * Note [One line on stderr] in cli.c. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One line "ccprof NAME: MESSAGE (usage: USAGE)" on stderr; returns 2. */
int cli_usage_error(const struct cli_command *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The usage error of an option that needs allocation data (report --sort
 * alloc, convert --weight alloc) given the profile at path without any:
 * known only once the file is read, but a usage error all the same.
 * Returns 2. */
int cli_no_alloc_data(const struct cli_command *c, const char *option, const char *path);

/* getopt_long, remembering what cli_bad_option needs to name the option
 * at fault (every subcommand parses its options with it). */
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts);

/* The usage error for what cli_getopt returned as '?' or ':' (with a
 * leading ':' in the option string and opterr = 0); returns 2. */
int cli_bad_option(const struct cli_command *c, int ret, char **argv);

/* After the options (optind): the one profile operand into *path; 0, or
 * the usage error's status when there is none or more than one. */
int cli_one_profile(const struct cli_command *c, int argc, char **argv, const char **path);

/* A decimal count for an option value, digits only, at most UINT_MAX
 * (CLI_COUNT_MAX in messages); -1 if s is not one. */
int cli_parse_count(const char *s, unsigned *out);
#define CLI_COUNT_MAX "4294967295"

/* The same up to UINT64_MAX (below 2^64). */
int cli_parse_count64(const char *s, uint64_t *out);

/* A finite non-negative decimal number, digits with at most one '.'
 * ("5", "0.5", "5."); -1 if s is not one.  A number beyond a double's
 * range is the nearest finite one that is not 0 (Note [Decimals beyond
 * a double] in cli.c). */
int cli_parse_decimal(const char *s, double *out);

/* "-" for an output file is standard output, as for most tools. */
int cli_is_stdout(const char *path);

/* s as the text report shows it (control characters and invalid UTF-8
 * escaped), for a message on stderr that names something a profile
 * says, such as its program: a file's bytes must not drive the
 * terminal.  Allocated: free it. */
char *cli_shown(const char *s);

/* A profile read from a file, with its model built. */
struct cli_profile {
	struct ccp_profile prof;
	struct model model;
	uint64_t file_size;
};

/* The usage error (returns 2) if one of the n files is named by the
 * empty string (read as "ccprof: : No such file or directory"), or if
 * "-" is among them more than once: standard input is read once, so a
 * second "-" read as an empty file ("-: empty file" for `diff - -`);
 * else 0. */
int cli_check_inputs(const struct cli_command *c, char *const *files, int n);

/* The file to open for a FILE argument: "-" is standard input. */
const char *cli_input_path(const char *path);

/* Module paths of p, read from path, that are relative (a runtime from
 * before absolute module paths) and name a regular file from path's
 * directory become that file's absolute path (Note [Relative module
 * paths] in cli.c); others stay as they are. */
void cli_anchor_modules(struct ccp_profile *p, const char *path);

/* Read path and model it with the passes given (enum model_pass); on
 * failure prints "ccprof: PATH: REASON" and returns 1 (nothing to free).
 * Source lines are not looked up: a command that shows them calls
 * sources_resolve (diff shows none, and merge resolves before merging). */
int cli_load(const char *path, unsigned passes, struct cli_profile *cp);
void cli_unload(struct cli_profile *cp);

/* What cli_write_file calls to write the output into fd (which it
 * closes itself): 0, or -1 with errno. */
typedef int cli_file_writer(int fd, const void *arg);

/* Write an output file (-o) as the runtime writes a profile: to a
 * temporary file in path's directory, renamed over path when complete, so
 * a reader never sees half a file and a failed write (a full disk, a file
 * size limit) leaves the previous file as it was; a file replaced keeps
 * its permissions (and its owner, where we may give it).  A target that
 * exists and is not a regular file (/dev/null, a FIFO), or that is
 * reached through a link in /proc (/dev/stdout), is written directly.
 * Through a symbolic link, the file it points to is replaced, or created
 * if it dangles, as `> path` would (the link stays a link).
 * 0, or -1 with errno. */
int cli_write_file(const char *path, cli_file_writer *write_out, const void *arg);

/* cli_write_file of the profile p. */
int cli_write_profile(const struct ccp_profile *p, const char *path);

/* Flush stdout and report a write error (returns 1) if there was one.
 * A closed pipe never gets here: SIGPIPE is left at its default, so the
 * tool ends quietly as `cmd | head` expects. */
int cli_finish_output(int status);

/* Writes past RLIMIT_FSIZE (`ulimit -f`) fail with EFBIG, said as any
 * failed write, instead of raising SIGXFSZ, whose default ends the tool
 * with no message and leaves OUT's temporary file behind. */
void cli_no_size_signal(void);

#endif
