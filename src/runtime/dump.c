/*
 * dump.c - write the profile: gather every thread's contexts, the cost
 * centres with their modules and names, and the statistics into a
 * struct ccp_profile, encode it (src/format, docs/format.md) and put it
 * in place atomically (put_file).
 *
 * This is the normal write, at exit or on ccprof_dump(): it may allocate.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/elfsym.h"
#include "common/tempname.h"
#include "format/format.h"
#include "runtime.h"

static char start_dir[4096];
static char exe_path[4096];
static char hostname[256];
static char **args;
static int nargs;
static uint64_t start_ns, fork_ns;
static uid_t start_euid; /* a forked child's is its parent's */
static int forked_child;
static int out_taken_at_fork; /* out_taken() in the process forked from */
/* Cost centres numbered before the fork: Note [A forked child's profile]
 * in forkprune.c.  0 in a process that was not forked. */
static uint32_t ccs_at_fork;
/* Held with signals blocked (Note [Locks and signals] in quietlock.c): a
 * handler that calls exit in the middle of its thread's ccprof_dump()
 * would wait for ever for it in exit's write.  The outermost of the
 * runtime's locks: the registry's and the others are taken inside. */
static struct rt_quiet_mutex dump_lock = RT_QUIET_MUTEX_INIT;

/* Copy argv now: programs may rewrite theirs (setproctitle). */
void rt_dump_set_args(int argc, char **argv)
{
	int i;

	if (args || argc <= 0 || argv == NULL)
		return;
	args = calloc((size_t)argc, sizeof *args);
	if (args == NULL)
		return;
	for (i = 0; i < argc && argv[i]; i++)
		args[i] = strdup(argv[i]);
	nargs = i;
}

/* Whether the file at path starts with "#!": a script, run by the
 * interpreter its first line names (one that cannot be read, as an
 * execute-only program, is not taken for one: helper-200). */
static int is_script(const char *path)
{
	char magic[2];
	int fd = open(path, O_RDONLY | O_CLOEXEC), yes;

	if (fd < 0)
		return 0;
	yes = read(fd, magic, sizeof magic) == (ssize_t)sizeof magic && magic[0] == '#' &&
	      magic[1] == '!';
	close(fd);
	return yes;
}

/* The program's file: /proc's name for it, else, with no /proc (a
 * container or a chroot without one), the path exec was given (the
 * kernel keeps it: AT_EXECFN), resolved from the directory it was given
 * in, this one: profiles without /proc had no program and no names
 * (helper-196).  For a script run by its #! line that path is the
 * script's, and the program is the interpreter, which the kernel put in
 * argv[0] (helper-199).  "" if neither. */
static void program_path(void)
{
	ssize_t n = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
	const char *given;

	exe_path[n > 0 ? n : 0] = '\0';
	if (n > 0 || (given = (const char *)getauxval(AT_EXECFN)) == NULL)
		return;
	if (is_script(given))
		given = nargs > 0 ? args[0] : NULL;
	_Static_assert(sizeof exe_path >= PATH_MAX, "realpath writes up to PATH_MAX bytes");
	if (given == NULL || realpath(given, exe_path) == NULL)
		exe_path[0] = '\0';
}

const char *rt_program_path(void)
{
	return exe_path;
}

void rt_dump_init(void)
{
	program_path();
	if (getcwd(start_dir, sizeof start_dir) == NULL)
		strcpy(start_dir, ".");
	gethostname(hostname, sizeof hostname - 1);
	start_ns = rt_now_ns(CLOCK_REALTIME);
	start_euid = geteuid();
}

/* An errno in words, from glibc's own table: strerror may load a
 * translation (gettext, malloc: a write at exit from a handler that
 * interrupted malloc would wait for ever) and is not async-signal-safe;
 * strerrordesc_np is both, untranslated, as the runtime's lines are. */
static const char *errno_text(int e)
{
	const char *text = strerrordesc_np(e);

	return text != NULL ? text : "unknown error";
}

/* Why a write failed, for the warning: a server's worker that gave up
 * root (nginx's, as nobody) cannot create its profile in the directory
 * its master could, and the warning says what to do.  Async-signal-safe. */
static void warn_cannot_write(const char *path, int e)
{
	uid_t now = geteuid();

	if (e == EACCES && now != start_euid)
		rt_warn("cannot write %s: %s (the process changed its user from uid %ld to %ld: "
			"give output= a directory that user can write, as 1777 /tmp is)",
			path, errno_text(e), (long)start_euid, (long)now);
	else
		rt_warn("cannot write %s: %s", path, errno_text(e));
}

/*
 * Whether the output template's own name is, or will be, some process's
 * profile: this one's, having run instrumented code, or, in a forked
 * child (whose own name is OUT.<pid>), that of a process up the line of
 * forks that had.  Then the image of a child writes OUT.<pid> too (Note
 * [Exec in a forked child] in exec.c).  Without the second half, a
 * forked child that ran nothing instrumented before it forked or spawned
 * again (a daemon's double fork) passed its image nothing, and the image
 * wrote OUT over the first process's profile, or the other way round.
 */
static int out_taken(void)
{
	return rt_anything_recorded() || (forked_child && out_taken_at_fork);
}

/* In the parent, before fork()'s locks: the child learns whether OUT is
 * taken. */
void rt_dump_before_fork(void)
{
	out_taken_at_fork = out_taken();
}

/* A thread of the parent may have been writing when it forked: its lock
 * is not ours to wait for (the write's memory was its own). */
void rt_dump_after_fork(void)
{
	rt_quiet_after_fork(&dump_lock);
	forked_child = 1;
	start_ns = fork_ns;
	ccs_at_fork = rt_cc_count(); /* the fork held the cc lock */
}

/* In the parent, with fork's locks held (so one fork at a time): the
 * child's start.  Read in the child, after the fork, it followed the
 * order the scheduler ran the children in, and record named nginx's
 * workers out of the order they were forked in (tests/progs/forkorder.c). */
void rt_dump_fork_time(void)
{
	fork_ns = rt_now_ns(CLOCK_REALTIME);
}

/* ---- Where the profile goes ------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The output= template, or the default name: its name part, and in
 * *suffix what follows it ("" or ".ccprof"). */
static const char *template_parts(const char **suffix)
{
	*suffix = rt_config.output[0] ? "" : ".ccprof";
	return rt_config.output[0] ? rt_config.output : base_name(exe_path[0] ? exe_path : "a.out");
}

