/*
 * cmd_record.c - `ccprof record`: run a program under the runtime.
 *
 * The program runs with libccprof.so preloaded and its settings in
 * CCPROF_OPTIONS; it writes its own profile at exit.  record then says
 * where the profile went, or that none was written (the usual cause: the
 * program was not built with -finstrument-functions, so no hook ran), and
 * where the profiles of its children and of images before an exec went
 * (Note [The run's other profiles]), a line each, and
 * ends with the program's exit status, or by the same signal, so it can
 * stand in for the program in scripts, also when record got a signal
 * and passed it on (Note [Signals while the program runs]),
 * and it stops when the program stops (Note [When the program stops]).
 *
 * Note [Which profile]: record always passes output=<absolute path> (the
 * default is the runtime's own, <cwd>/<basename of PROGRAM>.ccprof), so it
 * knows which file to look at.  It was written by this run when it exists
 * afterwards and did not before, or is a different file (the runtime
 * writes a temporary file and renames it) or has a different mtime or
 * size.  Comparing before/after is immune to file system timestamp
 * granularity, which comparing against the start time is not.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/group_canary.h"
#include "common/handled_signals.h"
#include "common/option_values.h"
#include "common/procfs.h"
#include "common/tempname.h"
#include "common/utf8.h"
#include "format/format.h"
#include "model/model.h"
#include "model/sources.h"
#include "model/xalloc.h"

static int record_run(int argc, char **argv);

/* The runtimes record preloads by default: their sonames (the Makefile's
 * SOVERSION), which a distribution ships with the runtime (the bare .so
 * is for linking), and the name a program linked with -lccprof needs, so
 * that the loader takes the preloaded runtime for it. */
#define RUNTIME_NAME "libccprof.so." CCPROF_SOVERSION
#define ALLOC_RUNTIME_NAME "libccprof-alloc.so." CCPROF_SOVERSION

const struct cli_command cli_record = {
	.name = "record",
	.summary = "run a program and write its profile",
	.usage = "ccprof record [-o FILE] [--clock=cpu|cycles|wall] [--interval=MS] [--alloc] [--heap] "
		 "[--heap-interval=MS] [--dump-signal=SIG] [--max-contexts=N] [--no-names] [--] PROGRAM "
		 "[ARGS...]",
	.help = "Run PROGRAM with the ccprof runtime preloaded (LD_PRELOAD) and write its\n"
		"profile.  PROGRAM must be built with -finstrument-functions.  Settings\n"
		"are appended to CCPROF_OPTIONS, so they override the user's.  The exit\n"
		"status is PROGRAM's; if it was killed by a signal, ccprof ends by the\n"
		"same signal.  A signal sent to ccprof (SIGTERM, SIGHUP, SIGUSR1, the\n"
		"dump signal, any that ends a process; SIGINT and SIGQUIT unless from\n"
		"the terminal, which sends them to both) is passed on to PROGRAM,\n"
		"unless it was sent to the whole process group, which PROGRAM is in\n"
		"too; ccprof then ends as PROGRAM does.  SIGTSTP is passed on the\n"
		"same way; when PROGRAM stops (SIGSTOP, SIGTSTP), ccprof stops by the\n"
		"same signal, and continues PROGRAM when it is continued.  Right after the\n"
		"run, record adds each function's source file and line (from the debug\n"
		"information, -g) to the profile, and to those of forked children and\n"
		"of images before an exec, while the binaries are the build that ran,\n"
		"and names each of these profiles on stderr.\n\n"
		"Options:\n"
		"  -o, --output FILE  the profile (default: PROGRAM's base name + .ccprof,\n"
		"                     in the current directory); %p becomes the pid\n"
		"  --clock=CLOCK      cpu: sampled CPU time of each thread (default);\n"
		"                     wall: sampled wall-clock time (counts blocking);\n"
		"                     cycles: time-stamp counter read at every call\n"
		"                     (elapsed time: counts blocking too)\n"
		"  --interval=MS      sampling interval of cpu and wall, in milliseconds\n"
		"                     (default 1; above 0, fractions allowed, below 0.01\n"
		"                     taken as 0.01; at most 3600000, an hour)\n"
		"  -a, --alloc        also count the bytes and blocks each context allocates\n"
		"                     (malloc, calloc, realloc, the aligned allocators, C++'s\n"
		"                     new): preloads libccprof-alloc.so instead\n"
		"  --heap             --alloc, and also follow every block to its free: the\n"
		"                     live heap per context at the end, its exact peak and\n"
		"                     samples over time (ccprof report --heap)\n"
		"  --heap-interval=MS  between heap samples (default 10; implies --heap)\n"
		"  --dump-signal=SIG  write the profile whenever SIG arrives, and go on:\n"
		"                     SIGUSR1, SIGUSR2, SIGHUP, SIGQUIT, SIGPROF, SIGWINCH,\n"
		"                     SIGINT, SIGTERM, SIGALRM (SIG optional) or a number;\n"
		"                     not a crash signal, SIGKILL, SIGSTOP, 32 or 33\n"
		"  --max-contexts=N   contexts per thread, at least " CCP_STRINGIFY(CCP_MIN_MAX_CONTEXTS)
		" (default " CCP_STRINGIFY(CCP_DEFAULT_MAX_CONTEXTS) ");\n"
		"                     past it, a function's calls go to its overflow context\n"
		"  --no-names         write no function names in the profile, as gmon.out\n"
		"                     has none (names=0): ccprof reads them from the\n"
		"                     program's files later, while they are the build\n"
		"                     that ran; a smaller profile, not self-contained\n"
		"  -h, --help         show this help\n\n"
		"Environment:\n"
		"  CCPROF_LIBRARY     the runtime to preload (default:\n"
		"                     <ccprof's directory>/../lib/" RUNTIME_NAME ")\n"
		"  CCPROF_ALLOC_LIBRARY  the runtime --alloc preloads (default:\n"
		"                     " ALLOC_RUNTIME_NAME " beside the runtime above)\n"
		"  CCPROF_OPTIONS     runtime settings, key=value separated by ':', a\n"
		"                     backslash escaping the character after it\n",
	.run = record_run,
};

enum {
	OPT_CLOCK = 256,
	OPT_INTERVAL,
	OPT_HEAP,
	OPT_HEAP_INTERVAL,
	OPT_DUMP_SIGNAL,
	OPT_MAX_CONTEXTS,
	OPT_NO_NAMES
};

