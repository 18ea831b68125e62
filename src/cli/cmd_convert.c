/*
 * cmd_convert.c - `ccprof convert`: write a profile in another tool's
 * format (output/export.h; docs/exports.md says how to open each).
 *
 * The command reads the profile, builds the model the view options ask
 * for (selection, focus, pruning: cli/view_opts.h, the same as `report`)
 * with the passes the format reads, and with --threads the breakdown by
 * thread under the same view (model_threads: the writer builds each
 * thread's model in turn), then hands it all to the format's writer.
 * The output file is written only once the input has been read, and as
 * cli_write_file says (a temporary file renamed over it), so neither a
 * bad input nor a failed write leaves a partial output behind.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/report_heap.h"
#include "cli/view_opts.h"
#include "model/heap.h"
#include "model/sources.h"
#include "model/xalloc.h"
#include "output/export.h"
#include "output/ob.h"

static int convert_run(int argc, char **argv);
static const char *format_names(void);

const struct cli_command cli_convert = {
	.name = "convert",
	.summary = "export a profile in another tool's format:",
	.summary_more = format_names,
	.usage = "ccprof convert --to FORMAT [-o OUT] [--threads] [--inverted] "
		 "[--node-threshold PCT] [--weight time|alloc] [--name-length N] [VIEW OPTIONS] FILE",
	.help = "Write the profile in FILE in another tool's format, to OUT or standard\n"
		"output, with each function's source file and line wherever the format has\n"
		"a place for them (as in `ccprof report`), and the bytes and blocks allocated\n"
		"when the run counted them (record --alloc).  docs/exports.md describes each\n"
		"format and how to open it.\n\n"
		"Formats:\n"
		"  ghc-json    GHC's +RTS -pj JSON profile (speedscope, profiteur)\n"
		"  ghc-prof    GHC's +RTS -P text profile: flat table and stack tree\n"
		"  callgrind   callgrind profile (callgrind_annotate, KCachegrind); name it\n"
		"              callgrind.out.NAME\n"
		"  folded      folded stacks in microseconds, or bytes with --weight alloc\n"
		"              (flamegraph.pl, inferno, speedscope)\n"
		"  speedscope  speedscope's JSON format (name it NAME.speedscope.json)\n"
		"  chrome      Trace Event Format JSON (Perfetto, chrome://tracing, speedscope;\n"
		"              name it NAME.trace.json): the stack tree as a flame chart on a\n"
		"              synthetic timeline, not when calls ran; the live heap over real\n"
		"              time as a counter (record --heap)\n"
		"  pprof       gzip-compressed profile.proto (go tool pprof); binary\n"
		"  dot         Graphviz call graph (dot -Tsvg -o graph.svg)\n"
		"  svg         flame graph drawn by ccprof (open in a browser)\n"
		"  hp          GHC's heap profile, the live heap over time (hp2ps; record --heap)\n"
		"  heap-svg    the live heap over time by stack, an SVG chart drawn by ccprof\n"
		"              (open in a browser; record --heap)\n"
		"  html        an interactive report: every view of `ccprof report`, with\n"
		"              select, deselect and focus, computed in the page (one file,\n"
		"              no network; open in a browser)\n\n"
		"Options:\n"
		"  -t, --to FORMAT         the format (required)\n"
		"  -o, --output OUT        write to OUT instead of standard output (- is\n"
		"                          standard output)\n"
		"      --threads           speedscope, pprof, folded, chrome: each thread\n"
		"                          separately (a profile, label, root frame or track\n"
		"                          per thread)\n"
		"      --inverted          svg: an icicle graph, the root at the top\n"
		"      --node-threshold PCT\n"
		"                          dot: leave out functions below PCT % of the total\n"
		"                          inherited time (default 0.5; 0 keeps all)\n"
		"      --weight time|alloc folded, svg: stacks weighted by time (the default)\n"
		"                          or by bytes allocated (alloc: a profile recorded\n"
		"                          with --alloc)\n"
		"      --name-length N     hp: cut each band's stack to N bytes, the last\n"
		"                          three \"...\" (GHC's +RTS -L; at least 4;\n"
		"                          default: whole names)\n"
		"  -h, --help              show this help\n\n"
		VIEW_OPTIONS_HELP
		"Pruned tree nodes become one \"(hidden)\" frame under their parent, so the\n"
		"totals stay the same; the call graph formats (callgrind, dot) do not prune.\n",
	.run = convert_run,
};

enum { OPT_THREADS = 256, OPT_INVERTED, OPT_THRESHOLD, OPT_WEIGHT, OPT_NAME_LENGTH };

static const struct option convert_options[] = {
	VIEW_OPTIONS,
	{"to", required_argument, NULL, 't'},
	{"output", required_argument, NULL, 'o'},
	{"threads", no_argument, NULL, OPT_THREADS},
	{"inverted", no_argument, NULL, OPT_INVERTED},
	{"node-threshold", required_argument, NULL, OPT_THRESHOLD},
	{"weight", required_argument, NULL, OPT_WEIGHT},
	{"name-length", required_argument, NULL, OPT_NAME_LENGTH},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* Every format of the table, comma-separated: `ccprof --help` and the
 * unknown format's message list them all, so neither can leave one out. */
