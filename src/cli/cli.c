/*
 * cli.c - helpers shared by the subcommands (see cli.h).
 */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "common/elfsym.h"
#include "format/arena.h"
#include "format/format.h"
#include "model/combine.h"
#include "model/xalloc.h"
#include "output/escape.h"
#include "output/ob.h"

void cli_help(FILE *f, const struct cli_command *c)
{
	fprintf(f, "usage: %s\n\n%s", c->usage, c->help);
}

/*
 * Note [One line on stderr]: every line the tool prints on stderr (an
 * error, a warning, a note) goes through cli_error, which escapes the
 * whole line as the text report escapes names (cli_shown): a file name or
 * an option value is the user's, may hold any byte, and was printed raw,
 * so a name with a newline made two lines (`ccprof info $'a\nb'`) and an
 * escape sequence in one reached the terminal.  Escaping is idempotent,
 * so a part already shown with cli_shown stays as it was.
 */
void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *line = xvformat(fmt, ap);
	va_end(ap);
	char *shown = cli_shown(line);
	char *out = xformat("%s\n", shown);
	/* fputs, not fprintf: glibc's fprintf to an unbuffered stream takes
	 * an 8 KB buffer on the stack, which record does not have under the
	 * smallest stack limits its program runs under (Note [Record's own
	 * stack] in cmd_record.c); one write for the line still. */
	fputs(out, stderr);
	free(out);
	free(shown);
	free(line);
}

int cli_usage_error(const struct cli_command *c, const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	va_start(ap, fmt);
	char *msg = xvformat(fmt, ap);
	va_end(ap);
	cli_error("ccprof %s: %s (usage: %s)", c->name, msg, c->usage);
	free(msg);
	return CLI_EXIT_USAGE;
}

int cli_no_alloc_data(const struct cli_command *c, const char *option, const char *path)
{
	return cli_usage_error(c, "%s: %s has no allocation data (the run did not count "
				  "allocations)", option, path);
}

/* What cli_bad_option needs to know of the last cli_getopt call. */
static int getopt_start;                  /* optind before it */
static const struct option *getopt_longs; /* its table */

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts)
{
	getopt_start = optind;
	getopt_longs = longopts;
	return getopt_long(argc, argv, shortopts, longopts, NULL);
}

/* How many long options start with the len bytes of name; 1 if one is
 * exactly that name (getopt_long takes an exact name over longer ones). */
static int long_matches(const char *name, size_t len)
{
	int n = 0;
	for (const struct option *o = getopt_longs; o && o->name; o++) {
		if (strncmp(o->name, name, len) != 0)
			continue;
		if (o->name[len] == '\0')
			return 1;
		n++;
	}
	return n;
}

int cli_bad_option(const struct cli_command *c, int ret, char **argv)
{
	/* getopt has stepped over the offending argument, unless the error is
	 * a short option inside a cluster (-xg), whose argument stays at
	 * optind until its last letter: then argv[optind - 1] is the option
	 * before, maybe a long one (--graph -xg once said "unknown option
	 * '--graph'").  A long option is named by its text; a short one by
	 * optopt.  optopt is 0 for an unknown or ambiguous long option. */
	int in_cluster = optind == getopt_start && argv[optind] != NULL;
	const char *arg = in_cluster ? argv[optind] : optind > 0 ? argv[optind - 1] : "";
	int is_long = strncmp(arg, "--", 2) == 0;
	size_t len = is_long ? strcspn(arg, "=") : 0;
	char what[64];
	if (is_long)
		snprintf(what, sizeof what, "%.*s", (int)len, arg);
	else
		snprintf(what, sizeof what, "-%c", optopt ? optopt : '?');
	if (ret == ':')
		return cli_usage_error(c, "option '%s' needs a value", what);
	if (is_long && optopt && strchr(arg, '='))
		return cli_usage_error(c, "option '%s' takes no value", what);
	if (is_long && !optopt && long_matches(arg + 2, len - 2) > 1)
		return cli_usage_error(c, "option '%s' is ambiguous", what);
	return cli_usage_error(c, "unknown option '%s'", what);
}

int cli_one_profile(const struct cli_command *c, int argc, char **argv, const char **path)
{
	if (optind == argc)
		return cli_usage_error(c, "no profile given");
	if (argc - optind > 1)
		return cli_usage_error(c, "one profile at a time ('%s' is extra)", argv[optind + 1]);
	*path = argv[optind];
	return cli_check_inputs(c, argv + optind, 1);
}