static const struct option record_options[] = {
	{"output", required_argument, NULL, 'o'},
	{"clock", required_argument, NULL, OPT_CLOCK},
	{"interval", required_argument, NULL, OPT_INTERVAL},
	{"alloc", no_argument, NULL, 'a'},
	{"heap", no_argument, NULL, OPT_HEAP},
	{"heap-interval", required_argument, NULL, OPT_HEAP_INTERVAL},
	{"dump-signal", required_argument, NULL, OPT_DUMP_SIGNAL},
	{"max-contexts", required_argument, NULL, OPT_MAX_CONTEXTS},
	{"no-names", no_argument, NULL, OPT_NO_NAMES},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct record_opts {
	const char *output;   /* as given, or NULL */
	const char *clock;    /* validated, or NULL */
	double interval;      /* milliseconds, validated, or 0 */
	int alloc;            /* --alloc: the runtime that counts allocations */
	int heap;             /* --heap: and follows blocks to their free */
	double heap_interval; /* milliseconds, validated, or 0 */
	const char *dump_signal;  /* as given, validated, or NULL */
	const char *max_contexts; /* as given, validated, or NULL */
	int no_names;         /* --no-names: names=0 */
	char **command;       /* PROGRAM ARGS..., NULL-terminated */
};

static int record_fail(const char *msg, const char *arg)
{
	cli_error("ccprof: %s%s", msg, arg ? arg : "");
	return CLI_EXIT_FAIL;
}

/* Milliseconds the runtime takes: at most an hour (RT_MAX_INTERVAL_NS in
 * src/runtime/options.c).  It warns about a longer one and samples every
 * 1 ms, so that is refused here, before the run. */
#define INTERVAL_MAX_MS (3600.0 * 1000)

/* Milliseconds as the other number options take them (cli_parse_decimal:
 * digits, a point and more digits), above 0 and at most an hour: not
 * strtod's blanks, sign, hexadecimal or exponents.  0 if not. */
static double parse_interval(const char *s)
{
	double v;
	if (cli_parse_decimal(s, &v) != 0 || !(v > 0) || v > INTERVAL_MAX_MS)
		return 0;
	/* The runtime takes less than 10 us as 10 us (src/runtime/options.c);
	 * so does record, which then passes the value on in whole ns. */
	return v < 0.01 ? 0.01 : v;
}

/* MS for the runtime in plain decimal, nanoseconds at most, with its
 * unit ("10ms", "0.5ms"): never an exponent ("1e1ms" once). */
static const char *format_ms(char *buf, size_t size, double ms)
{
	snprintf(buf, size, "%.6f", ms);
	char *p = buf + strlen(buf);
	while (p[-1] == '0')
		*--p = '\0';
	if (p[-1] == '.')
		*--p = '\0';
	snprintf(p, size - (size_t)(p - buf), "ms");
	return buf;
}

/* --dump-signal and --max-contexts take what the runtime takes
 * (common/option_values.c), so that a value accepted here is never one
 * the runtime warns about on the program's stderr and ignores. */
static int valid_dump_signal(const char *v)
{
	return ccp_parse_dump_signal(v) != 0;
}

static int valid_max_contexts(const char *v)
{
	uint64_t n;
	return ccp_parse_max_contexts(v, &n) == 0;
}

static int record_parse(int argc, char **argv, struct record_opts *o)
{
	int c;
	opterr = 0;
	/* '+': options end at PROGRAM, whose own options are its business. */
	while ((c = cli_getopt(argc, argv, "+:o:ah", record_options)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'a': o->alloc = 1; break;
		case OPT_HEAP: o->alloc = o->heap = 1; break;
		case OPT_HEAP_INTERVAL:
			if (!(o->heap_interval = parse_interval(optarg)))
				return cli_usage_error(&cli_record,
						       "--heap-interval needs milliseconds, a decimal "
						       "number above 0 and at most 3600000 (an hour), "
						       "not '%s'", optarg);
			o->alloc = o->heap = 1;
			break;
		case OPT_CLOCK:
			if (strcmp(optarg, "cpu") && strcmp(optarg, "cycles") && strcmp(optarg, "wall"))
				return cli_usage_error(&cli_record,
						       "unknown clock '%s' (cpu, cycles or wall)",
						       optarg);
			o->clock = optarg;
			break;
		case OPT_INTERVAL:
			if (!(o->interval = parse_interval(optarg)))
				return cli_usage_error(&cli_record,
						       "--interval needs milliseconds, a decimal "
						       "number above 0 and at most 3600000 (an hour), "
						       "not '%s'", optarg);
			break;
		case OPT_DUMP_SIGNAL:
			if (!valid_dump_signal(optarg))
				return cli_usage_error(&cli_record,
						       "--dump-signal needs a signal to write the profile "
						       "on and go on: SIGUSR1, SIGUSR2, SIGHUP, SIGQUIT, "
						       "SIGPROF, SIGWINCH, SIGINT, SIGTERM, SIGALRM (SIG "
						       "optional) or a number up to 64, not a crash signal, "
						       "SIGKILL, SIGSTOP, 32 or 33; not '%s'", optarg);
			o->dump_signal = optarg;
			break;
		case OPT_MAX_CONTEXTS:
			if (!valid_max_contexts(optarg))
				return cli_usage_error(&cli_record,
						       "--max-contexts needs a decimal number of at least "
						       "%d (digits only, below 2^64), not '%s'",
						       CCP_MIN_MAX_CONTEXTS, optarg);
			o->max_contexts = optarg;
			break;
		case OPT_NO_NAMES: o->no_names = 1; break;
		case 'h':
			cli_help(stdout, &cli_record);
			return -1;
		default:
			return cli_bad_option(&cli_record, c, argv);
		}
	}
	if (optind == argc)
		return cli_usage_error(&cli_record, "no program given");
	if (o->output && !o->output[0])
		return cli_usage_error(&cli_record, "empty output file name");
	/* "-" is standard output elsewhere (convert, merge); here that is
	 * the program's, so a file named "-" would surprise. */
	if (o->output && cli_is_stdout(o->output))
		return cli_usage_error(&cli_record, "-o -: the profile cannot go to standard "
						    "output (the program's); name a file (./- for one named -)");
	o->command = argv + optind;
	return 0;
}

/* This executable's path: /proc's, else the one exec was given, which
 * the kernel keeps (AT_EXECFN), resolved: without a /proc (a container
 * or a chroot that has none) record could not find the runtime
 * (helper-196).  NULL if neither. */
static char *own_executable(void)
{
	char *exe = xmalloc(PATH_MAX); /* not on the stack: Note [Record's own stack] */
	ssize_t n = readlink("/proc/self/exe", exe, PATH_MAX - 1);
	if (n > 0) {
		exe[n] = '\0';
		return exe;
	}
	free(exe);
	const char *given = (const char *)getauxval(AT_EXECFN);
	return given ? realpath(given, NULL) : NULL;
}

/* CCPROF_LIBRARY, else <dir of this executable>/../lib/RUNTIME_NAME. */
static char *find_runtime(void)
{
	const char *env = getenv("CCPROF_LIBRARY");
	if (env && env[0])
		return xstrdup(env);
	char *exe = own_executable();
	if (exe == NULL)
		return NULL;
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	size_t len = strlen(exe) + sizeof "/../lib";
	char *dir = xmalloc(len);
	snprintf(dir, len, "%s/../lib", exe);
	char *real = realpath(dir, NULL); /* tidy the "..", if it exists */
	if (real) {
		free(dir);
		dir = real;
	}
	len = strlen(dir) + sizeof "/" RUNTIME_NAME;
	char *path = xmalloc(len);
	snprintf(path, len, "%s/" RUNTIME_NAME, dir);
	free(dir);
	free(exe);
	return path;
}

/* With --alloc: CCPROF_ALLOC_LIBRARY, else libccprof-alloc.so in the
 * directory of the default runtime, so that a CCPROF_LIBRARY naming
 * another build's runtime finds that build's. */
static char *find_library(const struct record_opts *o)
{
	const char *env = getenv("CCPROF_ALLOC_LIBRARY");
	char *lib, *slash;
	if (!o->alloc)
		return find_runtime();
	if (env && env[0])
		return xstrdup(env);
	if (!(lib = find_runtime()))
		return NULL;
	slash = strrchr(lib, '/');
	size_t dir = slash ? (size_t)(slash - lib) + 1 : 0;
	char *path = xmalloc(dir + sizeof ALLOC_RUNTIME_NAME);
	memcpy(path, lib, dir);
	memcpy(path + dir, ALLOC_RUNTIME_NAME, sizeof ALLOC_RUNTIME_NAME);
	free(lib);
	return path;
}

/* path with its directory resolved: "/w/d/../p.ccprof" is "/w/p.ccprof",
 * as record names it and the runtime writes it.  The base name stays as
 * given (a symbolic link, a %p); a directory that does not resolve (not
 * there yet, or named with a %p) stays as given too. */
static char *resolve_directory(char *path)
{
	char *slash = strrchr(path, '/'), *dir, *out;
	if (slash == NULL || slash == path)
		return path;
	*slash = '\0';
	dir = realpath(path, NULL);
	*slash = '/';
	if (dir == NULL)
		return path;
	size_t len = strlen(dir) + strlen(slash) + 1;
	out = xmalloc(len);
	snprintf(out, len, "%s%s", strcmp(dir, "/") ? dir : "", slash);
	free(dir);
	free(path);
	return out;
}

/* The absolute profile path (Note [Which profile]). */
static char *output_path(const struct record_opts *o)
{
	const char *name = o->output;
	char *dflt = NULL;
	if (!name) {
		const char *base = model_basename(o->command[0]);
		size_t len = strlen(base) + sizeof ".ccprof";
		dflt = xmalloc(len);
		snprintf(dflt, len, "%s.ccprof", base);
		name = dflt;
	}
	char *path;
	if (name[0] == '/') {
		path = xstrdup(name);
	} else {
		char *cwd = getcwd(NULL, 0);
		if (!cwd) {
			free(dflt);
			return NULL;
		}
		size_t len = strlen(cwd) + strlen(name) + 2;
		path = xmalloc(len);
		snprintf(path, len, "%s/%s", cwd, name);
		free(cwd);
	}
	free(dflt);
	return resolve_directory(path);
}

/* name=value prepended (LD_PRELOAD) or appended (CCPROF_OPTIONS). */
static void env_join(const char *name, const char *ours, int first)
{
	const char *old = getenv(name);
	if (!old || !old[0]) {
		setenv(name, ours, 1);
		return;
	}
	size_t len = strlen(old) + strlen(ours) + 2;
	char *v = xmalloc(len);
	snprintf(v, len, "%s:%s", first ? ours : old, first ? old : ours);
	setenv(name, v, 1);
	free(v);
}

/* The longest CCPROF_OPTIONS the runtime reads (RT_OPTIONS_MAX - 1 in
 * src/runtime/runtime.h); it ignores a longer one whole, output= too, and
 * writes <program>.ccprof where record does not look. */
#define RUNTIME_OPTIONS_MAX 4159

/* s with a backslash before each ':', ',' and backslash, which
 * CCPROF_OPTIONS would take otherwise (Note [Escapes in CCPROF_OPTIONS]
 * in src/runtime/options.c); malloc'd. */
static char *options_escaped(const char *s)
{
	char *out = xmalloc(2 * strlen(s) + 1), *o = out;
	for (; *s; s++) {
		if (*s == ':' || *s == ',' || *s == '\\')
			*o++ = '\\';
		*o++ = *s;
	}
	*o = '\0';
	return out;
}

/* opts (malloc'd, or NULL for none yet) with key=value appended, the
 * value escaped; malloc'd, opts freed. */
static char *option_appended(char *opts, const char *key, const char *value)
{
	char *escaped = options_escaped(value);
	size_t len = (opts ? strlen(opts) + 1 : 0) + strlen(key) + strlen(escaped) + 2;
	char *out = xmalloc(len);
	snprintf(out, len, "%s%s%s=%s", opts ? opts : "", opts ? ":" : "", key, escaped);
	free(escaped);
	free(opts);
	return out;
}

/* Our settings appended to CCPROF_OPTIONS, with the run's start (Note
 * [One OUT per run] in src/runtime/dump.c); 1 after a message if the
 * runtime would ignore the result. */
static int set_options(const struct record_opts *o, const char *output, uint64_t start_ns)
{
	char ms[48], start[24];
	char *opts = option_appended(NULL, "output", output);
	snprintf(start, sizeof start, "%llu", (unsigned long long)start_ns);
	opts = option_appended(opts, "run_start", start);
	if (o->clock)
		opts = option_appended(opts, "clock", o->clock);
	if (o->interval)
		opts = option_appended(opts, "interval", format_ms(ms, sizeof ms, o->interval));
	if (o->heap)
		opts = option_appended(opts, "heap", "1");
	if (o->heap_interval)
		opts = option_appended(opts, "heap_interval",
				       format_ms(ms, sizeof ms, o->heap_interval));
	if (o->dump_signal)
		opts = option_appended(opts, "dump_signal", o->dump_signal);
	if (o->max_contexts)
		opts = option_appended(opts, "max_contexts", o->max_contexts);
	if (o->no_names)
		opts = option_appended(opts, "names", "0");
	const char *old = getenv("CCPROF_OPTIONS");
	size_t total = (old && old[0] ? strlen(old) + 1 : 0) + strlen(opts);
	int rc = 0;
	if (total > RUNTIME_OPTIONS_MAX) {
		cli_error("ccprof: CCPROF_OPTIONS with record's settings would be %zu bytes; "
			  "the runtime reads at most %d",
			total, RUNTIME_OPTIONS_MAX);
		rc = CLI_EXIT_FAIL;
	} else {
		env_join("CCPROF_OPTIONS", opts, 0);
	}
	free(opts);
	return rc;
}

struct run_result {
	pid_t pid;
	uint64_t start_ns; /* CLOCK_REALTIME before the fork: the run_start= passed */
	int exec_errno; /* exec failed with this, or 0 */
	int status;     /* from waitpid */
	int passed;     /* an ending signal record passed on to the program, or 0 */
	int unhandled;  /* one it passed on while the program had no handler for it */
};

static uint64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Note [Signals while the program runs]: a signal sent to record alone
 * (kill PID, a supervisor, a closed terminal's hang-up to the session
 * leader, a --dump-signal meant for the program) must reach the program:
 * record dying by it left the program running, orphaned and unreported,
 * and a dump signal never reached it.  So record catches every signal
 * whose default action ends a process (and the dump signal, whatever
 * its default), passes each on to the program, goes on waiting for it,
 * reports as usual and ends as the program did: the program decides
 * what a SIGTERM means (a clean exit, perhaps), and record stands in for
 * it.  Only if the program never ran (exec failed) does record die by
 * the signal itself.
 *
 * SIGINT, SIGQUIT and SIGWINCH from the terminal go to the whole
 * foreground process group, so the program gets them too: record lets
 * those pass (si_code SI_KERNEL), as system() ignores the first two, and
 * passes on only those sent to it.  Any signal sent to the whole group
 * reached the program as well, and record's canary tells record so
 * (Note [The group's canary] in group_canary.c): passed on too, it came
 * twice, and the second cut short a handler that cleans up.  A second
 * signal that does come (two sent close together) waits for the
 * runtime's write, if its handler is writing (write_once in
 * src/runtime/signals.c).  Those that record's own doings raise too (a
 * write to a closed pipe, a file-size or CPU limit, abort, a fault, a
 * seccomp filter, a breakpoint) are passed on only when another process
 * sent them (si_code SI_USER, SI_QUEUE or SI_TKILL, si_pid not record's);
 * record's own act as they did before record caught them: `kill -PIPE`
 * and the rest killed record and left the program running (helper-132).
 * SIGTSTP too (Note [A stop sent to record]).  Left as they were:
 * SIGCHLD, the other job-control signals (Note [When the program
 * stops]), and those whose default is to be ignored.  A signal ignored
 * when record starts (nohup; SIGINT and SIGQUIT in a job a
 * non-interactive shell starts in the background) is
 * caught and passed on all the same, and the program starts with it
 * ignored, as it would bare: a program that ignores it still does, and
 * one that sets a handler anyway (Lua, for SIGINT) gets it, as a kill of
 * its own pid would give it.  Before, record kept it ignored and a
 * `kill -INT` of a backgrounded record never reached such a program,
 * which ran on (helper-100).  record never dies by a signal it passed
 * on: one ignored would not have ended record either.
 *
 * They are blocked across the fork, so that none is handled before the
 * parent knows the program's pid, nor by record's handler in the child,
 * which puts back the dispositions and the mask before exec.  Until it
 * has been reaped the program's pid cannot name another process, so the
 * wait leaves it a zombie while the handler may still use its pid.
 */
#define MAX_RUN_SIGNALS 64
#define MAX_SIGNAL 64 /* SIGRTMAX on Linux */

/* Those whose default ends a process and that nothing of record's own
 * raises; the real-time signals (past glibc's own two) are added. */
static const int ending_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM,
	SIGPROF, SIGIO, SIGPWR, SIGSTKFLT,
};

/* Those whose default ends a process and that record's own doings may
 * raise: passed on only when another process sent them. */
static const int raised_too_signals[] = {
	SIGPIPE, SIGXCPU, SIGXFSZ, SIGABRT, SIGSYS, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGILL,
};

static int raised_too(int sig)
{
	for (size_t i = 0; i < sizeof raised_too_signals / sizeof *raised_too_signals; i++)
		if (raised_too_signals[i] == sig)
			return 1;
	return 0;
}

static int sent_by_another(const siginfo_t *info)
{
	return info != NULL &&
	       (info->si_code == SI_USER || info->si_code == SI_QUEUE || info->si_code == SI_TKILL) &&
	       info->si_pid != getpid();
}

/* Those the terminal sends the whole foreground group. */
static int from_terminal_too(int sig)
{
	return sig == SIGINT || sig == SIGQUIT || sig == SIGWINCH || sig == SIGTSTP;
}

struct run_signals_saved {
	int sig[MAX_RUN_SIGNALS];
	struct sigaction old[MAX_RUN_SIGNALS];
	size_t n;
	sigset_t mask;
};

static volatile sig_atomic_t pass_to;      /* the program's pid while it runs, else 0 */
static volatile sig_atomic_t passed_signal; /* the first ending signal passed on, or 0 */
/* The first signal passed on while the program had no handler for it:
 * Note [Passed on before a handler]. */
static volatile sig_atomic_t passed_unhandled;
static volatile sig_atomic_t ignored_at_start[MAX_SIGNAL + 1]; /* by signal number */
static struct group_canary canary; /* set while signals are blocked, before pass_to */

/* A signal of record's own making acts as it would have: ignored if it
 * was at the start and may be (SIGPIPE, SIGXCPU, SIGXFSZ), else by its
 * default, which ends record.  A fault, a breakpoint or a filter's
 * SIGSYS is never ignored: the kernel puts the default back for one that
 * is, and record, returning to the faulting instruction, spun at it for
 * the rest of the run (helper-133). */
static void as_without_record(int sig)
{
	struct sigaction dfl;
	sigset_t set;
	if (ignored_at_start[sig] && (sig == SIGPIPE || sig == SIGXCPU || sig == SIGXFSZ))
		return;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

/*
 * Note [Passed on before a handler]: a signal record passes on in the
 * program's first moments may come before the runtime has installed its
 * handler (a library's constructor that runs before the runtime's, or
 * only a loaded machine: helper-181, sed under record, SIGTERM 0.5 s
 * after the start), and end the program with no profile.  record then
 * blamed "a handler of the program's own".  So as it passes a signal on
 * it reads whether the program catches it (SigCgt in /proc/PID/status:
 * open and read are async-signal-safe), and say_why_none tells that
 * case apart.  The signal is passed on at once all the same: holding it
 * back until a handler appears would wait for ever on a program that
 * never has one.
 */

/* Whether process pid catches sig, as /proc says; 1 if it cannot tell
 * (Note [A /proc of another PID namespace] in src/common/procfs.h). */
static int catches(pid_t pid, int sig)
{
	char path[32] = "/proc/", digits[16], buf[2048];
	size_t n = 0, at = strlen(path);
	if (!ccp_proc_numbers_ours())
		return 1;
	for (unsigned long v = (unsigned long)pid; n == 0 || v; v /= 10)
		digits[n++] = (char)('0' + v % 10);
	while (n)
		path[at++] = digits[--n];
	memcpy(path + at, "/status", sizeof "/status");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	ssize_t got = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (got <= 0)
		return 1;
	buf[got] = '\0';
	const char *line = strstr(buf, "\nSigCgt:\t");
	if (line == NULL || sig < 1 || sig > 64)
		return 1;
	line += sizeof "\nSigCgt:\t" - 1;
	/* 16 hex digits, signal 1 the lowest bit of the last */
	const char *digit = line + 15 - (sig - 1) / 4;
	int v = *digit >= '0' && *digit <= '9' ? *digit - '0'
		: *digit >= 'a' && *digit <= 'f' ? *digit - 'a' + 10 : -1;
	return v < 0 || (v >> ((sig - 1) % 4) & 1);
}

/*
 * Note [A program in a group of its own]: a job-control shell (bash -i)
 * moves itself into a process group of its own and takes the terminal.
 * Started by a job-control shell, record leads the group the shell made
 * for the job, where bare the program would, and the program's move,
 * which bare changes nothing, leaves record alone in it with its canary:
 * a signal sent to that group (kill %1, kill -- -PGID, the outer shell's
 * SIGHUP to its jobs) reached record and the canary, not the program,
 * and record, told by the canary that the group had it, passed nothing
 * on: the program ran on (helper-192).  So a group's signal is passed on
 * too when record leads its group, the program left it, and stayed in
 * record's session.  Not when record does not lead its group (its
 * parent's, as under timeout(1), which signals record, then its group:
 * passed on, the program had it twice; helper-195), nor when the
 * program left the session (setsid: it detached on purpose).  getpgid,
 * getsid and getpgrp are system calls, safe in a handler.
 */
static int left_records_job(pid_t pid)
{
	pid_t g = getpgid(pid), sid = getsid(pid);
	/* Session 0 is a session too: in a PID namespace whose session
	 * leader lies outside it (a CI runner's container) getsid says 0,
	 * and the check sid > 0 passed nothing on there (session 58's CI). */
	return getpgrp() == getpid() && g > 0 && g != getpgrp() && sid >= 0 && sid == getsid(0);
}

/* sig to the program, unless the group it was sent to (group_had) had
 * the program in it too: not if the program left record's group (Note
 * [A program in a group of its own]); then it goes to the group the
 * program leads, as the job's group it would have led bare, where its
 * children had it too (helper-195). */
static void pass_to_program(pid_t pid, int sig, int group_had)
{
	if (group_had && !left_records_job(pid))
		return;
	if (!passed_unhandled && sig != SIGTSTP && !catches(pid, sig))
		passed_unhandled = sig; /* Note [Passed on before a handler] */
	if (group_had && getpgid(pid) == pid)
		kill(-pid, sig);
	else
		kill(pid, sig);
}

static void pass_on(int sig, siginfo_t *info, void *uctx)
{
	int saved = errno;
	(void)uctx;
	if (from_terminal_too(sig) && info && info->si_code == SI_KERNEL) {
		/* The terminal's, to its foreground group, record's: the
		 * program had it too unless it left.  So did the canary: its
		 * copy is taken, or the next one sent to record alone was
		 * taken for the group's and dropped (helper-195). */
		(void)group_canary_had(&canary, sig);
		if (pass_to > 0)
			pass_to_program((pid_t)pass_to, sig, 1);
		errno = saved;
		return;
	}
	if (raised_too(sig) && !sent_by_another(info)) {
		as_without_record(sig);
		errno = saved;
		return;
	}
	if (!passed_signal && sig != SIGWINCH && sig != SIGURG && sig != SIGTSTP &&
	    !ignored_at_start[sig])
		passed_signal = sig; /* one that would have ended record */
	if (pass_to > 0)
		pass_to_program((pid_t)pass_to, sig, group_canary_had(&canary, sig));
	errno = saved;
}

/* The signals record passes on: ending_signals, raised_too_signals,
 * SIGTSTP (Note [A stop sent to record]), the real-time ones and the dump
 * signal (0 for none). */
static void run_signal_set(int dump_signal, struct run_signals_saved *s)
{
	s->n = 0;
	for (size_t i = 0; i < sizeof ending_signals / sizeof *ending_signals; i++)
		s->sig[s->n++] = ending_signals[i];
	for (size_t i = 0; i < sizeof raised_too_signals / sizeof *raised_too_signals; i++)
		s->sig[s->n++] = raised_too_signals[i];
	s->sig[s->n++] = SIGTSTP;
	for (int sig = SIGRTMIN; sig <= SIGRTMAX && sig <= MAX_SIGNAL && s->n < MAX_RUN_SIGNALS; sig++)
		s->sig[s->n++] = sig;
	int listed = 0;
	for (size_t i = 0; i < s->n; i++)
		listed |= s->sig[i] == dump_signal;
	if (dump_signal > 0 && !listed && s->n < MAX_RUN_SIGNALS && dump_signal != SIGCHLD &&
	    dump_signal != SIGCONT && dump_signal != SIGTSTP && dump_signal != SIGTTIN &&
	    dump_signal != SIGTTOU)
		s->sig[s->n++] = dump_signal;
}

/* Block the signals record passes on, then set the run's dispositions;
 * what they were goes to s. */
static void take_signals(int dump_signal, struct run_signals_saved *s)
{
	struct sigaction pass;
	sigset_t block;
	run_signal_set(dump_signal, s);
	sigemptyset(&block);
	for (size_t i = 0; i < s->n; i++)
		sigaddset(&block, s->sig[i]);
	sigprocmask(SIG_BLOCK, &block, &s->mask);
	memset(&pass, 0, sizeof pass);
	pass.sa_sigaction = pass_on;
	pass.sa_mask = block; /* one handler at a time: the first signal is kept */
	pass.sa_flags = SA_RESTART | SA_SIGINFO;
	for (size_t i = 0; i < s->n; i++) {
		sigaction(s->sig[i], NULL, &s->old[i]);
		ignored_at_start[s->sig[i]] =
			!(s->old[i].sa_flags & SA_SIGINFO) && s->old[i].sa_handler == SIG_IGN;
		sigaction(s->sig[i], &pass, NULL);
	}
	passed_signal = 0;
	passed_unhandled = 0;
}

static void restore_signals(const struct run_signals_saved *s)
{
	for (size_t i = 0; i < s->n; i++)
		sigaction(s->sig[i], &s->old[i], NULL);
}

/* The dump signal the run will have, for record to pass on (Note
 * [Signals while the program runs]): --dump-signal's, else the last
 * dump_signal= of the user's CCPROF_OPTIONS, which record's settings are
 * appended to (pairs separated by ':' or ','); 0 for none. */
static int run_dump_signal(const struct record_opts *o)
{
	const char *env = getenv("CCPROF_OPTIONS"), *last = NULL;
	static const char key[] = "dump_signal=";
	char value[32];
	if (o->dump_signal)
		return ccp_parse_dump_signal(o->dump_signal);
	for (const char *p = env; p && (p = strstr(p, key)) != NULL; p++)
		if (p == env || p[-1] == ':' || p[-1] == ',')
			last = p + sizeof key - 1;
	if (!last)
		return 0;
	size_t n = strcspn(last, ":,");
	if (n >= sizeof value)
		return 0;
	memcpy(value, last, n);
	value[n] = '\0';
	return ccp_parse_dump_signal(value);
}

/* The child: record's signals put back, then the program. */
static void exec_program(char **command, int err_fd, const struct run_signals_saved *s)
{
	restore_signals(s);
	sigprocmask(SIG_SETMASK, &s->mask, NULL);
	execvp(command[0], command);
	int e = errno;
	ssize_t unused = write(err_fd, &e, sizeof e);
	(void)unused;
	_exit(127);
}

/*
 * Note [A stop sent to record]: `kill -TSTP` of record stopped record
 * alone, by its default action, and the program ran on, where bare it
 * stopped (or, catching it, did what it does: an editor puts the
 * terminal back first); the shell said "Stopped" of a job still running.
 * And the terminal's Ctrl-Z did the same to a program that left
 * record's group without taking the terminal.  So record catches
 * SIGTSTP and passes it on as the others (the terminal's and a group's
 * only where the program left record's group), and stops when the
 * program does (Note [When the program stops]), not before: a program
 * that ignores it, or catches it and runs on, leaves record running
 * too, as bare it would be.
 *
 * Note [When the program stops]: a program that stops (raise(SIGSTOP), a
 * SIGTSTP sent to it alone, SIGTTIN from a read in the background) would
 * leave record waiting, and the shell waiting for record, never seeing
 * "Stopped".  So record stops itself by the same signal, standing in for
 * the program as it does at the end, and when it is continued (fg, bg,
 * kill -CONT) it continues the program.  A SIGSTOP to the whole group
 * stops record with it: the program's stop is then taken (waited for
 * without WNOWAIT) only if the program is still stopped when record runs
 * again, which it is not after the shell's SIGCONT to the group, so
 * record does not stop a second time.  (Ctrl-Z's SIGTSTP no longer
 * stops record by itself: Note [A stop sent to record].)
 */
/*
 * Note [The terminal of a program that stopped]: a program in a process
 * group of its own (Note [A program in a group of its own]) that held
 * the terminal's foreground when it stopped (bash -i's `suspend`) had it
 * no more when `fg` continued record: the outer shell gives the terminal
 * to its job's group, record's, and the program's next read of it failed
 * (bash read EIO and exited: helper-192).  So record, continued with the
 * terminal in its own group's hands, gives it back to the program's
 * group, as the shell gave it to the program's bare.  Not after `bg`:
 * the terminal is the shell's then.
 */
static int program_holds_terminal(pid_t pid, int *tty, pid_t *group)
{
	*tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	*group = getpgid(pid);
	return *tty >= 0 && *group > 0 && *group != getpgrp() && tcgetpgrp(*tty) == *group;
}

static void terminal_back_to(int tty, pid_t group)
{
	/* Not when record's group lies outside our PID namespace: getpgrp
	 * and tcgetpgrp say 0 for any such group (helper-196). */
	pid_t ours = getpgrp();
	if (ours > 0 && tcgetpgrp(tty) == ours)
		tcsetpgrp(tty, group); /* record is in the foreground: no SIGTTOU */
}

/* Whether the canary has sig pending, which it then takes; asked with
 * signals blocked, for pass_on asks it too. */
static int canary_had_quietly(int sig)
{
	sigset_t all, was;
	int had;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &was);
	had = group_canary_had(&canary, sig);
	sigprocmask(SIG_SETMASK, &was, NULL);
	return had;
}

/* Whether the program, whose stop the wait took, has been continued
 * since, or has stopped again or ended: each is for the wait to see
 * (WNOWAIT), and none wants a SIGCONT of record's. */
static int program_moved_on(pid_t pid)
{
	siginfo_t info;

	memset(&info, 0, sizeof info);
	return waitid(P_PID, (id_t)pid, &info, WCONTINUED | WSTOPPED | WEXITED | WNOHANG | WNOWAIT) ==
		       0 &&
	       info.si_pid == pid;
}

/*
 * The SIGCONT that continued record, to the program.  To the group the
 * program leads if the SIGCONT was the group's (fg, bg) and the program
 * left record's group (Note [A program in a group of its own]), where
 * bare its children stopped with it had it too.  Else to the program,
 * if it is still stopped: one that stayed in record's group had the
 * group's SIGCONT already (the kernel signals the group's youngest
 * first), and a second one cut short its handler's work, or undid a stop
 * it made right after (a program that stops again at once, or a Ctrl-Z
 * typed just after fg: lost; helper-198).  The canary's copy of an older
 * SIGCONT was taken before record stopped (stop_as).
 */
static void continue_program(pid_t pid)
{
	int group_had = canary_had_quietly(SIGCONT);

	if (group_had && left_records_job(pid) && getpgid(pid) == pid)
		kill(-pid, SIGCONT);
	else if (!program_moved_on(pid))
		kill(pid, SIGCONT);
}

static void stop_as(pid_t pid, int sig)
{
	struct sigaction dfl, old;
	sigset_t set, mask;
	int own = sig != SIGSTOP; /* the others may be caught, ignored or blocked */
	int tty;
	pid_t group;
	int hand_back = program_holds_terminal(pid, &tty, &group);

	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigemptyset(&set);
	sigaddset(&set, sig);
	if (own)
		sigaction(sig, &dfl, &old);
	/* A group's SIGCONT from before this stop (kill -CONT %1 while the
	 * job ran) is not the one that continues it (helper-198). */
	(void)canary_had_quietly(SIGCONT);
	sigprocmask(SIG_UNBLOCK, &set, &mask);
	fflush(NULL);
	kill(getpid(), sig); /* delivered before kill returns: stopped here */
	sigprocmask(SIG_SETMASK, &mask, NULL);
	if (own)
		sigaction(sig, &old, NULL);
	if (hand_back)
		terminal_back_to(tty, group);
	if (tty >= 0)
		close(tty);
	continue_program(pid);
}

/*
 * Note [record as a namespace's init]: `docker run IMAGE ccprof record
 * PROG`, `unshare --pid --fork ccprof record PROG` make record PID 1 of
 * the namespace, where bare the program was (helper-196).  Every orphan
 * of the namespace is then record's child, and record waited for the
 * program alone: they stayed zombies (20 of 20 a shell's short
 * background jobs left), where a shell as init reaps them.  So record,
 * as init, wakes at each child's end (a SIGCHLD handler, without
 * SA_RESTART) and reaps those that are neither the program nor its
 * canary.  And init cannot stop itself (the kernel ignores its own stop
 * signals): stop_as stopped nothing, then continued the program at once,
 * undoing a SIGSTOP sent to it from outside.  As init, record takes the
 * program's stop and waits on.
 */
static void child_ended(int sig)
{
	(void)sig; /* waitid returns EINTR: orphans are reaped there */
}

static void reap_orphans(pid_t program)
{
	siginfo_t info;
	for (;;) {
		memset(&info, 0, sizeof info);
		if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0 ||
		    info.si_pid == program || info.si_pid == canary.pid)
			return;
		while (waitpid(info.si_pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
}

/* The program's status, once it has ended (Note [Signals while the
 * program runs]: waited for, then no longer signalled, then reaped),
 * stopping with it meanwhile (Note [When the program stops]). */
static void wait_program(pid_t pid, int *status)
{
	siginfo_t info;
	struct sigaction wake, old_chld;
	int init = getpid() == 1; /* Note [record as a namespace's init] */
	if (init) {
		memset(&wake, 0, sizeof wake);
		wake.sa_handler = child_ended;
		sigemptyset(&wake.sa_mask);
		sigaction(SIGCHLD, &wake, &old_chld);
	}
	for (;;) {
		if (init)
			reap_orphans(pid);
		memset(&info, 0, sizeof info);
		if (waitid(P_PID, (id_t)pid, &info, WEXITED | WSTOPPED | WNOWAIT) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (info.si_code != CLD_STOPPED)
			break;
		memset(&info, 0, sizeof info);
		if (waitid(P_PID, (id_t)pid, &info, WSTOPPED | WNOHANG) == 0 && info.si_pid == pid &&
		    info.si_code == CLD_STOPPED && !init)
			stop_as(pid, info.si_status);
	}
	pass_to = 0;
	group_canary_stop(&canary);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	if (init) {
		reap_orphans(0);
		sigaction(SIGCHLD, &old_chld, NULL);
	}
}

/* exec's errno, from the child's close-on-exec pipe (0: the exec was
 * made, or the child ended first), stopping with the child if it stops
 * first: a Ctrl-Z, or a SIGTSTP record passed on, before its exec (a long
 * PATH) stopped it holding the pipe, and record waited on it for ever
 * (helper-198). */
static int exec_errno_from(int fd, pid_t pid)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	siginfo_t info;
	int e = 0;

	for (;;) {
		int ready = poll(&p, 1, 50);
		if (ready > 0 || (ready < 0 && errno != EINTR)) {
			ssize_t n;
			do
				n = read(fd, &e, sizeof e);
			while (n < 0 && errno == EINTR);
			return n == (ssize_t)sizeof e ? e : 0;
		}
		memset(&info, 0, sizeof info);
		if (waitid(P_PID, (id_t)pid, &info, WSTOPPED | WNOHANG) == 0 && info.si_pid == pid &&
		    info.si_code == CLD_STOPPED && getpid() != 1)
			stop_as(pid, info.si_status); /* as init: waits, Note [record as a namespace's init] */
	}
}

/*
 * fork + execvp, with record's signals as Note [Signals while the program
 * runs] says.  A close-on-exec pipe carries exec's errno back, so "not
 * found" is reported by the parent, once.
 */
static int run_program(char **command, int dump_signal, uint64_t start_ns, struct run_result *r)
{
	/* Static: 10 KB of saved actions, which on the stack made record
	 * die by SIGSEGV under a 16 KB stack limit that the program itself
	 * runs under (Note [Record's own stack]); record runs one program. */
	static struct run_signals_saved saved;
	int pfd[2];

	memset(r, 0, sizeof *r);
	if (pipe2(pfd, O_CLOEXEC) != 0)
		return -1;
	take_signals(dump_signal, &saved);
	fflush(NULL);
	/* Before the program: started after it, under load the canary could
	 * come after the program was up and a group's signal had reached it,
	 * which record then passed on a second time (robust.py
	 * record_group_signal_once, once in a clang make check). */
	group_canary_start(&canary); /* younger than record: Note [The group's canary] */
	r->start_ns = start_ns;
	pid_t pid = r->pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		exec_program(command, pfd[1], &saved);
	}
	int fork_errno = errno;
	close(pfd[1]);
	if (pid > 0) {
		pass_to = pid;
		sigprocmask(SIG_SETMASK, &saved.mask, NULL);
		r->exec_errno = exec_errno_from(pfd[0], pid);
		wait_program(pid, &r->status);
	} else {
		group_canary_stop(&canary);
	}
	close(pfd[0]);
	restore_signals(&saved);
	sigprocmask(SIG_SETMASK, &saved.mask, NULL);
	r->passed = passed_signal;
	r->unhandled = passed_unhandled;
	errno = fork_errno;
	return pid > 0 ? 0 : -1;
}

/* The path with the runtime's %p replaced by the program's pid (the
 * program runs in the process we forked). */
static char *expand_pid(const char *path, pid_t pid)
{
	size_t len = strlen(path) * 8 + 1; /* "%p" (2 bytes) -> at most 10 digits */
	char *out = xmalloc(len), *o = out;
	for (const char *p = path; *p; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			o += snprintf(o, len - (size_t)(o - out), "%ld", (long)pid);
			p++;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return out;
}

/* The same file, unchanged (by size and mtime: not by reading it). */
static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Note [Which profile]. */
static int profile_written(const char *path, const struct stat *before, int existed)
{
	struct stat after;
	if (stat(path, &after) != 0 || !S_ISREG(after.st_mode))
		return 0; /* the runtime writes a regular file (or nothing) */
	if (!existed || !S_ISREG(before->st_mode))
		return 1;
	return !same_file(before, &after);
}

/* End by sig's default action. */
static int die_by(int sig)
{
	struct rlimit no_core = {0, 0};
	sigset_t set;
	fflush(NULL);
	setrlimit(RLIMIT_CORE, &no_core); /* the program's core is enough */
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	kill(getpid(), sig);
	return 128 + sig; /* the signal did not end us (e.g. SIGSTOP-like) */
}

/* End the way the program ended: its exit code, or its signal, also
 * when the signal came through record (Note [Signals while the program
 * runs]). */
static int pass_status(const struct run_result *r)
{
	if (WIFEXITED(r->status))
		return WEXITSTATUS(r->status);
	if (!WIFSIGNALED(r->status))
		return CLI_EXIT_FAIL;
	return die_by(WTERMSIG(r->status));
}

/* Whether path's file name (from byte dir on) is longer than its
 * directory allows: the temporary's name below is cut to fit, the name it
 * is renamed to is not. */
static int name_too_long(const char *path, int dir)
{
	char *d = xstrdup(dir > 0 ? path : ".");
	if (dir > 0)
		d[dir] = '\0';
	long max = pathconf(d, _PC_NAME_MAX);
	free(d);
	return strlen(path + dir) > (size_t)(max > 0 ? max : NAME_MAX);
}

/* Whether the runtime can make its temporary file beside path (put_file
 * in src/runtime/dump.c, named by ccp_temp_name, renamed to PATH): one of
 * that name made and removed here, hidden too, so that a record killed in
 * between leaves nothing a glob of the profiles takes.  access() on the
 * directory is not enough: it says yes to root in /proc, and knows
 * nothing of a name too long.  0, or -1 with errno. */
static int can_create_beside(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (name_too_long(path, slash ? (int)(slash - path) + 1 : 0)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	size_t len = strlen(path) + 40;
	char *tmp = xmalloc(len);
	ccp_temp_name(tmp, len, path, (int)getpid(), 0);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int e = errno;
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	free(tmp);
	errno = e;
	return fd >= 0 || e == EEXIST ? 0 : -1;
}

/* Fail before the run, not after it, when the profile cannot be written
 * where asked: the path is a directory, or the runtime could not create
 * it (the directory is missing or not writable, the name too long), or
 * it is a device or FIFO we may not write.  A %p in the directory part is
 * left to the runtime; in the file name it becomes our pid here. */
static int output_writable(const char *out)
{
	const char *slash = strrchr(out, '/'), *pid = strstr(out, "%p"); /* out is absolute */
	char *path = expand_pid(out, getpid());
	struct stat st;
	int exists = stat(path, &st) == 0, rc = 0;
	if (exists && S_ISDIR(st.st_mode)) {
		cli_error("ccprof: %s: %s", out, strerror(EISDIR));
		rc = CLI_EXIT_FAIL;
	} else if (pid && pid < slash) {
		/* the directory is named after the pid: the runtime's to make */
	} else if (exists && !S_ISREG(st.st_mode) ? access(path, W_OK) != 0
						  : can_create_beside(path) != 0) {
		cli_error("ccprof: cannot write %s: %s", out, strerror(errno));
		rc = CLI_EXIT_FAIL;
	}
	free(path);
	return rc;
}

/* The runtime library, checked for the characters LD_PRELOAD cannot
 * carry, and the absolute profile path; 0, or 1 after a message. */
static int record_paths(const struct record_opts *o, char **libp, char **outp)
{
	int rc = 0;
	char *lib = find_library(o), *out = NULL;
	if (!lib || access(lib, R_OK) != 0)
		rc = record_fail("cannot find the runtime library ",
				 lib ? lib : "(set CCPROF_LIBRARY)");
	else if (!(out = output_path(o)))
		rc = record_fail("cannot get the current directory: ", strerror(errno));
	/* LD_PRELOAD separates paths by ':' or ' ', and has no escape; the
	 * output path is escaped in CCPROF_OPTIONS (set_options). */
	else if (strpbrk(lib, ": "))
		rc = record_fail("runtime library path must not contain ':' or ' ': ", lib);
	else
		rc = output_writable(out);
	if (rc != 0) {
		free(lib);
		free(out);
		return rc;
	}
	*libp = lib;
	*outp = out;
	return 0;
}

/* The file execvp runs for command: as given if it has a '/', else the
 * first executable of that name on PATH.  NULL if none (freed by caller). */
static char *find_program(const char *command)
{
	if (strchr(command, '/'))
		return xstrdup(command);
	const char *path = getenv("PATH");
	if (path == NULL || *path == '\0')
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char *f = xmalloc(n + strlen(command) + 3);
		snprintf(f, n + strlen(command) + 3, "%.*s/%s", (int)n, n ? p : ".", command);
		if (access(f, X_OK) == 0)
			return f;
		free(f);
		if (end == NULL)
			return NULL;
		p = end;
	}
}

/* Whether the profile at out (no %p: a child's pid) would replace the
 * program record runs or the runtime it preloads, as convert refuses an
 * OUT that is its input: by the file, whatever names it.  The check is
 * before the run, so nothing is lost. */
static int out_is_own_file(const char *out, const char *command, const char *lib)
{
	struct stat o, f;
	if (strstr(out, "%p") || stat(out, &o) != 0 || !S_ISREG(o.st_mode))
		return 0;
	char *program = find_program(command);
	const char *files[] = {program, lib}, *what[] = {"program it records", "runtime library"};
	int same = 0;
	for (size_t i = 0; i < 2 && !same; i++) {
		same = files[i] && stat(files[i], &f) == 0 && f.st_dev == o.st_dev &&
		       f.st_ino == o.st_ino;
		if (same)
			cli_error("ccprof record: -o %s would overwrite the %s", out, what[i]);
	}
	free(program);
	return same;
}

/* Whether file is an ELF executable without a program interpreter: a
 * static (or static-pie) executable, which LD_PRELOAD cannot reach. */
static int statically_linked(const char *file)
{
	FILE *f = fopen(file, "rb");
	if (f == NULL)
		return 0;
	Elf64_Ehdr eh;
	int is_static = 0;
	if (fread(&eh, sizeof eh, 1, f) == 1 && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr) &&
	    (eh.e_type == ET_EXEC || eh.e_type == ET_DYN)) {
		is_static = 1;
		for (unsigned i = 0; i < eh.e_phnum && is_static; i++) {
			Elf64_Phdr ph;
			if (fseek(f, (long)(eh.e_phoff + (Elf64_Off)i * sizeof ph), SEEK_SET) != 0 ||
			    fread(&ph, sizeof ph, 1, f) != 1)
				is_static = 0; /* unreadable: no claim */
			else if (ph.p_type == PT_INTERP)
				is_static = 0;
		}
	}
	fclose(f);
	return is_static;
}

/* The switch `key` as CCPROF_OPTIONS last sets it: '0', '1', or 0 if it
 * does not; read as the runtime reads it (ccp_option_next: later keys
 * win, a bad value changes nothing, a backslash escapes the character
 * after it, so that "handle_signals\=0" sets nothing: helper-194). */
static char options_switch(const char *opts, const char *key)
{
	char last = 0, *buf, *value;
	if (opts == NULL)
		return 0;
	buf = xmalloc(strlen(opts) + 1);
	while (*opts) {
		ccp_option_next(&opts, buf, &value);
		if (value != NULL && strcmp(buf, key) == 0 &&
		    (strcmp(value, "0") == 0 || strcmp(value, "1") == 0))
			last = value[0];
	}
	free(buf);
	return last;
}

/* Whether the ELF file names the enter hook in a symbol table (.dynsym
 * or .symtab): code built with -finstrument-functions calls it.  Reads
 * only the string tables of the symbol tables, each at most 256 MiB. */
static int names_hook(const char *file)
{
	static const char hook[] = "\0__cyg_profile_func_enter";
	FILE *f = fopen(file, "rb");
	Elf64_Ehdr eh;
	int found = 0;
	if (f == NULL)
		return 0;
	if (fread(&eh, sizeof eh, 1, f) == 1 && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_shentsize == sizeof(Elf64_Shdr)) {
		for (unsigned i = 0; i < eh.e_shnum && !found; i++) {
			Elf64_Shdr sh, str;
			char *buf;
			if (fseek(f, (long)(eh.e_shoff + (Elf64_Off)i * sizeof sh), SEEK_SET) != 0 ||
			    fread(&sh, sizeof sh, 1, f) != 1)
				break;
			if ((sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) ||
			    sh.sh_link >= eh.e_shnum ||
			    fseek(f, (long)(eh.e_shoff + (Elf64_Off)sh.sh_link * sizeof str), SEEK_SET) != 0 ||
			    fread(&str, sizeof str, 1, f) != 1 || str.sh_type != SHT_STRTAB ||
			    str.sh_size < sizeof hook || str.sh_size > (256u << 20) ||
			    fseek(f, (long)str.sh_offset, SEEK_SET) != 0)
				continue;
			buf = xmalloc(str.sh_size);
			if (fread(buf, str.sh_size, 1, f) == 1)
				found = memmem(buf, str.sh_size, hook, sizeof hook) != NULL; /* with its NUL */
			free(buf);
		}
	}
	fclose(f);
	return found;
}

/* "SIGPIPE", or "signal N". */
static void signal_text(int sig, char *buf, size_t len)
{
	const char *abbrev = NULL;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
	abbrev = sigabbrev_np(sig);
#endif
	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "signal %d", sig);
}

/* The signals the runtime writes a profile on (runtime/signals.c). */
static int runtime_handles(int sig)
{
	static const int handled[] = { CCP_CRASH_SIGNALS, CCP_TERM_SIGNALS };
	for (size_t i = 0; i < sizeof handled / sizeof *handled; i++)
		if (handled[i] == sig)
			return 1;
	return 0;
}

/* Why no profile came: the usual cause, or one we can see.  An
 * instrumented program that died by a signal had hooks that ran: the
 * signal ended it where the runtime could not write (docs/options.md,
 * "Signals"), and asking about -finstrument-functions would mislead.
 * One that exited without a profile ended past every libc function the
 * runtime takes over, with the exit_group system call itself, or from a
 * process made without fork's handlers ("How the run ends"), unless the
 * runtime declined or failed to write, which it says on the program's
 * stderr, out of record's sight (a seccomp filter, a full disk); a program
 * whose own file names no hook may still be instrumented in its
 * libraries, and so either cause is named. */
static void say_why_none(const char *command, int status, int unhandled)
{
	char *file = find_program(command);
	char sig[32];
	if (options_switch(getenv("CCPROF_OPTIONS"), "enabled") == '0') {
		cli_error("ccprof: no profile written (CCPROF_OPTIONS has enabled=0)");
	} else if (file && statically_linked(file)) {
		cli_error("ccprof: no profile written: %s is statically linked, so the "
			  "runtime cannot be preloaded (link libccprof.a into it)",
			command);
	} else if (WIFSIGNALED(status) && file && names_hook(file)) {
		int s = WTERMSIG(status);
		signal_text(s, sig, sizeof sig);
		if (s == SIGKILL)
			cli_error("ccprof: no profile written: %s was killed by SIGKILL", command);
		else if (runtime_handles(s) &&
			 options_switch(getenv("CCPROF_OPTIONS"), "handle_signals") == '0')
			cli_error("ccprof: no profile written: %s died by %s, and CCPROF_OPTIONS "
				  "has handle_signals=0: the runtime installed no handler for it",
				  command, sig);
		else if (s == unhandled && runtime_handles(s)) /* Note [Passed on before a handler] */
			cli_error("ccprof: no profile written: %s died by %s, which ccprof passed "
				  "on before the program had a handler for it (the runtime had "
				  "not started yet)",
				  command, sig);
		else if (s == SIGSEGV)
			cli_error("ccprof: no profile written: %s died by SIGSEGV without the "
				  "runtime's handler (a stack overflow where no handler can run: "
				  "on an alternate signal stack too small for the kernel's frame, or "
				  "with none, as under a seccomp filter; or a handler of the "
				  "program's own replaces it: docs/options.md, \"Signals\")",
				command);
		else if (s == SIGXFSZ) /* the handler writes nothing past the limit */
			cli_error("ccprof: no profile written: %s died by SIGXFSZ, past its file "
				  "size limit (ulimit -f), which the profile would have passed too "
				  "(docs/options.md, \"How the run ends\"), or without the "
				  "runtime's handler (a handler of the program's own replaces it: "
				  "\"Signals\")",
				command);
		else if (runtime_handles(s))
			cli_error("ccprof: no profile written: %s died by %s without the runtime's "
				  "handler (a handler of the program's own replaces it: docs/options.md, "
				  "\"Signals\")",
				command, sig);
		else
			cli_error("ccprof: no profile written: %s died by %s; the runtime writes "
				  "one at exit, on crashes and on the usual signals that end a program "
				  "(docs/options.md, \"Signals\")",
				command, sig);
	} else if (WIFEXITED(status) && file && names_hook(file)) {
		cli_error("ccprof: no profile written: %s calls the hooks of "
			  "-finstrument-functions; unless the runtime said why above, it "
			  "probably ended past exit and _exit: by "
			  "the exit_group system call, or by a call of _exit inside libc "
			  "(docs/options.md, \"How the run ends\"; ccprof_dump() before it "
			  "writes one)",
			command);
	} else if (WIFEXITED(status)) {
		cli_error("ccprof: no profile written (is %s built with "
			  "-finstrument-functions? or did it end by the exit_group system "
			  "call?)",
			command);
	} else {
		cli_error("ccprof: no profile written (is %s built with "
			  "-finstrument-functions?)",
			command);
	}
	free(file);
}

/*
 * Note [Lines at record time]: right after the run the binaries are there
 * and are the build that ran, which may not hold when the profile is read
 * later or elsewhere.  So record adds the source lines (model/sources.c)
 * to the profile now, and it keeps them; and to the other profiles the
 * run wrote beside it (Note [The run's other profiles]).  A file is
 * replaced as merge writes one (atomically, in its real directory, not
 * over a symlink, keeping its permissions and owner), and only if it is
 * still the file that was read: a process of the run that is still going
 * (a daemon it started) may write a profile of that name meanwhile,
 * which must not be replaced by the older one.  A profile it cannot read
 * or rewrite is left as the runtime wrote it, and so is one that started
 * before the run (since_ns), and one that holds more than this ccprof
 * reads (whole_file).
 */

/* Whether p, as read from a file of size bytes, is the whole of it.  The
 * encoding is canonical (docs/format.md), so a profile the runtime wrote
 * encodes to as many bytes again, unless it holds what this ccprof skips
 * when it reads (sections or STATS keys of a newer runtime, preloaded
 * with CCPROF_LIBRARY), which a rewrite would drop. */
static int whole_file(const struct ccp_profile *p, size_t size)
{
	unsigned char *buf;
	size_t len;
	if (ccp_format_encode(p, &buf, &len) != 0)
		return 0;
	free(buf);
	return len == size;
}

enum { MEASURED_ALLOC = 1, MEASURED_HEAP = 2 };

/* What add_sources read of a profile. */
struct profile_seen {
	int this_run;  /* read, and started at or after since_ns */
	int measured;  /* MEASURED_* */
	uint64_t pid;  /* of the process that wrote it */
	uint64_t start_ns;
	uint32_t nthreads;
	struct model_overflow overflow; /* what it lost to max_contexts */
	char *command; /* its command if not the program's (malloc'd), or NULL */
};

/*
 * Note [Whose profile]: a run of many processes (git gc: pack-objects,
 * index-pack, hooks) named each profile by pid alone, and finding which
 * was which took an `info` of each (helper-120).  So a profile whose
 * command is not the program's (an image a child exec'd, a program a
 * shell ran) is named with it, cut to COMMAND_SHOWN bytes; a forked
 * child's, whose command is its parent's, is not.
 */
#define COMMAND_SHOWN 60

/* argv joined by spaces, escaped for the terminal, cut with "..."; or
 * NULL if it is `program`'s (NULL-terminated). */
static char *other_command(const struct ccp_profile *p, char *const *program)
{
	uint32_t i = 0;
	while (i < p->argc && program[i] && strcmp(p->argv[i] ? p->argv[i] : "", program[i]) == 0)
		i++;
	if (i == p->argc && program[i] == NULL)
		return NULL;
	size_t len = 1;
	for (i = 0; i < p->argc; i++)
		len += strlen(p->argv[i] ? p->argv[i] : "") + 1;
	char *joined = xmalloc(len + 3), *o = joined;
	for (i = 0; i < p->argc; i++)
		o += sprintf(o, "%s%s", i ? " " : "", p->argv[i] ? p->argv[i] : "");
	size_t n = (size_t)(o - joined);
	if (n > COMMAND_SHOWN) { /* cut between characters, before the escaping */
		size_t at = 0;
		while (at < n) {
			size_t k = utf8_len((const unsigned char *)joined + at, n - at);
			k = k ? k : 1; /* no character: cli_shown makes the byte one '?' */
			if (at + k > COMMAND_SHOWN - 3)
				break;
			at += k;
		}
		strcpy(joined + at, "...");
	}
	char *shown = cli_shown(joined);
	free(joined);
	return shown;
}

/* The source lines added to the profile at path if it is this run's
 * (Note [Lines at record time]); what was read of it, all 0 if it could
 * not be read. */
/*
 * Note [Record's own stack]: record runs under the stack limit given for
 * the program (`ulimit -s`, which sets the hard limit too, so record
 * cannot raise it), and libdw's line tables need more than a small
 * program does: under 160-176 KB record died by SIGSEGV in
 * dwarf_getsrclines after the program had run and written its profile
 * (helper-136, xz and jq).  So where the limit is under ROOMY_STACK the
 * lines are read on a thread of that stack size, which the limit does
 * not bound (an mmap).  Record's own start needs about 16 KB; its
 * largest buffers are not on the stack (run_program's saved actions,
 * find_runtime's path, cli_error's line: glibc's fprintf to stderr takes
 * 8 KB of stack), so that it runs wherever its program does: by hand,
 * from 16 KB (robust.py record_small_stack runs it under 64 KB).
 */
#define ROOMY_STACK ((size_t)8 << 20)

struct resolve_job {
	struct ccp_profile *p;
	int found;
};

static void *resolve_job_run(void *arg)
{
	struct resolve_job *job = arg;
	job->found = sources_resolve(job->p);
	return NULL;
}

static int sources_resolve_with_room(struct ccp_profile *p)
{
	struct rlimit lim;
	struct resolve_job job = {p, 0};
	pthread_attr_t attr;
	pthread_t t;
	int made;
	if (getrlimit(RLIMIT_STACK, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY ||
	    lim.rlim_cur >= ROOMY_STACK || pthread_attr_init(&attr) != 0)
		return sources_resolve(p);
	made = pthread_attr_setstacksize(&attr, ROOMY_STACK) == 0 &&
	       pthread_create(&t, &attr, resolve_job_run, &job) == 0;
	pthread_attr_destroy(&attr);
	if (!made)
		return sources_resolve(p);
	pthread_join(t, NULL);
	return job.found;
}

static struct profile_seen add_sources(const char *path, uint64_t since_ns, char *const *program)
{
	struct profile_seen seen = {0};
	struct ccp_profile p;
	struct stat was, now;
	size_t size;
	char err[256];
	char *real = realpath(path, NULL);
	if (real != NULL && stat(real, &was) == 0 &&
	    ccp_format_read_file_sized(real, &p, &size, err, sizeof err) == 0) {
		seen.this_run = p.start_ns >= since_ns;
		seen.measured = (p.alloc.measured ? MEASURED_ALLOC : 0) |
				(p.heap.measured ? MEASURED_HEAP : 0);
		seen.pid = p.pid;
		seen.start_ns = p.start_ns;
		seen.nthreads = p.nthreads;
		seen.overflow = model_overflow(&p);
		if (program)
			seen.command = other_command(&p, program);
		if (seen.this_run && whole_file(&p, size) && sources_resolve_with_room(&p) > 0 &&
		    stat(real, &now) == 0 && same_file(&was, &now) && cli_write_profile(&p, real) != 0)
			cli_error("ccprof: %s: cannot add source lines: %s", path,
				strerror(errno));
		ccp_profile_free(&p);
	}
	free(real);
	return seen;
}

/*
 * Note [The run's other profiles]: besides the profile record names
 * (Note [Which profile]) the runtime writes, in the same directory, one
 * for each forked child, OUT.<pid> (or with its own pid where OUT has
 * %p), one for each process but the first that would write OUT itself,
 * OUT.<pid> too (two programs a shell runs: Note [One OUT per run] in
 * src/runtime/dump.c, which run_start= makes work), and moves the profile of an image before an exec to
 * OUT.pre-exec.N when the next image writes OUT (docs/options.md), and
 * an earlier process's OUT.<pid> to OUT.<pid>.N when a later one of the
 * run has its pid (Note [A reused pid] in src/runtime/preexec.c).  These
 * are the names that match OUT with any number for %p, then up to two
 * ".<number>", then optionally ".pre-exec.<number>"; the runtime's
 * temporary files (.OUT.tmp<pid>.<n>, hidden) do not.  Of them, those that
 * started after the fork are this run's.  A %p in OUT's directory part
 * leaves only the one record names.
 */

/* s past prefix and a number, or NULL. */
static const char *past_number(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);
	if (strncmp(s, prefix, n) != 0 || s[n] < '0' || s[n] > '9')
		return NULL;
	for (s += n; *s >= '0' && *s <= '9'; s++)
		;
	return s;
}

/* Whether name is one the runtime may give a profile of output template
 * tmpl (Note [The run's other profiles]). */
static int run_profile_name(const char *name, const char *tmpl)
{
	const char *s = name, *t = tmpl, *next;
	while (s != NULL && *t) {
		if (t[0] == '%' && t[1] == 'p') {
			s = past_number(s, "");
			t += 2;
		} else {
			s = *s == *t++ ? s + 1 : NULL;
		}
	}
	for (int i = 0; i < 2 && s != NULL && (next = past_number(s, ".")) != NULL; i++)
		s = next;
	if (s != NULL && (next = past_number(s, ".pre-exec.")) != NULL)
		s = next;
	return s != NULL && *s == '\0';
}

/* The directory of out, an absolute path; malloc'd. */
static char *directory_of(const char *out)
{
	const char *slash = strrchr(out, '/');
	char *dir = xstrdup(out);
	dir[slash > out ? slash - out : 1] = '\0';
	return dir;
}

/* The regular files in out's directory whose names match out's base
 * name, but for written; NULL-terminated, malloc'd. */
static char **other_profiles(const char *out, const char *written)
{
	const char *slash = strrchr(out, '/'); /* out is absolute */
	char *dir = directory_of(out);
	DIR *d = strstr(dir, "%p") ? NULL : opendir(dir);
	char **found = xnmalloc(1, sizeof *found);
	size_t n = 0;
	struct dirent *e;
	while (d != NULL && (e = readdir(d)) != NULL) {
		if (!run_profile_name(e->d_name, slash + 1))
			continue;
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		char *path = xmalloc(len);
		struct stat st;
		snprintf(path, len, "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name);
		if (strcmp(path, written) != 0 && lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			found = xrealloc(found, n + 2, sizeof *found);
			found[n++] = path;
		} else {
			free(path);
		}
	}
	found[n] = NULL;
	if (d != NULL)
		closedir(d);
	free(dir);
	return found;
}

/* One of the run's other profiles. */
struct other_profile {
	char *path;
	uint64_t pid;
	uint64_t start_ns;
	char *command; /* Note [Whose profile] */
};

/* In the order the processes started, so that a child's part before its
 * exec comes before its image's; by name for ties. */
static int by_start(const void *a, const void *b)
{
	const struct other_profile *x = a, *y = b;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Note [The run's other profiles], after the directory is read: each
 * rename adds a name to it, which readdir may or may not return.  Those
 * of this run, sorted by_start, *n of them; malloc'd, paths too. */
static struct other_profile *add_sources_beside(const char *out, const char *written,
						uint64_t since_ns, char *const *program, size_t *n)
{
	char **others = other_profiles(out, written);
	size_t count = 0;
	while (others[count] != NULL)
		count++;
	struct other_profile *found = xnmalloc(count + 1, sizeof *found);
	*n = 0;
	for (char **o = others; *o != NULL; o++) {
		struct profile_seen seen = add_sources(*o, since_ns, program);
		if (seen.this_run) {
			found[(*n)++] = (struct other_profile){*o, seen.pid, seen.start_ns, seen.command};
		} else {
			free(*o);
			free(seen.command);
		}
	}
	free(others);
	qsort(found, *n, sizeof *found, by_start);
	return found;
}

/* Whether the runtime named path as the profile of an image before an
 * exec: it ends in ".pre-exec.<number>". */
static int before_exec(const char *path)
{
	const char *last = NULL, *end;
	for (const char *s = path; (s = strstr(s, ".pre-exec.")) != NULL; s++)
		last = s;
	return last != NULL && (end = past_number(last, ".pre-exec.")) != NULL && *end == '\0';
}

/* Each of the run's other profiles, a line each in the style of the one
 * for the profile record names: whose it is (the program's own pid, or a
 * child's) and whether it is the part before an exec.  A run of many
 * processes (a shell script's subshells: a configure script made 410)
 * gets the first OTHERS_LISTED - 1 and a count of the rest, where they
 * are, not a screenful of names. */
#define OTHERS_LISTED 10

static void say_others(const struct other_profile *others, size_t n, pid_t program,
		       const char *out)
{
	size_t shown = n <= OTHERS_LISTED ? n : OTHERS_LISTED - 1;
	for (size_t i = 0; i < shown; i++) {
		char who[48];
		if (others[i].pid == (uint64_t)program)
			snprintf(who, sizeof who, "the program");
		else
			snprintf(who, sizeof who, "child %llu", (unsigned long long)others[i].pid);
		cli_error("ccprof: profile of %s%s%s%s%s written to %s", who,
			others[i].command ? " (" : "", others[i].command ? others[i].command : "",
			others[i].command ? ")" : "",
			before_exec(others[i].path) ? " before its exec" : "", others[i].path);
	}
	if (shown < n) {
		char *dir = directory_of(out);
		cli_error("ccprof: and %zu more profiles of the run's processes, in %s",
			n - shown, dir);
		free(dir);
	}
}

/* Note [Saying the overflow] in src/model/overflow.c: a profile cut
 * short by max_contexts is said at once, with the option that keeps it
 * whole; report's header says which threads and how much time. */
static void say_overflow(const struct profile_seen *seen)
{
	const struct model_overflow *ov = &seen->overflow;
	char who[64];

	if (ov->threads == 0)
		return;
	if (seen->nthreads == 1)
		snprintf(who, sizeof who, "the run");
	else if (ov->threads == seen->nthreads)
		snprintf(who, sizeof who, "all %" PRIu32 " threads", ov->threads);
	else
		snprintf(who, sizeof who, "%" PRIu32 " of %" PRIu32 " threads", ov->threads,
			 seen->nthreads);
	cli_error("ccprof: %s reached max_contexts=%" PRIu64 ", so %" PRIu64 " call%s lost %s "
		  "callers; a larger --max-contexts (above %" PRIu64 ") keeps more of them",
		  who, ov->max_contexts, ov->calls, ov->calls == 1 ? "" : "s",
		  ov->calls == 1 ? "its" : "their", ov->max_contexts);
}

/* After the run: say where the profile went (Note [Which profile]), and
 * where the run's other profiles went (Note [The run's other profiles]),
 * with source lines added (Note [Lines at record time]). */
/*
 * Note [Processes that outlive the run]: a program that daemonizes (nginx,
 * a server's double fork) ends at once, and record with it, as a bare run
 * returns at once; its processes run on and write their profiles later,
 * beside OUT, where record can neither name them nor add source lines to
 * them (helper-116).  record cannot wait for them, but it says so: every
 * process of the run was started with the run's CCPROF_OPTIONS, whose
 * run_start= no other process has, and /proc/PID/environ keeps the
 * environment a process was started with.  A process of another user, or
 * one that exec'd with an environment of its own, is not found.
 */
#define STILL_LISTED 5

/* Whether the environment of process pid (its /proc entry's environ,
 * read into buf, cap bytes) holds the run's token, "run_start=<ns>". */
static int of_this_run(long pid, const char *token, char *buf, size_t cap)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/environ", pid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return 0;
	size_t n = fread(buf, 1, cap, f), len = strlen(token);
	fclose(f);
	for (size_t i = 0; i + len <= n; i++)
		if (memcmp(buf + i, token, len) == 0 &&
		    (i + len == n || buf[i + len] < '0' || buf[i + len] > '9'))
			return 1;
	return 0;
}

static void say_still_running(uint64_t start_ns, const char *out)
{
	/* Not by another namespace's numbers (Note [A /proc of another PID
	 * namespace] in src/common/procfs.h): the profiles are named by ours. */
	DIR *proc = ccp_proc_numbers_ours() ? opendir("/proc") : NULL;
	if (proc == NULL)
		return;
	char token[48], listed[STILL_LISTED * 24] = "";
	snprintf(token, sizeof token, "run_start=%llu", (unsigned long long)start_ns);
	size_t cap = 1 << 20, found = 0, used = 0;
	char *buf = xmalloc(cap);
	for (struct dirent *d; (d = readdir(proc)) != NULL;) {
		long pid = d->d_name[0] >= '1' && d->d_name[0] <= '9' ? atol(d->d_name) : 0;
		if (pid <= 0 || pid == (long)getpid() || !of_this_run(pid, token, buf, cap))
			continue;
		if (found++ < STILL_LISTED)
			used += (size_t)snprintf(listed + used, sizeof listed - used, "%s%ld",
						 found > 1 ? ", " : "", pid);
	}
	closedir(proc);
	free(buf);
	if (found == 0)
		return;
	char *dir = directory_of(out);
	if (getpid() == 1) /* Note [record as a namespace's init]: they die with it */
		cli_error("ccprof: %zu process%s of the run %s still running (pid%s %s%s); %s killed "
			  "as ccprof, the PID namespace's init, ends, with no profile",
			  found, found == 1 ? "" : "es", found == 1 ? "is" : "are",
			  found == 1 ? "" : "s", listed, found > STILL_LISTED ? ", ..." : "",
			  found == 1 ? "it is" : "they are");
	else if (found == 1)
		cli_error("ccprof: 1 process of the run is still running (pid %s); if it ran "
			  "instrumented code, its profile goes to %s when it ends", listed, dir);
	else
		cli_error("ccprof: %zu processes of the run are still running (pids %s%s); those "
			  "that ran instrumented code write their profiles to %s when they end",
			  found, listed, found > STILL_LISTED ? ", ..." : "", dir);
	free(dir);
}

static void record_outcome(const struct record_opts *o, const char *out,
			   const struct run_result *r, const struct stat *before, int existed)
{
	char *real = expand_pid(out, r->pid);
	if (strcmp(real, out) != 0)
		existed = 0; /* a name with this run's pid in it */
	int written = profile_written(real, before, existed), measured = 0;
	struct profile_seen seen = {0};
	if (written) {
		seen = add_sources(real, 0, NULL); /* this run's, by Note [Which profile] */
		measured = seen.measured;
	}
	size_t nothers;
	struct other_profile *others = add_sources_beside(out, real, r->start_ns, o->command,
							  &nothers);
	struct stat st;
	if (written && o->alloc && !(measured & MEASURED_ALLOC))
		/* The runtime that wrote it did not count: libccprof.a is
		 * linked into PROGRAM, or CCPROF_ALLOC_LIBRARY names a runtime
		 * without the counting (docs/alloc.md). */
		cli_error("ccprof: --alloc: no allocation counted: the runtime that ran %s "
			  "was not libccprof-alloc.so (libccprof.a linked in?)",
			o->command[0]);
	else if (written && o->heap && !(measured & MEASURED_HEAP))
		cli_error("ccprof: --heap: no heap followed: the runtime that ran %s "
			  "does not know heap=1 (CCPROF_ALLOC_LIBRARY from an older ccprof?)",
			o->command[0]);
	if (written) {
		cli_error("ccprof: profile written to %s", real);
		say_overflow(&seen);
	} else if (stat(real, &st) == 0 && !S_ISREG(st.st_mode))
		/* /dev/null, a FIFO: no file to look at, and the runtime says
		 * so itself if its write failed (/dev/full), so no guess why. */
		cli_error("ccprof: %s is not a regular file: record cannot tell whether "
			  "the profile was written",
			real);
	else
		say_why_none(o->command[0], r->status, r->unhandled);
	say_others(others, nothers, r->pid, real);
	say_still_running(r->start_ns, out); /* Note [Processes that outlive the run] */
	for (size_t i = 0; i < nothers; i++) {
		free(others[i].path);
		free(others[i].command);
	}
	free(others);
	free(real);
}

static int record_run(int argc, char **argv)
{
	struct record_opts o = {0};
	char *lib, *out;
	int rc = record_parse(argc, argv, &o);
	if (rc != 0)
		return rc < 0 ? cli_finish_output(0) : rc;
	if ((rc = record_paths(&o, &lib, &out)) != 0)
		return rc;
	if (out_is_own_file(out, o.command[0], lib)) {
		free(lib);
		free(out);
		return CLI_EXIT_USAGE;
	}

	struct stat before;
	int existed = stat(out, &before) == 0;
	struct run_result r;
	uint64_t start_ns = realtime_ns(); /* before every process of the run */
	if (set_options(&o, out, start_ns) != 0) {
		free(lib);
		free(out);
		return CLI_EXIT_FAIL;
	}
	env_join("LD_PRELOAD", lib, 1);
	if (run_program(o.command, run_dump_signal(&o), start_ns, &r) != 0) {
		rc = record_fail("cannot start the program: ", strerror(errno));
	} else if (r.exec_errno) {
		cli_error("ccprof: %s: %s", o.command[0][0] ? o.command[0] : "''",
			  strerror(r.exec_errno));
		rc = r.passed ? die_by(r.passed) : r.exec_errno == ENOENT ? 127 : 126;
	} else {
		/* The exit status is the program's: a reader of stderr gone
		 * (`2>&1 | true`) must not end record by SIGPIPE as it names
		 * the profiles (helper-120: git's 0 became 141). */
		signal(SIGPIPE, SIG_IGN);
		cli_no_size_signal(); /* the program has its own disposition */
		record_outcome(&o, out, &r, &before, existed);
		rc = pass_status(&r);
	}
	free(lib);
	free(out);
	return rc;
}