static const char *format_names(void)
{
	static char list[256];
	list[0] = '\0';
	for (unsigned i = 0; i < export_nformats; i++) {
		if (i)
			strncat(list, ", ", sizeof list - strlen(list) - 1);
		strncat(list, export_formats[i].name, sizeof list - strlen(list) - 1);
	}
	return list;
}

static int unknown_format(const char *name)
{
	return cli_usage_error(&cli_convert, "unknown format '%s' (formats: %s)", name,
			       format_names());
}

static int parse_percent(const char *s, double *out)
{
	double v;
	if (cli_parse_decimal(s, &v) != 0 || v > 100)
		return -1;
	*out = v;
	return 0;
}

static int parse_weight(const char *s, enum export_weight *out)
{
	if (strcmp(s, "time") == 0)
		*out = EXPORT_WEIGHT_TIME;
	else if (strcmp(s, "alloc") == 0)
		*out = EXPORT_WEIGHT_ALLOC;
	else
		return -1;
	return 0;
}

/* --name-length: room for a character and "..." at least. */
static int parse_name_length(const char *s, size_t *out)
{
	unsigned n;
	if (cli_parse_count(s, &n) != 0 || n < 4)
		return -1;
	*out = n;
	return 0;
}

/* An option the format does not take is a usage error, not ignored:
 * returns -1 with the message in err. */
static int check_accepts(const struct export_format *fmt, unsigned given, char *err,
			 size_t errlen)
{
	static const struct {
		unsigned opt;
		const char *name;
	} names[] = {
		{EXPORT_OPT_THREADS, "--threads"},
		{EXPORT_OPT_INVERTED, "--inverted"},
		{EXPORT_OPT_THRESHOLD, "--node-threshold"},
		{EXPORT_OPT_WEIGHT, "--weight"},
		{EXPORT_OPT_NAME_LENGTH, "--name-length"},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if ((given & names[i].opt) && !(fmt->accepts & names[i].opt)) {
			snprintf(err, errlen, "%s does not apply to --to %s", names[i].name,
				 fmt->name);
			return -1;
		}
	}
	return 0;
}

/* Whether out_path names the file the profile is read from: writing it
 * would replace the profile with its export (-o p.ccprof p.ccprof). */
static int is_input(const char *out_path, const char *path)
{
	struct stat in, out;
	return out_path && stat(cli_input_path(path), &in) == 0 && S_ISREG(in.st_mode) &&
	       stat(out_path, &out) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino;
}

/* What the format's writer needs, for cli_write_file. */
struct convert_job {
	const struct export_format *fmt;
	const struct export_input *in;
	const struct export_opts *o;
};

/* The format's writer into fd, through a stream of its own (on a dup:
 * cli_write_file closes fd itself).  0, or -1 with errno. */