int cli_parse_count64(const char *s, uint64_t *out)
{
	char *end;
	/* Digits only: strtoull also takes a sign, after blanks (" -0"). */
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || errno) /* ERANGE: 2^64 or more */
		return -1;
	*out = (uint64_t)v;
	return 0;
}

int cli_parse_count(const char *s, unsigned *out)
{
	uint64_t v;
	if (cli_parse_count64(s, &v) != 0 || v > UINT_MAX)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/*
 * Note [Decimals beyond a double]: strtod gives ERANGE for a number too
 * small for a double ("0." and 400 zeros and "1") as for one too large,
 * and both were refused as not numbers: --interval said "a decimal number
 * above 0", of a number above 0.  The user's number is a number: it is
 * taken as the nearest double that is neither 0 nor infinite, which
 * compares with every quantity of a profile (times, percentages, ticks)
 * as the number itself does.  So the tiniest interval is raised to the
 * least one, as 0.001 is, and a huge one is above the most an option
 * allows and refused as such, in the option's own words.
 */
int cli_parse_decimal(const char *s, double *out)
{
	/* Digits only, as cli_parse_count: strtod also takes blanks, a
	 * sign, hexadecimal ("0x10"), exponents, "inf" and "nan". */
	size_t digits = strspn(s, "0123456789");
	if (digits == 0 || (s[digits] && (s[digits] != '.' ||
					 s[digits + 1 + strspn(s + digits + 1, "0123456789")])))
		return -1;
	errno = 0;
	double v = strtod(s, NULL);
	if (errno == ERANGE && v > 1) /* Note [Decimals beyond a double] */
		v = DBL_MAX;
	else if (errno == ERANGE && v == 0)
		v = DBL_TRUE_MIN; /* a subnormal result is kept: it is not 0 */
	else if (errno && errno != ERANGE)
		return -1;
	*out = v;
	return 0;
}

char *cli_shown(const char *s)
{
	size_t len = strlen(s);
	char *out = xmalloc(ESCAPE_MAX(len) + 1);
	out[escape_mem(out, &escape_text, s, len)] = '\0';
	return out;
}

int cli_is_stdout(const char *path)
{
	return strcmp(path, "-") == 0;
}

int cli_check_inputs(const struct cli_command *c, char *const *files, int n)
{
	int seen = 0;
	for (int i = 0; i < n; i++) {
		if (files[i][0] == '\0')
			return cli_usage_error(c, "an empty file name");
		if (strcmp(files[i], "-") == 0 && seen++)
			return cli_usage_error(c, "'-' (standard input) can be given once");
	}
	return 0;
}

/* "-" is standard input, as for most tools that read a file. */
const char *cli_input_path(const char *path)
{
	return strcmp(path, "-") == 0 ? "/dev/stdin" : path;
}

/*
 * Note [Relative module paths]: a runtime from before Note [Absolute
 * module paths] (src/runtime/modules.c) recorded a library that the
 * dynamic linker found by a relative path (-Wl,-rpath,., dlopen of
 * "./libl.so") by that path, relative to the run's working directory at
 * the load, and the tool opened it relative to its own: names, source
 * lines, --only-exported and --module then depended on where the tool
 * ran.  The run's directory is not in the profile, but the runtime writes
 * its profile there by default (ccprof record too, unless -o says
 * otherwise), so a relative module path is read from the profile's
 * directory: if a regular file is there, the module takes its absolute
 * path (as a new runtime records it, symbolic links resolved) for the
 * whole of the tool's work, output included, if it is the build the
 * profile recorded (the same build-id, or none for both; for those, the
 * change time is checked later, as for any module: symtabs.c).  Else the
 * path stays as recorded, relative to the tool's directory as before: an
 * unrelated file of that name beside the profile does not hide the right
 * one where the tool runs.
 */
void cli_anchor_modules(struct ccp_profile *p, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0; /* with the '/' */
	if (cli_is_stdout(path))
		return; /* standard input: no directory */
	for (uint32_t i = 0; i < p->nmodules; i++) {
		const char *m = p->modules[i].path;
		struct stat st;
		if (m == NULL || m[0] == '\0' || m[0] == '/')
			continue;
		char *joined = xmalloc(dirlen + strlen(m) + 1);
		memcpy(joined, path, dirlen);
		strcpy(joined + dirlen, m);
		char *real = realpath(joined, NULL);
		if (real && stat(real, &st) == 0 && S_ISREG(st.st_mode) &&
		    elfsym_is_build(real, p->modules[i].build_id ? p->modules[i].build_id : "")) {
			char *copy = ccp_arena_strdup(p->arena, real);
			if (copy == NULL)
				xalloc_die(strlen(real) + 1, __func__);
			p->modules[i].path = copy;
		}
		free(real);
		free(joined);
	}
}

int cli_load(const char *path, unsigned passes, struct cli_profile *cp)
{
	char err[256] = "";
	memset(cp, 0, sizeof *cp);
	size_t bytes = 0;
	if (ccp_format_read_file_sized(cli_input_path(path), &cp->prof, &bytes, err, sizeof err) != 0) {
		cli_error("ccprof: %s: %s", path, err[0] ? err : "cannot read profile");
		return CLI_EXIT_FAIL;
	}
	cli_anchor_modules(&cp->prof, path); /* Note [Relative module paths] */
	combine_fold_reloads(&cp->prof); /* Note [One function, several cost centres] */
	if (model_build(&cp->model, &cp->prof, passes, err, sizeof err) != 0) {
		cli_error("ccprof: %s: %s", path, err[0] ? err : "inconsistent profile");
		model_free(&cp->model);
		ccp_profile_free(&cp->prof);
		return CLI_EXIT_FAIL;
	}
	cp->file_size = bytes;
	return 0;
}

void cli_unload(struct cli_profile *cp)
{
	model_free(&cp->model);
	ccp_profile_free(&cp->prof);
}

int cli_finish_output(int status)
{
	errno = 0;
	int flush_failed = fflush(stdout) != 0;
	int e = flush_failed ? errno : 0; /* after ferror alone, errno is stale */
	if (e == 0)
		e = ob_write_errno(stdout); /* a failure mid-report: stdio dropped the rest */
	if (flush_failed || ferror(stdout)) {
		cli_error("ccprof: error writing standard output%s%s", e ? ": " : "",
			e ? strerror(e) : "");
		return CLI_EXIT_FAIL;
	}
	return status;
}

void cli_no_size_signal(void)
{
	signal(SIGXFSZ, SIG_IGN);
}

/* The name path's chain of symbolic links ends at (path itself if it is
 * no link; the name a dangling link gives, which need not exist), and
 * in *in_proc whether a link of the chain lives in /proc: /dev/stdout is
 * /proc/self/fd/1, which stands for an open file (the shell's
 * redirection), not a name; renaming over it would fail, or leave the
 * file the link stands for untouched.  The walk stops there.  NULL with
 * ELOOP for a chain longer than the kernel follows. */
static char *final_name(const char *path, int *in_proc)
{
	char *cur = xstrdup(path);
	*in_proc = 0;
	for (int hops = 0; hops <= 40; hops++) { /* 40: the kernel's limit */
		struct stat st;
		char target[PATH_MAX];
		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
			return cur;
		const char *slash = strrchr(cur, '/');
		char *dir = slash ? xmalloc((size_t)(slash - cur) + 2) : xstrdup(".");
		if (slash)
			snprintf(dir, (size_t)(slash - cur) + 2, "%.*s", (int)(slash - cur + 1), cur);
		struct statfs fs;
		*in_proc = statfs(dir, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
		ssize_t n = *in_proc ? -1 : readlink(cur, target, sizeof target - 1);
		if (n >= 0) {
			/* A relative target is relative to the link's directory. */
			target[n] = '\0';
			size_t len = strlen(dir) + (size_t)n + 2;
			char *next = xmalloc(len);
			snprintf(next, len, "%s%s%s", target[0] == '/' ? "" : dir,
				 target[0] == '/' || slash ? "" : "/", target);
			free(cur);
			cur = next;
		}
		free(dir);
		if (n < 0)
			return cur; /* in /proc, or gone meanwhile: open will judge */
	}
	free(cur);
	errno = ELOOP;
	return NULL;
}

/* Into a target that is not a regular file (/dev/null, a FIFO,
 * /dev/stdout), as is: there is no file to replace.  O_TRUNC as fopen's
 * "w", for /dev/stdout redirected to a file. */
static int write_in_place(const char *path, cli_file_writer *write_out, const void *arg)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = write_out(fd, arg);
	int e = errno;
	if (close(fd) != 0 && rc == 0)
		return -1;
	errno = e;
	return rc;
}

/* Give the temporary file fd the permissions and owner of the file it
 * replaces, old (record's rewrite of a profile that a program run by
 * root wrote as the user it changed to stays that user's), or a new
 * file's mode (mkstemp makes it 0600). */
static int take_over(int fd, const struct stat *old)
{
	if (old == NULL) {
		mode_t mask = umask(0);
		umask(mask);
		return fchmod(fd, 0666 & ~mask);
	}
	if (fchown(fd, old->st_uid, old->st_gid) != 0 && fchown(fd, (uid_t)-1, old->st_gid) != 0) {
		/* Not ours to give: the file stays ours, as any file we write. */
	}
	return fchmod(fd, old->st_mode & 0777);
}

/* The mkstemp template for path: PATH.tmp.XXXXXX in path's directory,
 * its file name cut so that the whole fits NAME_MAX (an output name of
 * 245 bytes or more once failed with "File name too long"). */
static char *temp_template(const char *path)
{
	static const char suffix[] = ".tmp.XXXXXX";
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	size_t base = strlen(path + dirlen);
	if (base > NAME_MAX - (sizeof suffix - 1))
		base = NAME_MAX - (sizeof suffix - 1);
	char *tmp = xmalloc(dirlen + base + sizeof suffix);
	memcpy(tmp, path, dirlen + base);
	memcpy(tmp + dirlen + base, suffix, sizeof suffix);
	return tmp;
}

/* A temporary file in path's directory, renamed over path when complete;
 * old is the file it replaces, or NULL. */
static int replace_file(const char *path, const struct stat *old, cli_file_writer *write_out,
			const void *arg)
{
	char *tmp = temp_template(path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	int rc = take_over(fd, old) == 0 ? write_out(fd, arg) : -1;
	int e = errno;
	if (close(fd) != 0 && rc == 0) {
		rc = -1;
		e = errno;
	}
	if (rc == 0 && rename(tmp, path) != 0) {
		rc = -1;
		e = errno;
	}
	if (rc != 0)
		unlink(tmp);
	free(tmp);
	errno = e;
	return rc;
}

/*
 * Note [Output through a symbolic link]: -o LINK writes where LINK points,
 * as `> LINK` does; renaming over LINK itself replaced the link with a
 * regular file.  The temporary file goes beside the link's final target
 * and is renamed over that.  The kernel still judges the link as it
 * would for `>` (fs.protected_symlinks: root's -o through a link another
 * user planted in /tmp): stat(LINK) follows it, and the target is
 * replaced only if it is the very file stat(LINK) reached; a dangling
 * link's target is first created through the link (open's O_CREAT, as
 * `>` creates it), then replaced, and removed again if the write fails
 * and it is still the empty file that open gave (another process may
 * have created the target between final_name and the open: its file is
 * written through, and not removed unless it is that empty file).
 * A link changed meanwhile is written through in place, as `>` would.
 */
static int replace_linked(const char *path, const char *target, const struct stat *old,
			  cli_file_writer *write_out, const void *arg)
{
	struct stat st, now;
	int created = 0;
	if (old == NULL) {
		int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
		if (fd < 0)
			return -1;
		int r = fstat(fd, &st);
		if (close(fd) != 0 || r != 0)
			return -1;
		created = 1;
		old = &st;
	}
	if (stat(target, &now) != 0 || now.st_dev != old->st_dev || now.st_ino != old->st_ino)
		return write_in_place(path, write_out, arg);
	int rc = replace_file(target, created ? NULL : old, write_out, arg);
	if (rc != 0 && created && stat(target, &now) == 0 && now.st_dev == st.st_dev &&
	    now.st_ino == st.st_ino && now.st_size == 0) {
		int e = errno;
		unlink(target);
		errno = e;
	}
	return rc;
}

int cli_write_file(const char *path, cli_file_writer *write_out, const void *arg)
{
	int in_proc;
	char *target = final_name(path, &in_proc);
	if (target == NULL)
		return -1;
	struct stat st;
	int exists = stat(path, &st) == 0, rc;
	if ((exists && !S_ISREG(st.st_mode)) || in_proc)
		rc = write_in_place(path, write_out, arg);
	else if (strcmp(target, path) == 0)
		rc = replace_file(path, exists ? &st : NULL, write_out, arg);
	else /* Note [Output through a symbolic link] */
		rc = replace_linked(path, target, exists ? &st : NULL, write_out, arg);
	int e = errno;
	free(target);
	errno = e;
	return rc;
}

static int write_profile_fd(int fd, const void *p)
{
	return ccp_format_write_fd(p, fd);
}

int cli_write_profile(const struct ccp_profile *p, const char *path)
{
	return cli_write_file(path, write_profile_fd, p);
}