/* The output= template, or the default name, whole. */
static void output_template(char *tmpl, size_t size)
{
	const char *suffix, *name = template_parts(&suffix);

	snprintf(tmpl, size, "%s%s", name, suffix);
}

/* out = the starting directory and '/', its length in *n: 0, or -1 if
 * that leaves no room in out. */
static int prefix_start_dir(char *out, size_t size, size_t *n)
{
	int w = snprintf(out, size, "%s/", start_dir);

	if (w < 0 || (size_t)w >= size)
		return -1;
	*n = (size_t)w;
	return 0;
}

/* Expand %p; a forked child without %p gets ".<pid>" so that nothing is
 * overwritten; relative paths are taken from the starting directory.
 * *shared: the path is the template's own name, which other processes
 * of the run may write too (Note [One OUT per run]). */
static int output_path(char *out, size_t size, int *shared)
{
	char tmpl[4096 + 64];
	const char *s;
	size_t n = 0;
	int has_pid = 0;

	output_template(tmpl, sizeof tmpl);
	if (tmpl[0] != '/' && prefix_start_dir(out, size, &n) != 0)
		return -1;
	/* n + 24 < size leaves room for a pid and the NUL at each step. */
	for (s = tmpl; *s && n + 24 < size; s++) {
		if (s[0] == '%' && s[1] == 'p') {
			n += (size_t)snprintf(out + n, size - n, "%d", (int)getpid());
			has_pid = 1;
			s++;
		} else {
			out[n++] = *s;
		}
	}
	out[n] = '\0';
	if (*s)
		return -1;
	if (forked_child && !has_pid)
		snprintf(out + n, size - n, ".%d", (int)getpid());
	*shared = !forked_child && !has_pid;
	return 0;
}

/*
 * The output= for the image of a child process, so that it writes where
 * a forked child would: the absolute template with ".%p", %p being the
 * child's pid, which its exec keeps, escaped for CCPROF_OPTIONS (Note
 * [Escapes in CCPROF_OPTIONS] in options.c: a ',' or ':' in the path
 * once made the image write over the parent's profile).  -1 when the
 * template has %p already, or the path does not fit.
 */
static int child_output(char *out, size_t size)
{
	/* The template's parts, not a copy of them on the stack: a
	 * clone()d child's may be two pages (Note [A child's small stack]
	 * in exec.c). */
	const char *suffix, *name = template_parts(&suffix);
	const char *parts[5] = { start_dir, "/", name, suffix, ".%p" };
	size_t n = 0;

	if (strstr(name, "%p"))
		return -1;
	for (int i = name[0] == '/' ? 2 : 0; i < 5; i++) {
		if (rt_options_escape(out + n, size - n, parts[i]) != 0)
			return -1;
		n += strlen(out + n);
	}
	return 0;
}

/* For the image a forked child execs: only a child of a process whose
 * OUT was taken needs one. */
int rt_dump_exec_output(char *out, size_t size)
{
	if (!forked_child || !out_taken_at_fork)
		return -1;
	return child_output(out, size);
}

/* For the image of a child posix_spawn makes, if OUT is taken. */
int rt_dump_spawn_output(char *out, size_t size)
{
	if (!out_taken())
		return -1;
	return child_output(out, size);
}

static int write_all(int fd, const unsigned char *buf, size_t len)
{
	while (len > 0) {
		ssize_t w = rt_write_quietly(fd, buf, len); /* a FIFO's reader may be gone */

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

/*
 * Note [File size limit]: a program may lower RLIMIT_FSIZE (`ulimit -f`
 * in a shell), and a write past it raises SIGXFSZ, whose default action
 * ends the process.  Our profile is no file of the program's: writing it
 * anyway made a program that exited normally die by SIGXFSZ in its write
 * at exit (its handler is ours while the action is the default), before
 * stdio flushed its output, and left the temporary file behind.  So a
 * profile that would not fit is not written: the write fails with EFBIG
 * and says so, as any failed write does.  Only regular files have the
 * limit.
 */
static int beyond_size_limit(size_t len)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_FSIZE, &r) != 0 || r.rlim_cur == RLIM_INFINITY ||
	    (rlim_t)len <= r.rlim_cur)
		return 0;
	errno = EFBIG;
	return 1;
}

/* A target that exists and is not a regular file (/dev/null, a FIFO),
 * written directly.  A FIFO's open waits for a reader, as a shell's
 * redirection does: a reader may come after the program ends, and the
 * tests hold a write in progress so (robust.py term_during_fifo_write).
 * With no reader ever, the process waits at its exit; a deadly signal
 * then waits for the write too (Note [Concurrent exit]), so only SIGKILL
 * ends it (docs/options.md). */
static int put_special(const char *path, const unsigned char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW), rc;

	if (fd < 0)
		return -1;
	rc = write_all(fd, buf, len);
	return close(fd) | rc;
}



/*
 * Note [One OUT per run]: under `ccprof record`, every process whose
 * path is the template's own name OUT (not OUT.<pid>, not a %p name)
 * writes OUT: the program itself, an exec chain's images, and each
 * instrumented program a shell or make of the run forks and execs (Note
 * [Exec in a forked child] in exec.c: a child of a process that ran no
 * instrumented code passes its image nothing).  `sh -c './p a; ./p b'`
 * or a pipeline of two zstd then wrote OUT twice, and the last write
 * replaced the first in silence.  So the first process of the run to
 * write takes OUT, and a later one writes OUT.<pid>, the name a forked
 * child takes, which record names with the run's other profiles.
 *
 * The run is what record says it is: it passes run_start=, its start in
 * ns since the epoch, in CCPROF_OPTIONS, which every process of the run
 * inherits.  The temporary is put at OUT by link(2), which fails with
 * EEXIST where rename would replace.  Then the profile there is peeked
 * at, without allocating (a signal handler's write comes here too;
 * format/peek.c, as rt_keep_earlier_profile does): another pid's that
 * started at or after run_start is this run's, and ours goes to
 * OUT.<pid> (its own earlier image's moved aside first, Note [Pre-exec
 * profile]); anything else (an earlier run's, our own earlier write,
 * not a profile) is replaced by rename, as before.  Without run_start
 * (the runtime preloaded by hand), or where the file system has no hard
 * links (link fails otherwise: vfat's EPERM), it is rename as before.
 *
 * What remains: two processes that find an earlier run's OUT at the same
 * moment (both links fail, both peek at the old file) both rename over
 * it, and the first of the two profiles is lost, as all but the last
 * were before.  Between an image's move of its earlier image's OUT
 * aside and its link, another process of the run may take OUT: both
 * profiles are kept, the image's at OUT.<pid>.  A process with the pid
 * of the one whose profile has OUT (pids wrapped round, or pid
 * namespaces, where each may be pid 1) is told apart by its start, or
 * if it started after that one ended, by the process's start (Note [A
 * reused pid] in preexec.c); of three or more such, the second to find
 * OUT taken moves the first's OUT.<pid> aside to OUT.<pid>.1 (helper-121
 * saw the first lost).  The times are CLOCK_REALTIME's: a clock
 * set back during the run takes this run's profiles for an earlier
 * run's; and of two records at once with one OUT, the later run
 * replaces the earlier's OUT, whose later writers then write OUT.<pid>.
 */