static int write_job(int fd, const void *arg)
{
	const struct convert_job *job = arg;
	int copy = dup(fd);
	FILE *f = copy >= 0 ? fdopen(copy, job->fmt->binary ? "wb" : "w") : NULL;
	if (!f) {
		int e = errno;
		if (copy >= 0)
			close(copy);
		errno = e;
		return -1;
	}
	errno = 0;
	int bad = job->fmt->write(f, job->in, job->o) != 0;
	int e = bad ? errno : 0; /* the failed write's, before fclose */
	if (bad && ob_write_errno(f)) /* stdio's, which later calls overwrite */
		e = ob_write_errno(f);
	ob_forget(f);
	errno = 0;
	if (fclose(f) != 0) { /* what the stream still held fails now, with its reason */
		if (!bad || e == 0)
			e = errno;
		bad = 1;
	}
	errno = bad && !e ? EIO : e; /* a writer's error without errno */
	return bad ? -1 : 0;
}

/* Write to out_path (or stdout when NULL); returns the exit status.  A
 * file is written as cli_write_file says: a failed write (a full disk,
 * ulimit -f) leaves no partial file and the previous one as it was. */
static int write_output(const struct export_format *fmt, const char *out_path,
			const struct export_input *in, const struct export_opts *o)
{
	if (!out_path) {
		fmt->write(stdout, in, o);
		return cli_finish_output(0);
	}
	struct convert_job job = {.fmt = fmt, .in = in, .o = o};
	if (cli_write_file(out_path, write_job, &job) != 0) {
		cli_error("ccprof: %s: %s", out_path, strerror(errno));
		return CLI_EXIT_FAIL;
	}
	return 0;
}

/* --threads: vm's breakdown by thread (model_threads) into in; returns
 * the thread list to free after the write. */
static struct export_thread *thread_breakdown(struct model *vm, const struct export_format *fmt,
					      const struct ccp_profile *p, struct export_input *in)
{
	model_threads(vm, fmt->thread_passes);
	struct export_thread *threads =
		xnmalloc(vm->nthread_models ? vm->nthread_models : 1, sizeof *threads);
	for (uint32_t t = 0; t < vm->nthread_models; t++)
		threads[t] = (struct export_thread){
			.tid = p->threads[t].tid,
			.name = p->threads[t].name,
		};
	in->nthreads = vm->nthread_models;
	in->threads = threads;
	return threads;
}

/* The models the writer reads: the view's, its breakdown by thread, the
 * expensive arm and the live heap at the end if the format wants them. */
static int convert(const struct export_format *fmt, const char *path, const char *out_path,
		   const struct model_view_opts *vo, const struct export_opts *o)
{
	struct cli_profile cp;
	if (cli_load(path, 0, &cp) != 0)
		return CLI_EXIT_FAIL;
	if (o->weight == EXPORT_WEIGHT_ALLOC && !model_alloc_measured(&cp.model)) {
		cli_unload(&cp);
		return cli_no_alloc_data(&cli_convert, "--weight alloc", path);
	}
	if (fmt->heap && !heap_measured(&cp.prof)) {
		cli_error("ccprof: %s: %s", path, HEAP_NONE(&cp.prof));
		cli_unload(&cp);
		return CLI_EXIT_FAIL;
	}
	sources_resolve(&cp.prof);
	view_opts_names(vo, (struct model *[]){&cp.model}, 1);
	struct model vm;
	struct model_view v;
	if (view_opts_model(path, &cp.model, vo, fmt->passes, &vm, &v) != 0) {
		cli_unload(&cp);
		return CLI_EXIT_FAIL;
	}
	if (fmt->hot)
		model_hot(&vm);
	struct export_input in = {.m = &vm};
	struct heap_base live_end;
	int status = 0;
	if (fmt->live_end && heap_measured(&cp.prof)) {
		status = report_heap_base(path, &cp.prof, HEAP_AT_END, &live_end);
		in.live_end = status == 0 ? &live_end : NULL;
	}
	if (fmt->whole) { /* the page applies the view itself */
		in.base = &cp.model;
		in.view_opts = vo;
		in.source = strcmp(path, "-") != 0 ? path : NULL; /* stdin: no name */
	}
	if (status == 0) {
		struct export_thread *threads =
			o->threads ? thread_breakdown(&vm, fmt, &cp.prof, &in) : NULL;
		status = write_output(fmt, out_path, &in, o);
		free(threads);
	}
	if (in.live_end)
		heap_base_free(&live_end);
	model_free(&vm);
	model_view_free(&v);
	cli_unload(&cp);
	return status;
}

static int convert_run(int argc, char **argv)
{
	struct export_opts o = {.node_threshold = EXPORT_NODE_THRESHOLD_DEFAULT};
	struct model_view_opts vo;
	const struct export_format *fmt = NULL;
	const char *out_path = NULL;
	unsigned given = 0;
	char err[256];
	int c, r;

	model_view_opts_init(&vo);
	opterr = 0;
	while ((c = cli_getopt(argc, argv, ":t:o:h", convert_options)) != -1) {
		if ((r = view_opts_parse(&vo, c, optarg, err, sizeof err)) != 0) {
			if (r < 0)
				goto usage_msg;
			continue;
		}
		switch (c) {
		case 't':
			if (!(fmt = export_find(optarg))) {
				model_view_opts_free(&vo);
				return unknown_format(optarg);
			}
			break;
		case 'o': out_path = optarg; break;
		case OPT_THREADS: o.threads = 1, given |= EXPORT_OPT_THREADS; break;
		case OPT_INVERTED: o.inverted = 1, given |= EXPORT_OPT_INVERTED; break;
		case OPT_THRESHOLD:
			if (parse_percent(optarg, &o.node_threshold) != 0) {
				snprintf(err, sizeof err,
					 "--node-threshold needs a percentage from 0 to 100, "
					 "not '%.100s%s'",
					 optarg, strlen(optarg) > 100 ? "..." : "");
				goto usage_msg;
			}
			given |= EXPORT_OPT_THRESHOLD;
			break;
		case OPT_WEIGHT:
			if (parse_weight(optarg, &o.weight) != 0) {
				snprintf(err, sizeof err, "--weight needs time or alloc, not '%.100s'",
					 optarg);
				goto usage_msg;
			}
			given |= EXPORT_OPT_WEIGHT;
			break;
		case OPT_NAME_LENGTH:
			if (parse_name_length(optarg, &o.name_length) != 0) {
				snprintf(err, sizeof err,
					 "--name-length needs a number of bytes of at least "
					 "4 and at most " CLI_COUNT_MAX ", not '%.100s'",
					 optarg);
				goto usage_msg;
			}
			given |= EXPORT_OPT_NAME_LENGTH;
			break;
		case 'h':
			model_view_opts_free(&vo);
			cli_help(stdout, &cli_convert);
			return cli_finish_output(0);
		default:
			model_view_opts_free(&vo);
			return cli_bad_option(&cli_convert, c, argv);
		}
	}
	if (out_path && cli_is_stdout(out_path))
		out_path = NULL; /* standard output, as without -o */
	if (!fmt)
		snprintf(err, sizeof err, "no format given (--to FORMAT)");
	else if (optind == argc)
		snprintf(err, sizeof err, "no profile given");
	else if (argc - optind > 1)
		snprintf(err, sizeof err, "one profile at a time ('%.200s' is extra)",
			 argv[optind + 1]);
	else if (out_path && !*out_path)
		snprintf(err, sizeof err, "-o needs a file name");
	else if (!*argv[optind])
		snprintf(err, sizeof err, "an empty file name");
	else if (is_input(out_path, argv[optind]))
		snprintf(err, sizeof err, "-o %.200s would overwrite the profile it converts",
			 out_path);
	else if (fmt->whole && model_prune_any(&vo.prune))
		snprintf(err, sizeof err, "--min-percent, --min-calls and --min-time do not apply "
					  "to --to %s (the page folds its trees itself)", fmt->name);
	else if (check_accepts(fmt, given, err, sizeof err) == 0) {
		r = convert(fmt, argv[optind], out_path, &vo, &o);
		model_view_opts_free(&vo);
		return r;
	}
usage_msg:
	model_view_opts_free(&vo);
	return cli_usage_error(&cli_convert, "%s", err);
}