/* Whether the profile at path is another process's of this run (Note
 * [One OUT per run]).  Another's, not ours, by pid and start: in pid
 * namespaces every process of a run may be pid 1 (`unshare -pf`, a
 * container), and by pid alone one replaced another's profile
 * (helper-119).  O_NONBLOCK: a FIFO put there since put_file looked must
 * not hold up the write (one from a signal handler, or at exit). */
static int taken_in_this_run(const char *path)
{
	uint64_t pid, started;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), taken;

	if (fd < 0)
		return 0;
	taken = ccp_format_peek_pid(fd, &pid, &started) == 0 &&
		rt_other_of_this_run(pid, started, start_ns);
	close(fd);
	return taken;
}

/* The temporary tmp put at path, the run's OUT, or if another process of
 * the run has it, at OUT.<pid>, into path (Note [One OUT per run]). */
static int claim_out(const char *tmp, char *path, size_t size)
{
	size_t n = strlen(path);

	if (link(tmp, path) == 0) {
		unlink(tmp);
		return 0;
	}
	if (errno != EEXIST || !taken_in_this_run(path))
		return rename(tmp, path); /* no hard links here, or not this run's */
	if (snprintf(path + n, size - n, ".%d", (int)getpid()) >= (int)(size - n)) {
		path[n] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	rt_keep_earlier_profile(path, start_ns, 1);
	return rename(tmp, path);
}

/* Temporary file in the same directory, then rename, or with `claim` put
 * at path by claim_out, which may change path; a target that exists and
 * is not a regular file is written directly (put_special).  No symlink
 * is followed. */
static int put_file(char *path, size_t size, int claim, const unsigned char *buf, size_t len)
{
	char tmp[4096 + 128];
	struct stat st;
	int fd, i;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return put_special(path, buf, len);
	if (beyond_size_limit(len)) /* Note [File size limit] */
		return -1;
	for (i = 0;; i++) {
		if (ccp_temp_name(tmp, sizeof tmp, path, (int)getpid(), i) != 0)
			return -1;
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST || i == 100)
			break;
	}
	if (fd < 0)
		return -1;
	if (write_all(fd, buf, len) != 0 || close(fd) != 0 ||
	    (claim ? claim_out(tmp, path, size) : rename(tmp, path)) != 0) {
		int e = errno;

		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

/*
 * Note [At the descriptor limit]: a process that has every descriptor
 * its RLIMIT_NOFILE allows open when it writes (a subshell under `ulimit
 * -n 5` with fds 3 and 4 open, helper-178) could open no file for its
 * profile: it wrote none, and said so in a line the bare program does not
 * print.  Raising the soft limit would help only below the hard one,
 * which `ulimit -n` lowers too.  So a write that failed so is made again
 * by a thread of ours with a copy of the descriptor table (a raw thread
 * without CLONE_FILES, rawthread.c): at the limit every descriptor below
 * it is open, and the thread closes the last one in its copy, which
 * leaves the process's as they were (a POSIX record lock belongs to the
 * table it was taken through, so the program's stay), and writes; its
 * copy ends with it.  It is a thread of the process, so the names that
 * take the pid (OUT.<pid>, the temporary's) are the process's.  Not
 * under a seccomp filter of the program's, which may kill the process
 * for a clone with flags other than glibc's, nor where no raw thread can
 * be made (rawthread.c): there the line, as before.
 */
struct placing {
	char *path;
	size_t size;
	int claim;
	const unsigned char *buf;
	size_t len;
	int rc, err;
};

/* Before this image writes path, another profile there may move aside
 * (preexec.c); then the file. */
static int place(struct placing *p)
{
	rt_keep_earlier_profile(p->path, start_ns, !p->claim);
	return put_file(p->path, p->size, p->claim, p->buf, p->len);
}

static void place_on_own_files(void *arg)
{
	struct placing *p = arg;
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur > 0 && r.rlim_cur <= INT_MAX)
		close((int)r.rlim_cur - 1);
	p->rc = place(p);
	p->err = errno;
}

static int place_profile(char *path, size_t size, int claim, const unsigned char *buf,
			 size_t len)
{
	struct placing p = { path, size, claim, buf, len, 0, 0 };
	struct rt_raw_thread t;
	int rc = place(&p), e = errno;

	if (rc == 0 || e != EMFILE || !rt_sandbox_none() ||
	    !rt_raw_thread_start_own_files(&t, place_on_own_files, &p)) {
		errno = e;
		return rc;
	}
	rt_raw_thread_join(&t);
	errno = p.err;
	return p.rc;
}

/* ---- Memory for a write ---------------------------------------------------
 *
 * Note [Memory for a write]: a write takes its memory from one large mapping, reserved (not
 * committed) when the write starts and released at its end.  A write from
 * a signal handler (crash, SIGTERM, dump_signal) must: it may have
 * interrupted malloc.  A normal write does too, so that gathering the
 * counts calls no malloc of the program's: an instrumented one (bash's)
 * would count its calls for the write among the program's, as calls the
 * program never made.  If the mapping fails (vm.overcommit_memory=2, or a
 * `ulimit -v` below 4 GB), smaller ones are tried, down to 16 MB: a write
 * from a signal handler or _exit had nothing else, and wrote no profile
 * under `ulimit -v 1000000`; past that, the mapping kept for the write
 * (Note [Room kept for the write]), then, for a normal write, malloc; one
 * from a handler says it writes none.  Symbol tables (elfsym) are read
 * with malloc, after the counts were taken, and left to the tool if
 * malloc fails.
 *
 * Note [Room kept for the write]: a program that used up its address
 * space under `ulimit -v` and then exited ("out of memory", exit 2:
 * gawk in unbounded recursion, helper-134) left the write no room for
 * even the smallest mapping, and no profile was written, just when a
 * profile of where the memory went is wanted.  So the first thread state
 * made (threads.c) is followed by a mapping of WRITE_KEEP bytes kept
 * for the write, reserved, never touched until used: address space, no
 * memory (unless overcommit is off, vm.overcommit_memory=2, or the
 * program locks its memory).  A write takes it only when no mapping can
 * be had; one write
 * at a time (an atomic exchange: a handler's write may run beside
 * another), and it is given back zeroed (madvise), as fresh pages are.
 * 4 MiB holds the write of a profile of about 40,000 contexts (one of
 * 8,193 contexts used 0.86 MB); a larger one fails as before.  A
 * process that runs no instrumented code maps none.
 */

struct wmem {
	unsigned char *base; /* NULL: use malloc */
	size_t used, cap;
	int kept; /* base is the kept room */
};

#define WRITE_RESERVE (sizeof(size_t) > 4 ? (size_t)1 << 32 : (size_t)1 << 28)
#define WRITE_RESERVE_MIN ((size_t)1 << 24)
#define WRITE_KEEP ((size_t)4 << 20)

static unsigned char *kept_room; /* Note [Room kept for the write] */

/* From a thread's start, which keeps errno for the hook (threads.c). */
void rt_dump_keep_room(void)
{
	static int tried;

	if (__atomic_exchange_n(&tried, 1, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&kept_room, rt_map(WRITE_KEEP), __ATOMIC_RELEASE);
}

/* The largest mapping of WRITE_RESERVE, a quarter of it, ... down to
 * WRITE_RESERVE_MIN that the system grants, else the kept room (Note
 * [Memory for a write]). */
static void wmem_map(struct wmem *m)
{
	for (size_t size = WRITE_RESERVE; size >= WRITE_RESERVE_MIN; size /= 4)
		if ((m->base = rt_map(size)) != NULL) {
			m->cap = size;
			return;
		}
	m->base = __atomic_exchange_n(&kept_room, NULL, __ATOMIC_ACQ_REL);
	if (m->base != NULL) {
		m->cap = WRITE_KEEP;
		m->kept = 1;
	}
}

/* The kept room goes back zeroed; any other mapping is unmapped. */
static void wmem_unmap(struct wmem *m)
{
	if (!m->kept) {
		rt_unmap(m->base, m->cap);
		return;
	}
	size_t used = (m->used + RT_POOL_PAGE - 1) & ~(size_t)(RT_POOL_PAGE - 1);

	/* Locked memory (mlockall) cannot be given back: zeroed by hand. */
	if (used && madvise(m->base, used, MADV_DONTNEED) != 0)
		memset(m->base, 0, used);
	__atomic_store_n(&kept_room, m->base, __ATOMIC_RELEASE);
}

static void *wmem_alloc(struct wmem *m, size_t n)
{
	void *p;

	if (m->base == NULL)
		return calloc(n ? n : 1, 1);
	n = (n + 15) & ~(size_t)15;
	if (n > m->cap - m->used)
		return NULL;
	p = m->base + m->used; /* fresh pages are zero */
	m->used += n;
	return p;
}

static void wmem_free(struct wmem *m, void *p)
{
	if (m->base == NULL)
		free(p);
}

static void *enc_realloc(void *ctx, void *p, size_t old, size_t n)
{
	struct wmem *m = ctx;
	void *q;

	if (m->base == NULL)
		return realloc(p, n);
	q = wmem_alloc(m, n);
	if (q && p)
		memcpy(q, p, old < n ? old : n);
	return q;
}

/*
 * Note [Names without malloc]: a program's signal handler may call exit
 * (tests/progs/sigkids.c exit), and the handler may have interrupted its
 * thread inside malloc: glibc runs a thread's __libc_thread_freeres,
 * which frees the thread's tcache into its arena (the arena's lock held)
 * and then gives the arena back (free_list_lock held), with the
 * program's signal mask still in place.  Bare, exit calls no malloc and
 * the process ends; the write at exit looked the functions' names up
 * with malloc (the tables, the places, elfsym's tables, qsort's buffer),
 * and its thread waited for ever for a lock it held itself, every other
 * thread soon behind it (sigkids_exit: about one child in 30,000 hung).
 * So a write that has its mapping (Note [Memory for a write]) takes the
 * names' memory from a mapping, and sorts with elfsym_sort, not qsort:
 * no malloc at all.  The mapping is the write's own, or where that is
 * only the small kept room, which the encoding needs, one of their own
 * (names_map).  If the names get none, they are left to the tool.  A
 * write with no mapping at all allocates with malloc throughout, as
 * before; a handler's write then has none and writes nothing.
 *
 * Note [Names in every write]: before session 57 a write from a signal
 * handler or from _exit named no function, left to the tool, which finds
 * them in the module while it is there and unchanged: every subshell of
 * a shell (they end by _exit) and every process a signal ended had a
 * profile that was not self-contained, and a rebuilt binary left only
 * `0x176a0@busybox_unstripped` (helper-186).  Since the names take no
 * malloc and no lock (the files are opened, mapped and read; elfsym_sort,
 * not qsort), such a write names the functions as every write does.
 */
struct names {
	struct wmem own;     /* their own mapping; base NULL: none (calloc if malloc_ok) */
	struct wmem *spill;  /* the write's mapping, when it is not the kept room; or NULL */
	int malloc_ok;
	struct elfsym_mem mem; /* elfsym's access to them */
};

static void *names_alloc(void *ctx, size_t n)
{
	struct names *nm = ctx;
	void *p;

	if (nm->malloc_ok)
		return wmem_alloc(&nm->own, n);
	p = nm->own.base ? wmem_alloc(&nm->own, n) : NULL;
	/* Half the write's mapping at most: the rest is the encoding's. */
	if (p == NULL && nm->spill && nm->spill->used <= nm->spill->cap / 2 &&
	    n <= nm->spill->cap / 2 - nm->spill->used)
		p = wmem_alloc(nm->spill, n);
	return p;
}

static void names_release(void *ctx, void *p)
{
	struct names *nm = ctx;

	if (nm->malloc_ok)
		wmem_free(&nm->own, p);
}

/* What elfsym takes the tables' memory from: NULL for malloc. */
static const struct elfsym_mem *names_elfsym(const struct names *nm)
{
	return nm->malloc_ok ? NULL : &nm->mem;
}

/* With malloc (the write has no mapping: with_malloc), or from a
 * mapping (write: the write's memory, mapped): the write's own, which
 * is at least 16 MB and reserves address space, not memory; but where
 * the write has only the small kept room, which the encoding needs, a
 * mapping of their own, down to 256 KiB (the whole of libc.so's table
 * took 572 KB; helper-164).  Not one of their own beside the write's:
 * under a tight ulimit -v it took the room the ELF file's own mapping
 * needed, and the names were lost (fib linked, limits of 26, 30, 42, 74
 * and 78 MB).  Else no names. */
static void names_map(struct names *nm, int with_malloc, struct wmem *write)
{
	memset(nm, 0, sizeof *nm);
	nm->mem.alloc = names_alloc;
	nm->mem.release = names_release;
	nm->mem.ctx = nm;
	nm->malloc_ok = with_malloc;
	if (write && !write->kept) {
		nm->spill = write;
		return;
	}
	for (size_t size = WRITE_RESERVE / 4; write && size >= ((size_t)1 << 18); size /= 4)
		if ((nm->own.base = rt_map(size)) != NULL) {
			nm->own.cap = size;
			return;
		}
}

static void names_unmap(struct names *nm)
{
	if (nm->own.base)
		rt_unmap(nm->own.base, nm->own.cap);
	nm->own.base = NULL;
}

static void *heap_mem(void *ctx, size_t n)
{
	return wmem_alloc(ctx, n);
}

static void enc_free(void *ctx, void *p, size_t n)
{
	(void)n;
	wmem_free(ctx, p);
}

static void scratch_release(void *ctx, void *p)
{
	wmem_free(ctx, p);
}

/* ---- Gathering --------------------------------------------------------- */

/* shadow: what the thread's running shadow stack holds is added to it
 * (Note [Shadow memory measured] in shadow.c). */
static void gather_thread(const struct rt_thread *t, struct ccp_thread *out,
			  struct ccp_stats *st, struct wmem *m, uint64_t *shadow)
{
	const struct rt_ctx *head = RT_ACQUIRE(&t->all), *c;
	uint32_t n = head ? head->id + 1 : 0;
	uint64_t charged = 0, own = RT_LOAD(&t->own_ticks);
	int cpu = !rt_cycles && rt_config.clock == CCP_CLOCK_CPU;
	struct rt_cpu_split split;

	out->tid = t->tid;
	out->name = "";
	out->ncontexts = 0;
	/* The name copied behind the contexts: a state's name is another
	 * thread's once it is reborn, which may be before a write without
	 * the registry lock encodes it (Note [States reborn] in threads.c). */
	out->contexts = wmem_alloc(m, (n ? n : 1) * sizeof *out->contexts + sizeof t->name);
	if (out->contexts == NULL)
		return;
	out->name = memcpy(out->contexts + (n ? n : 1), t->name, sizeof t->name);
	((char *)out->contexts)[(n ? n : 1) * sizeof *out->contexts + sizeof t->name - 1] = '\0';
	out->ncontexts = n;
	if (cpu) /* Note [CPU time where it ran] in sampler.c */
		own = rt_cpu_split_begin(t, &split);
	for (c = head; c; c = c->all_next) {
		struct ccp_context *o = &out->contexts[c->id];

		o->len = c->len;
		o->hist = c->hist;
		o->entries = RT_LOAD(&c->entries);
		o->recursive = RT_LOAD(&c->recursive);
		o->time = cpu ? rt_cpu_split_time(&split, c) : RT_LOAD(&c->time);
		o->live_bytes = RT_LOAD(&c->live_bytes); /* before: never more than allocated */
		o->live_blocks = RT_LOAD(&c->live_blocks);
		__atomic_thread_fence(__ATOMIC_ACQUIRE); /* pairs with rt_alloc_note's */
		o->alloc_bytes = RT_LOAD(&c->alloc_bytes);
		o->alloc_blocks = RT_LOAD(&c->alloc_blocks);
		st->calls += o->entries + o->recursive;
		charged += o->time;
	}
	/* What rounding left, or all of it when no sample placed any (Note
	 * [Too few hits]): at the root, as Note [Short threads] in
	 * src/model/threads.c says, not where the thread happens to be as
	 * the profile is written, mostly its blocking call (helper-126). */
	if (cpu && charged < split.contexts && t->root->id < n)
		out->contexts[t->root->id].time += split.contexts - charged;
	st->contexts += n;
	if (rt_cycles)
		st->subtracted += rt_subtracted_ticks(t, charged);
	st->own_time += own;
	st->transitions += t->transitions;
	st->slow_finds += t->slow_finds;
	st->lost_calls += t->lost_calls;
	{
		uint64_t in_use, deepest;

		rt_shadow_measure(t, &in_use, &deepest);
		st->memory_bytes += t->memory_bytes;
		*shadow += in_use;
		if (deepest > st->max_depth)
			st->max_depth = deepest;
	}
	if (t->deepest_history > st->deepest_history)
		st->deepest_history = t->deepest_history;
}

/* In a signal handler the lock may be held by the code we interrupted:
 * then read without it rather than wait for ever. */
static int lock_registry(int async)
{
	if (async)
		return rt_registry_trylock();
	rt_registry_lock();
	return 1;
}

/* *inherited: each thread's rt_thread.inherited, in the profile's order. */
static int gather_threads(struct ccp_profile *p, struct wmem *m, int async, uint32_t **inherited)
{
	struct rt_thread *t, *head;
	uint32_t i = 0;
	uint64_t shadow = 0, pool;
	int locked = lock_registry(async);

	/* Without the lock (a signal handler's write), a thread may register
	 * meanwhile: both walks start from the same head, so they count the
	 * same threads (a new one goes before it, and the list from it on
	 * changes only where an ended thread's record replaces its state,
	 * which no new thread takes while the walk runs: Note [States
	 * reborn] in threads.c; the second walk stops at the count, or
	 * where the list ends). */
	if (!locked)
		rt_registry_walk_unlocked(1);
	head = rt_registry_first();
	for (t = head; t; t = t->next)
		i++;
	p->threads = wmem_alloc(m, (i ? i : 1) * sizeof *p->threads);
	*inherited = wmem_alloc(m, (i ? i : 1) * sizeof **inherited);
	if (p->threads == NULL || *inherited == NULL) {
		if (locked)
			rt_registry_unlock();
		else
			rt_registry_walk_unlocked(0);
		return -1;
	}
	/* The registry is newest first; write threads in start order. */
	p->nthreads = i;
	for (t = head; t && i > 0; t = t->next) {
		/* From a signal handler too (open, read and close): a write
		 * on SIGTERM named every live thread "(unnamed)".  Not without
		 * the lock, where an ending thread may be reading its own. */
		if (t->alive && locked)
			rt_thread_refresh_name(t);
		(*inherited)[--i] = t->inherited;
		gather_thread(t, &p->threads[i], &p->stats, m, &shadow);
	}
	/* Every shadow stack's, held by a thread or not (Note [Shadow memory
	 * measured] in shadow.c), or else the running ones'. */
	p->stats.memory_bytes += rt_shadow_pool_resident(&pool) ? pool : shadow;
	if (i > 0) { /* the list ended early: the threads gathered go first */
		p->nthreads -= i;
		memmove(p->threads, p->threads + i, p->nthreads * sizeof *p->threads);
		memmove(*inherited, *inherited + i, p->nthreads * sizeof **inherited);
	}
	p->overhead_milliticks = rt_overhead_milliticks();
	if (locked)
		rt_registry_unlock();
	else
		rt_registry_walk_unlocked(0);
	return 0;
}

/*
 * Note [Profiles without names]: names=0 writes no function's name,
 * only its module and offset, as gmon.out holds addresses only; the
 * tool names the functions from the module's file when it reads the
 * profile, if the file there is still the one that ran (its build-id:
 * symtabs.c).  Names are most of a small profile: gcc's tiny C++
 * benchmark, 222 functions, wrote 24.4 KB, 19.5 KB of them mangled
 * names, where gprof's gmon.out was 5.1 KB; 5.4 KB with names=0
 * (docs/performance.md, session 52).  The profile is then no longer
 * self-contained: read after a rebuild, or on another machine, its
 * functions are module+offset.  Manual regions keep their names, which
 * no file holds.
 *
 * Note [Names from the loaded file]: a module's file may be replaced or
 * deleted while the program runs (a rebuild, a package upgrade), and the
 * file now at its path has other functions at the offsets: names read
 * from it would be wrong, not missing.  So names come only from a file
 * that is the one loaded: its build-id must be the one the runtime read
 * in memory when it recorded the module.  The files tried, in order:
 *
 *   - for the program itself, /proc/self/exe, which is the file executed
 *     even when its path now names another or none (deleted);
 *   - for a module still loaded, /proc/self/map_files/LO-HI of its first
 *     mapping, the file mapped whatever its path says now (the kernel
 *     lets only a privileged process open these: otherwise skipped);
 *   - the recorded path.
 *
 * A module without a build-id cannot be checked that way: the first two
 * are the loaded file by construction, and the path is taken only if the
 * file there has the device, inode, size and modification time it had
 * when the module was recorded (modules.c stats it then).  A module
 * replaced before its first function was entered is recorded from the
 * new file and is not caught.  Failing all, the functions stay unnamed
 * and the tool names them later, under the same build-id rule (symtabs.c).
 */

static int same_stat(const struct rt_module *mod, const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && (uint64_t)st.st_dev == mod->dev &&
	       (uint64_t)st.st_ino == mod->ino && (uint64_t)st.st_size == mod->size &&
	       (int64_t)st.st_mtim.tv_sec == mod->mtime_sec &&
	       (int64_t)st.st_mtim.tv_nsec == mod->mtime_nsec;
}

/* The symbols at `offsets` (n, ascending, distinct) of module i, from
 * its loaded file: 0, or -1. */
static int load_names(const struct ccp_profile *p, uint32_t i, const uint64_t *offsets, size_t n,
		      struct elfsym_table *tab, const struct elfsym_mem *mem)
{
	const struct rt_module *mod = rt_module_get(i);
	const char *id = p->modules[i].build_id;
	char mapped[RT_MAP_FILES_LEN];

	if (id[0] == '\0')
		id = NULL; /* nothing to check the first two by */
	if (mod->main && elfsym_load_for_in("/proc/self/exe", id, offsets, n, tab, mem) == 0)
		return 0;
	if (!mod->retired && rt_map_files_path(mod->lo, mapped) &&
	    elfsym_load_for_in(mapped, id, offsets, n, tab, mem) == 0)
		return 0;
	if (p->modules[i].path[0] == '\0')
		return -1;
	if (id)
		return elfsym_load_for_in(p->modules[i].path, id, offsets, n, tab, mem) == 0 ? 0 : -1;
	if (mod->stat_ok && !same_stat(mod, p->modules[i].path))
		return -1;
	return elfsym_load_for_in(p->modules[i].path, "", offsets, n, tab, mem) == 0 ? 0 : -1;
}

/* A function cost centre's place: by module, then offset. */
struct cc_place {
	int32_t module;
	uint64_t offset;
};

static int by_place(const void *a, const void *b)
{
	const struct cc_place *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The places of p's function cost centres in modules, sorted, each once:
 * how many, into out (room for p->nccs). */
static size_t function_places(const struct ccp_profile *p, struct cc_place *out)
{
	size_t i, n = 0, kept = 0;

	for (i = 0; i < p->nccs; i++)
		if (p->ccs[i].kind != CCP_CC_MANUAL && p->ccs[i].module >= 0 &&
		    (uint32_t)p->ccs[i].module < p->nmodules)
			out[n++] = (struct cc_place){ p->ccs[i].module, p->ccs[i].offset };
	elfsym_sort(out, n, sizeof *out, by_place); /* qsort may call malloc */
	for (i = 0; i < n; i++)
		if (kept == 0 || by_place(&out[i], &out[kept - 1]) != 0)
			out[kept++] = out[i];
	return kept;
}

/*
 * Note [Names for the functions written]: each module's symbols are read
 * for the functions the profile names only (elfsym_load_for), not sorted
 * whole.  A forked child writes its own profile, and a shell forks
 * hundreds: bash's 4,300 symbols, sorted twice in every subshell, were a
 * fifth of what profiling a loop of subshells cost.
 */
static void load_tables(const struct ccp_profile *p, struct elfsym_table *tabs, char *loaded,
			struct names *nm)
{
	struct cc_place *places = names_alloc(nm, (p->nccs ? p->nccs : 1) * sizeof *places);
	uint64_t *offsets = names_alloc(nm, (p->nccs ? p->nccs : 1) * sizeof *offsets);
	size_t i, n, first;

	if (places == NULL || offsets == NULL) { /* the tool names them later */
		names_release(nm, places);
		names_release(nm, offsets);
		return;
	}
	n = function_places(p, places);
	for (first = 0; first < n; first = i) {
		int32_t module = places[first].module;
		size_t k = 0;

		for (i = first; i < n && places[i].module == module; i++)
			offsets[k++] = places[i].offset;
		loaded[module] = load_names(p, (uint32_t)module, offsets, k, &tabs[module],
					    names_elfsym(nm)) == 0 ? 1 : 2;
	}
	names_release(nm, places);
	names_release(nm, offsets);
}

static const char *function_name(const struct ccp_profile *p, const struct ccp_cc *cc,
				 const struct elfsym_table *tabs, const char *loaded)
{
	const char *name;

	if (cc->module < 0 || (uint32_t)cc->module >= p->nmodules || loaded[cc->module] != 1)
		return "";
	name = elfsym_find(&tabs[cc->module], cc->offset);
	return name ? name : "";
}

/*
 * Note [The program's malloc]: a normal write allocates with malloc, and
 * a program may define malloc itself, instrumented (bash does, with its
 * own allocator).  Each such call runs the hooks, and a hook that enters
 * a function from a context it never entered it from numbers it
 * (rt_cc_intern), under the cc lock: a write that allocated or read a
 * symbol table under that lock waited for itself for ever (bash's
 * subshells, which write before each exec, hung).  So the memory is
 * taken before the lock and the names looked up after it.  Numbers only
 * grow: the table is read up to the counts taken first, which cover every
 * cost centre the gathered threads name.  The table's entries move when
 * it grows, so they are copied under the lock; modules stay put.
 */

/* The modules and cost centres, gathered after the threads, so that every
 * CC a gathered history names exists, and the names of the CCs written
 * only (a forked child's, rt_prune_ccs, which copies the histories into
 * *hists), where the names have memory (Note [Names without malloc]).
 * A normal write takes the memory with the cc lock given back (Note
 * above); a write from a signal handler or _exit (async) takes the lock
 * only if it is free, and its memory is mapped, which runs no hook
 * (Note [Names in every write]). */
static int gather_ccs(struct ccp_profile *p, struct wmem *m, int async,
		      struct elfsym_table **tabsp, char **loadedp, uint32_t **hists,
		      struct names *nm)
{
	const struct rt_scratch scratch = { heap_mem, scratch_release, m };
	int locked = async ? rt_cc_trylock() : (rt_cc_lock(), 1);
	uint32_t i;

	p->nmodules = rt_module_count();
	p->nccs = rt_cc_count();
	if (!async) { /* Note [The program's malloc] */
		rt_cc_unlock();
		locked = 0;
	}
	p->modules = wmem_alloc(m, (p->nmodules + 1) * sizeof *p->modules);
	p->ccs = wmem_alloc(m, (p->nccs + 1) * sizeof *p->ccs);
	if (tabsp && rt_config.names) {
		*tabsp = names_alloc(nm, (p->nmodules + 1) * sizeof **tabsp); /* zeroed */
		*loadedp = names_alloc(nm, p->nmodules + 1);
		if (!*tabsp || !*loadedp) { /* the tool names them later */
			names_release(nm, *tabsp);
			names_release(nm, *loadedp);
			*tabsp = NULL;
			*loadedp = NULL;
		}
	}
	if (!p->modules || !p->ccs) {
		if (locked)
			rt_cc_unlock();
		return -1;
	}
	if (!async) {
		rt_cc_lock();
		locked = 1;
	}
	for (i = 0; i < p->nmodules; i++) {
		const struct rt_module *mod = rt_module_get(i);

		p->modules[i].path = mod->path ? mod->path : "";
		p->modules[i].build_id = mod->build_id;
		p->modules[i].base = mod->base;
	}
	for (i = 0; i < p->nccs; i++) {
		const struct rt_cc_info *cc = rt_cc_get(i);
		struct ccp_cc *o = &p->ccs[i];

		o->kind = cc->kind;
		o->module = cc->module;
		o->file = "";
		o->name = "";
		if (cc->kind == CCP_CC_MANUAL) {
			o->name = cc->name;
		} else {
			if (cc->module >= 0)
				o->offset = cc->key - rt_module_get((uint32_t)cc->module)->base;
			else
				o->offset = cc->key;
		}
	}
	if (locked)
		rt_cc_unlock();
	if (rt_prune_ccs(p, ccs_at_fork, &scratch, hists) != 0)
		return -1;
	if (tabsp && *tabsp) {
		load_tables(p, *tabsp, *loadedp, nm);
		for (i = 0; i < p->nccs; i++)
			if (p->ccs[i].kind != CCP_CC_MANUAL)
				p->ccs[i].name = function_name(p, &p->ccs[i], *tabsp, *loadedp);
	}
	return 0;
}

/* Time charged to overflow contexts (Note [Context budget], machine.c). */
static void count_lost_time(struct ccp_profile *p)
{
	uint32_t i, j;

	for (i = 0; i < p->nthreads; i++)
		for (j = 0; j < p->threads[i].ncontexts; j++) {
			const struct ccp_context *c = &p->threads[i].contexts[j];

			if (c->len > 0 && CCP_ENTRY_CC(c->hist[0]) < p->nccs &&
			    p->ccs[CCP_ENTRY_CC(c->hist[0])].kind == CCP_CC_OVERFLOW)
				p->stats.lost_time += c->time;
		}
}

static void fill_meta(struct ccp_profile *p)
{
	p->program = exe_path;
	p->argc = (uint32_t)nargs;
	p->argv = (const char **)args;
	p->pid = (uint64_t)getpid();
	p->start_ns = start_ns;
	p->end_ns = rt_now_ns(CLOCK_REALTIME);
	p->clock = rt_config.clock;
	p->interval_ns = rt_config.clock == CCP_CLOCK_CYCLES ? 0 : rt_config.interval_ns;
	p->ticks_per_sec = rt_config.clock == CCP_CLOCK_CYCLES ? rt_ticks_per_sec() : 1000000000u;
	p->options = rt_config.options;
	p->hostname = hostname;
	p->stats.samples = rt_sampler_samples();
	p->stats.looks = rt_sampler_looks();
}

static void release(struct ccp_profile *p, struct wmem *m, struct elfsym_table *tabs,
		    char *loaded, struct names *nm)
{
	uint32_t i;

	for (i = 0; tabs && loaded && i < p->nmodules; i++)
		if (loaded[i] == 1)
			elfsym_free(&tabs[i]);
	names_release(nm, tabs);
	names_release(nm, loaded);
	names_unmap(nm);
	if (m->base) {
		wmem_unmap(m);
		return;
	}
	for (i = 0; p->threads && i < p->nthreads; i++)
		free(p->threads[i].contexts);
	free(p->threads);
	free(p->modules);
	free(p->ccs);
	for (i = 0; p->heap.samples && i < p->heap.nsamples; i++)
		free(p->heap.samples[i].records);
	free(p->heap.samples);
}

/* Gather, encode and put in place; `async` from a signal handler;
 * `asked`: whether a seccomp filter forbids it is known. */
static int write_profile(int async, int asked)
{
	struct ccp_profile p;
	struct wmem m = { NULL, 0, 0, 0 };
	struct ccp_allocator alloc = { enc_realloc, enc_free, &m };
	const struct rt_scratch scratch = { heap_mem, scratch_release, &m };
	uint32_t *inherited = NULL, *hists = NULL;
	struct elfsym_table *tabs = NULL;
	char *loaded = NULL;
	struct names nm;
	unsigned char *buf = NULL;
	size_t len = 0;
	char path[4096 + 64];
	uint64_t heap_mark;
	int rc = -1, shared, claim;

	/* Not a process of ours: a child made without fork()'s handlers
	 * (init.c) would write its parent's file. */
	if (getpid() != rt_pid)
		return -1;
	if (!asked && rt_sandbox_forbids_write()) /* Note [Sandboxed] in sandbox.c */
		return -1;
	/* A process that ran no instrumented function writes nothing, and
	 * needs no memory for it: under `ulimit -v` a shell's _exit said it
	 * had none (helper-130, coreutils' printf-surprise). */
	if (async && rt_registry_empty())
		return -1;
	memset(&p, 0, sizeof p);
	wmem_map(&m); /* Note [Memory for a write] */
	/* Note [Names without malloc]; none under names=0 (Note [Profiles
	 * without names]). */
	names_map(&nm, !async && rt_config.names && m.base == NULL,
		  rt_config.names && m.base != NULL ? &m : NULL);
	if (async && m.base == NULL) {
		rt_warn("no memory to write the profile from a signal handler or _exit; none written");
		return -1;
	}
	if (output_path(path, sizeof path, &shared) != 0) {
		rt_warn("output path too long; no profile written");
		goto out;
	}
	fill_meta(&p);
	rt_heap_final_sample(async);
	heap_mark = rt_heap_mark(); /* Note [Samples a write takes] in heap.c */
	/* Live counts before allocated ones: never more live than allocated. */
	if (gather_threads(&p, &m, async, &inherited) != 0 ||
	    rt_heap_gather(&p, heap_mem, &m, async, heap_mark) != 0 ||
	    rt_prune_contexts(&p, inherited, &scratch) != 0) { /* after the heap's samples */
		rt_warn("out of memory; no profile written");
		goto out;
	}
	rt_alloc_gather(&p.alloc);
	/* A crash or a signal in a process that ran no instrumented function
	 * (a shell that ccprof record started) writes nothing, as its exit
	 * would (init.c). */
	if (async && p.stats.calls == 0)
		goto out;
	if (gather_ccs(&p, &m, async, &tabs, &loaded, &hists, &nm) != 0 ||
	    (count_lost_time(&p), ccp_format_encode_with(&p, &alloc, &buf, &len)) != 0) {
		rt_warn("out of memory; no profile written");
		goto out;
	}
	claim = shared && rt_config.run_start_ns;
	rc = place_profile(path, sizeof path, claim, buf, len); /* Note [At the descriptor limit] */
	if (rc != 0)
		warn_cannot_write(path, errno);
	else if (rt_config.verbose)
		rt_warn("profile written to %s", path);
out:
	if (m.base == NULL)
		free(buf);
	wmem_free(&m, hists);
	wmem_free(&m, inherited);
	release(&p, &m, tabs, loaded, &nm);
	return rc;
}

/* open, write and close are cancellation points: cancellation waits for
 * the write (Note [Cancellation] in cancel.c). */
static int dump(int asked)
{
	int cancel = rt_nocancel_begin();
	int rc;

	rt_quiet_lock(&dump_lock);
	rt_alloc_own_begin(); /* Note [The runtime's own allocations] */
	rc = write_profile(0, asked);
	rt_alloc_own_end();
	rt_quiet_unlock(&dump_lock);
	rt_nocancel_end(cancel);
	return rc;
}

/*
 * Note [A write on a small stack]: the write takes some 20 KB of stack,
 * and exit(), exec or ccprof_dump() may come from a thread made with less
 * (PTHREAD_STACK_MIN, 16 KB): a worker that called exit(3) died by
 * SIGSEGV in the write, with no profile, where bare it exited 3
 * (tests/progs/smallexit.c).  So where under STACK_NEED is left below
 * the caller, the write runs on the stack the crash handler moves to
 * (Note [A small alternate stack] in signals.c), signals held meanwhile,
 * as the write's lock holds them anyway.
 */
struct dump_call {
	int asked, rc;
};

static void dump_there(void *arg)
{
	struct dump_call *d = arg;

	d->rc = dump(d->asked);
}

static int dump_with_room(int asked)
{
	struct dump_call d = { asked, -1 };

	if (!rt_short_of_stack())
		return dump(asked);
	rt_on_own_stack(dump_there, &d);
	return d.rc;
}

int rt_dump(void)
{
	return dump_with_room(0);
}

int rt_dump_sandbox_asked(void)
{
	return dump_with_room(1);
}

/* From a signal handler: async-signal-safe calls only (Note above).
 * Cancellation waits for the write here too (Note [Cancellation] in
 * cancel.c, which says why pthread_setcancelstate will do in a handler). */
int rt_dump_async(void)
{
	int cancel = rt_nocancel_begin();
	int locked = rt_quiet_trylock(&dump_lock);
	int rc;

	rt_alloc_own_begin();
	rc = write_profile(1, 0);
	rt_alloc_own_end();

	if (locked)
		rt_quiet_unlock(&dump_lock);
	rt_nocancel_end(cancel);
	return rc;
}
