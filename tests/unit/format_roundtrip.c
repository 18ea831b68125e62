/*
 * format_roundtrip.c - encode a hand-built profile, decode it, compare
 * every field, encode again and compare bytes: a write, read and write
 * again must give the same bytes.  Also:
 * the documented byte-level example, an empty profile, file I/O, a large
 * profile, and the writer's refusal of inconsistent profiles.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"
#include "unit/check.h"

#define E(cc, m) CCP_ENTRY(cc, m)
#define LEN(a) (uint32_t)(sizeof(a) / sizeof(a)[0])

/* ---- comparison ------------------------------------------------------------- */

static int str_eq(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

static int ctx_eq(const struct ccp_context *a, const struct ccp_context *b)
{
	if (a->len != b->len || a->entries != b->entries || a->recursive != b->recursive ||
	    a->time != b->time || a->alloc_bytes != b->alloc_bytes ||
	    a->alloc_blocks != b->alloc_blocks || a->live_bytes != b->live_bytes ||
	    a->live_blocks != b->live_blocks)
		return 0;
	return a->len == 0 || memcmp(a->hist, b->hist, a->len * sizeof *a->hist) == 0;
}

static int thread_eq(const struct ccp_thread *a, const struct ccp_thread *b)
{
	if (a->tid != b->tid || !str_eq(a->name, b->name) || a->ncontexts != b->ncontexts)
		return 0;
	for (uint32_t i = 0; i < a->ncontexts; i++)
		if (!ctx_eq(&a->contexts[i], &b->contexts[i]))
			return 0;
	return 1;
}

static int heap_eq(const struct ccp_heap *a, const struct ccp_heap *b)
{
	if (a->measured != b->measured || a->interval_ns != b->interval_ns ||
	    a->peak_bytes != b->peak_bytes || a->outside_live_bytes != b->outside_live_bytes ||
	    a->outside_live_blocks != b->outside_live_blocks || a->nsamples != b->nsamples)
		return 0;
	for (uint32_t k = 0; k < a->nsamples; k++) {
		const struct ccp_heap_sample *x = &a->samples[k], *y = &b->samples[k];
		if (x->time_ns != y->time_ns || x->outside_bytes != y->outside_bytes ||
		    x->nrecords != y->nrecords ||
		    (x->nrecords &&
		     memcmp(x->records, y->records, x->nrecords * sizeof *x->records) != 0))
			return 0;
	}
	return 1;
}

/* Field by field, one check line per part, so a failure says where. */
static void compare(const struct ccp_profile *a, const struct ccp_profile *b, const char *what)
{
	int meta = str_eq(a->program, b->program) && a->argc == b->argc && a->pid == b->pid &&
		   a->start_ns == b->start_ns && a->end_ns == b->end_ns && a->clock == b->clock &&
		   a->interval_ns == b->interval_ns && a->ticks_per_sec == b->ticks_per_sec &&
		   a->overhead_milliticks == b->overhead_milliticks &&
		   str_eq(a->options, b->options) && str_eq(a->hostname, b->hostname);
	for (uint32_t i = 0; meta && i < a->argc; i++)
		meta = str_eq(a->argv[i], b->argv[i]);
	CHECK(meta, "%s: meta fields equal", what);

	int mods = a->nmodules == b->nmodules;
	for (uint32_t i = 0; mods && i < a->nmodules; i++)
		mods = str_eq(a->modules[i].path, b->modules[i].path) &&
		       str_eq(a->modules[i].build_id, b->modules[i].build_id) &&
		       a->modules[i].base == b->modules[i].base;
	CHECK(mods, "%s: modules equal (%u)", what, a->nmodules);

	int ccs = a->nccs == b->nccs;
	for (uint32_t i = 0; ccs && i < a->nccs; i++) {
		const struct ccp_cc *x = &a->ccs[i], *y = &b->ccs[i];
		ccs = x->kind == y->kind && str_eq(x->name, y->name) && x->module == y->module &&
		      x->offset == y->offset && str_eq(x->file, y->file) && x->line == y->line;
	}
	CHECK(ccs, "%s: cost centres equal (%u)", what, a->nccs);

	int th = a->nthreads == b->nthreads;
	for (uint32_t i = 0; th && i < a->nthreads; i++)
		th = thread_eq(&a->threads[i], &b->threads[i]);
	CHECK(th, "%s: threads and contexts equal (%u threads)", what, a->nthreads);

	CHECK(memcmp(&a->stats, &b->stats, sizeof a->stats) == 0, "%s: stats equal", what);
	CHECK(a->alloc.measured == b->alloc.measured &&
	      a->alloc.outside_bytes == b->alloc.outside_bytes &&
	      a->alloc.outside_blocks == b->alloc.outside_blocks,
	      "%s: allocation totals equal", what);
	CHECK(heap_eq(&a->heap, &b->heap), "%s: heap parts equal (%u samples)", what,
	      a->heap.nsamples);
}

/* encode -> decode -> compare -> encode -> same bytes. */
static void roundtrip(const struct ccp_profile *p, const char *what)
{
	unsigned char *b1 = NULL, *b2 = NULL;
	size_t n1 = 0, n2 = 0;
	char err[128];
	struct ccp_profile q;
	/* CHECK evaluates its condition twice: no side effects inside it. */
	int rc = ccp_format_encode(p, &b1, &n1);
	CHECK(rc == 0, "%s: encodes (%zu bytes)", what, n1);
	rc = rc ? rc : ccp_format_decode(b1, n1, &q, err, sizeof err);
	CHECK(rc == 0, "%s: decodes (%s)", what, rc ? err : "no error");
	if (rc == 0) {
		compare(p, &q, what);
		int rc2 = ccp_format_encode(&q, &b2, &n2);
		CHECK(rc2 == 0, "%s: re-encodes", what);
		CHECK(n1 == n2 && memcmp(b1, b2, n1) == 0, "%s: re-encoding gives identical bytes",
		      what);
		CHECK(q.argv && q.argv[q.argc] == NULL, "%s: decoded argv is NULL-terminated",
		      what);
		ccp_profile_free(&q);
		CHECK(q.arena == NULL && q.nthreads == 0, "%s: free clears the profile", what);
	}
	free(b1);
	free(b2);
}

/* ---- the sample profile --------------------------------------------------------- */

enum { MAIN, P, Q, R, S, WORK, REGION, OVERFLOW, STRLEN, WORKER, NCCS };

/* Spivey's mutual recursion, docs/semantics.md: the 8 contexts for n >= 2. */
static uint32_t sp1[] = {E(MAIN, 1)};
static uint32_t sp2[] = {E(MAIN, 1), E(P, 1)};
static uint32_t sp3[] = {E(MAIN, 1), E(P, 1), E(Q, 1)};
static uint32_t sp4[] = {E(MAIN, 1), E(P, 1), E(Q, 1), E(R, 1)};
static uint32_t sp5[] = {E(MAIN, 1), E(P, 0), E(Q, 1), E(R, 1), E(P, 1)};
static uint32_t sp6[] = {E(MAIN, 1), E(P, 0), E(Q, 0), E(R, 1), E(P, 1), E(Q, 1)};
static uint32_t sp7[] = {E(MAIN, 1), E(P, 0), E(R, 0), E(P, 1), E(Q, 1), E(R, 1)};
static uint32_t sp8[] = {E(MAIN, 1), E(P, 0), E(Q, 1), E(R, 1), E(P, 1), E(S, 1)};
static uint32_t ov[] = {E(MAIN, 1), E(OVERFLOW, 1)};
static uint32_t rg[] = {E(MAIN, 1), E(REGION, 1), E(STRLEN, 1)};

static uint32_t w1[] = {E(WORKER, 1)};
static uint32_t w2[] = {E(WORKER, 1), E(WORK, 1)};
static uint32_t w3[] = {E(WORKER, 1), E(WORK, 0), E(STRLEN, 0), E(WORK, 1), E(STRLEN, 1)};

#define CTX(h, e, r, t) {LEN(h), h, e, r, t, 0, 0, 0, 0}

static struct ccp_context main_ctx[] = {
	{0, NULL, 1, 0, 3, 0, 0, 0, 0}, /* the root context */
	CTX(sp1, 1, 0, 10),
	CTX(sp2, 1, 0, 20),
	CTX(sp3, 5, 0, 30),
	CTX(sp4, 5, 2, 40),
	CTX(sp5, 4, 0, 50),
	CTX(sp6, 4, 0, 60),
	CTX(sp7, 4, 0, 70),
	CTX(sp8, 1, 0, 80),
	CTX(ov, 1, 0, (uint64_t)1 << 62), /* 10-byte varints; the totals stay below 2^64 */
	CTX(rg, 7, 3, (uint64_t)1 << 63),
};

static struct ccp_context worker_ctx[] = {
	CTX(w1, 1, 0, 0),
	CTX(w2, (uint64_t)1 << 63, ((uint64_t)1 << 62) - 1, 12345678901234567ull),
	CTX(w3, 300, 128, 16384),
	CTX(w2, 0, 0, 1), /* shared prefix shorter than the previous history */
};

static struct ccp_module modules[] = {
	{"/usr/bin/demo", "0123456789abcdef0123456789abcdef01234567", 0x555555554000ull},
	{"/lib/x86_64-linux-gnu/libc.so.6", "", 0x7ffff7dd0000ull},
	{"", "", UINT64_MAX}, /* unknown module */
};

static struct ccp_cc ccs[NCCS] = {
	[MAIN] = {CCP_CC_FUNCTION, "main", 0, 0x1139, "demo.c", 40},
	[P] = {CCP_CC_FUNCTION, "P", 0, 0x1200, "demo.c", 10},
	[Q] = {CCP_CC_FUNCTION, "Q", 0, 0x1240, "demo.c", 15},
	[R] = {CCP_CC_FUNCTION, "R", 0, 0x1280, "demo.c", 20},
	[S] = {CCP_CC_FUNCTION, "S", 0, 0x12c0, "demo.c", 25},
	[WORK] = {CCP_CC_FUNCTION, "work", 0, UINT64_MAX, "", UINT32_MAX},
	[REGION] = {CCP_CC_MANUAL, "parse phase \xc3\xa9t\xc3\xa9", -1, 0, "", 0},
	[OVERFLOW] = {CCP_CC_OVERFLOW, "<overflow>", -1, 0, "", 0},
	[STRLEN] = {CCP_CC_FUNCTION, "", 1, 0x9f3a0, "", 0}, /* unresolved */
	[WORKER] = {CCP_CC_FUNCTION, "P", 2, 77, "demo.c", 10}, /* same name, other CC */
};

static struct ccp_thread threads[] = {
	{4242, "", LEN(main_ctx), main_ctx},
	{UINT64_MAX, "worker-1", LEN(worker_ctx), worker_ctx},
};

static const char *argv_[] = {"./demo", "--n", "1000", "demo.c"};

static struct ccp_profile sample(void)
{
	struct ccp_profile p = {
		.program = "/usr/bin/demo",
		.argc = LEN(argv_),
		.argv = argv_,
		.pid = 31337,
		.start_ns = 1700000000123456789ull,
		.end_ns = 1700000001987654321ull,
		.clock = CCP_CLOCK_CYCLES,
		.interval_ns = 1000000,
		.ticks_per_sec = 2995200000ull,
		.overhead_milliticks = 41250,
		.options = "clock=cycles,output=demo.ccprof",
		.hostname = "build-01",
		.nmodules = LEN(modules),
		.modules = modules,
		.nccs = NCCS,
		.ccs = ccs,
		.nthreads = LEN(threads),
		.threads = threads,
		.stats = {UINT64_MAX, 15, 19, 6, 1ull << 40, 123456789, 0, 7, 1ull << 63, 3, 0, 0, 0},
	};
	return p;
}

/* ---- the example printed in docs/format.md ------------------------------------- */

/* main() calls f() once; one thread, no modules resolved. */
static const unsigned char tiny_bytes[] = {
	0x89, 0x43, 0x43, 0x50, 0x0d, 0x0a, 0x1a, 0x0a, 0x01, 0x00, 0x10, 0x00, 0x01, 0x02,
	0x03, 0x04, 0x01, 0x0d, 0x04, 0x00, 0x03, 0x2e, 0x2f, 0x74, 0x04, 0x6d, 0x61, 0x69,
	0x6e, 0x01, 0x66, 0x02, 0x0c, 0x01, 0x01, 0x01, 0x2a, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x03, 0x01, 0x00, 0x04, 0x0d, 0x02, 0x00, 0x02, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x05, 0x0f, 0x07, 0x00, 0x02, 0x00, 0x01,
	0x01, 0x01, 0x00, 0x01, 0x01, 0x01, 0x03, 0x01, 0x00, 0x01, 0x06, 0x15, 0x0a, 0x01,
	0x00, 0x02, 0x00, 0x03, 0x00, 0x04, 0x00, 0x05, 0x00, 0x06, 0x00, 0x07, 0x00, 0x08,
	0x00, 0x09, 0x00, 0x0a, 0x00, 0x00, 0x04, 0xa1, 0xa0, 0x9b, 0x56,
};

static void tiny_example(void)
{
	static uint32_t h1[] = {E(0, 1)};
	static uint32_t h2[] = {E(0, 1), E(1, 1)};
	static struct ccp_context ctx[] = {CTX(h1, 1, 0, 1), CTX(h2, 1, 0, 1)};
	static struct ccp_cc cc[] = {
		{CCP_CC_FUNCTION, "main", -1, 0, "", 0},
		{CCP_CC_FUNCTION, "f", -1, 0, "", 0},
	};
	static struct ccp_thread th[] = {{7, "", 2, ctx}};
	static const char *av[] = {"./t"};
	struct ccp_profile p = {.program = "./t", .argc = 1, .argv = av, .pid = 42,
				.nccs = 2, .ccs = cc, .nthreads = 1, .threads = th};
	unsigned char *b;
	size_t n;
	if (ccp_format_encode(&p, &b, &n) != 0) {
		CHECK(0, "tiny example encodes");
		return;
	}
	if (getenv("FORMAT_DUMP_TINY")) /* how docs/format.md's hexdump was made */
		fwrite(b, 1, n, stderr);
	CHECK(n == sizeof tiny_bytes && memcmp(b, tiny_bytes, n) == 0,
	      "tiny example matches the bytes in docs/format.md (%zu bytes)", n);
	roundtrip(&p, "tiny example");
	free(b);
}

/* ---- other cases ---------------------------------------------------------------- */

static void empty_profile(void)
{
	struct ccp_profile p = {0}; /* NULL strings, no threads, no anything */
	roundtrip(&p, "empty profile");
	unsigned char *b;
	size_t n;
	struct ccp_profile q;
	char err[128];
	if (ccp_format_encode(&p, &b, &n) == 0 && ccp_format_decode(b, n, &q, err, sizeof err) == 0) {
		CHECK(q.program && q.program[0] == 0 && q.hostname && q.options,
		      "empty profile: NULL strings come back as \"\"");
		CHECK(q.nthreads == 0 && q.nccs == 0 && q.nmodules == 0,
		      "empty profile: no threads, CCs or modules");
		ccp_profile_free(&q);
		free(b);
	}
}

/* Same content in different memory must give the same bytes. */
static void determinism(void)
{
	struct ccp_profile p = sample();
	struct ccp_cc copy[NCCS];
	char names[NCCS][64];
	memcpy(copy, ccs, sizeof copy);
	for (int i = 0; i < NCCS; i++) {
		snprintf(names[i], sizeof names[i], "%s", ccs[i].name);
		copy[i].name = names[i];
	}
	p.ccs = copy;
	unsigned char *a, *b;
	size_t na, nb;
	struct ccp_profile orig = sample();
	int ok = ccp_format_encode(&orig, &a, &na) == 0 && ccp_format_encode(&p, &b, &nb) == 0;
	CHECK(ok && na == nb && memcmp(a, b, na) == 0,
	      "same content at other addresses encodes to the same bytes");
	if (ok) {
		free(a);
		free(b);
	}
}

/* ccp_format_peek_pid (the runtime's, from a signal handler): pid and
 * start of a written profile, with 3000 arguments so that META spans
 * many of its reads; -1 for a file cut inside META and for no profile. */
static void peek(const char *path, const struct ccp_profile *p)
{
	static const char *many[3000];
	struct ccp_profile big = *p;
	uint64_t pid = 0, start = 0;
	int fd = open(path, O_RDONLY), rc;
	unsigned char *b;
	size_t n;

	rc = ccp_format_peek_pid(fd, &pid, &start);
	CHECK(rc == 0 && pid == p->pid && start == p->start_ns,
	      "peek: pid %llu, start %llu", (unsigned long long)pid, (unsigned long long)start);
	close(fd);
	for (size_t i = 0; i < 3000; i++)
		many[i] = i % 2 ? "an argument" : "another";
	big.argc = 3000;
	big.argv = many;
	big.pid = 1234567;
	fd = open(path, O_RDWR | O_TRUNC);
	rc = fd >= 0 ? ccp_format_write_fd(&big, fd) : -1;
	rc |= ccp_format_peek_pid(fd, &pid, &start);
	CHECK(rc == 0 && pid == 1234567 && start == p->start_ns,
	      "peek: pid %llu after 3000 arguments", (unsigned long long)pid);
	if (ccp_format_encode(&big, &b, &n) == 0) {
		rc = ftruncate(fd, (off_t)(n / 2 > 16 + 3000 ? 16 + 3000 : n / 2));
		CHECK(rc == 0 && ccp_format_peek_pid(fd, &pid, &start) == -1,
		      "peek: a file cut inside META is no profile");
		free(b);
	}
	close(fd);
	fd = open("/dev/null", O_RDONLY);
	CHECK(ccp_format_peek_pid(fd, &pid, &start) == -1, "peek: /dev/null is no profile");
	close(fd);
}

static void file_io(void)
{
	char path[] = "/tmp/ccprof-format-XXXXXX";
	int fd = mkstemp(path);
	struct ccp_profile p = sample(), q;
	char err[128];
	int rc = fd >= 0 ? ccp_format_write_fd(&p, fd) : -1;
	CHECK(rc == 0, "write_fd writes the sample");
	if (fd >= 0)
		close(fd);
	rc = ccp_format_read_file(path, &q, err, sizeof err);
	CHECK(rc == 0, "read_file reads it back (%s)", rc ? err : "no error");
	if (rc == 0) {
		compare(&p, &q, "file");
		ccp_profile_free(&q);
	}
	peek(path, &p);
	unlink(path);
	rc = ccp_format_read_file(path, &q, err, sizeof err);
	CHECK(rc == -1 && strcmp(err, "No such file or directory") == 0,
	      "missing file: \"%s\"", err);
	rc = ccp_format_read_file("/tmp", &q, err, sizeof err);
	CHECK(rc == -1 && strcmp(err, "Is a directory") == 0, "directory: \"%s\"", err);
	rc = ccp_format_read_file("/dev/null", &q, err, sizeof err);
	CHECK(rc == -1 && strcmp(err, "empty file") == 0, "/dev/null: \"%s\"", err);
	rc = ccp_format_write_fd(&p, -1);
	CHECK(rc == -1 && errno == EBADF, "write_fd to a bad fd fails with EBADF");
}

/* 100k functions with distinct names, 50k contexts: the hash table and the
 * arena at a realistic size. */
static void large(void)
{
	enum { N = 100000, NC = 50000 };
	struct ccp_cc *cc = calloc(N, sizeof *cc);
	char(*names)[16] = calloc(N, sizeof *names);
	struct ccp_context *ctx = calloc(NC, sizeof *ctx);
	uint32_t *hist = calloc((size_t)NC * 3, sizeof *hist);
	for (uint32_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "fn_%u", i);
		cc[i] = (struct ccp_cc){CCP_CC_FUNCTION, names[i], 0, 16u * i, "big.c", i % 7};
	}
	for (uint32_t i = 0; i < NC; i++) {
		uint32_t *h = hist + 3 * i;
		h[0] = E(0, 1);
		h[1] = E(1 + i / 100, 1);
		h[2] = E(1000 + i, 1);
		ctx[i] = (struct ccp_context){3, h, i, 0, (uint64_t)i * i, 0, 0, 0, 0};
	}
	struct ccp_module m = {"big", "", 0};
	struct ccp_thread th = {1, "main", NC, ctx};
	struct ccp_profile p = {.nmodules = 1, .modules = &m, .nccs = N, .ccs = cc,
				.nthreads = 1, .threads = &th};
	roundtrip(&p, "100k cost centres");
	free(cc);
	free(names);
	free(ctx);
	free(hist);
}

/* Calls or time adding up past 2^64, within a context or across threads,
 * are refused; 2^64 - 1 in all is written and read back. */
static void totals_past_2_64(void)
{
	static uint32_t h[] = {E(MAIN, 1)};
	static const struct {
		const char *what;
		uint64_t e0, r0, t0, e1, t1;
		int ok;
	} cases[] = {
		{"calls adding up to 2^64 - 1", UINT64_MAX - 1, 0, 0, 1, 0, 1},
		{"time adding up to 2^64 - 1", 0, 0, UINT64_MAX, 0, 0, 1},
		{"entries + recursive past 2^64", UINT64_C(1) << 63, UINT64_C(1) << 63, 0, 0, 0, 0},
		{"calls past 2^64 across threads", UINT64_MAX, 0, 0, 1, 0, 0},
		{"time past 2^64 across threads", 0, 0, UINT64_C(1) << 63, 0, UINT64_C(1) << 63, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ccp_context c0 = {1, h, cases[i].e0, cases[i].r0, cases[i].t0, 0, 0, 0, 0};
		struct ccp_context c1 = {1, h, cases[i].e1, 0, cases[i].t1, 0, 0, 0, 0};
		struct ccp_thread t[2] = {{1, "", 1, &c0}, {2, "", 1, &c1}};
		struct ccp_profile p = sample();
		p.nthreads = 2;
		p.threads = t;
		unsigned char *b = NULL;
		size_t n = 0;
		errno = 0;
		int rc = ccp_format_encode(&p, &b, &n);
		if (cases[i].ok) {
			struct ccp_profile q;
			char err[200];
			CHECK(rc == 0 && ccp_format_decode(b, n, &q, err, sizeof err) == 0,
			      "%s: written and read back", cases[i].what);
			if (rc == 0)
				ccp_profile_free(&q);
		} else {
			CHECK(rc == -1 && errno == EINVAL, "encoder refuses %s (EINVAL)",
			      cases[i].what);
		}
		free(rc == 0 ? b : NULL);
	}
}

/* The writer refuses what the reader would refuse. */
static void rejects(void)
{
	static uint32_t twice[] = {E(MAIN, 1), E(P, 1), E(MAIN, 1)};
	static uint32_t unmarked[] = {E(MAIN, 1), E(P, 0)};
	static uint32_t badcc[] = {E(NCCS, 1)};
	static const struct {
		const char *what;
		uint32_t len;
		uint32_t *hist;
	} bad[] = {
		{"a CC marked twice", LEN(twice), twice},
		{"an unmarked running CC", LEN(unmarked), unmarked},
		{"a CC index out of range", LEN(badcc), badcc},
		{"a NULL history with length 1", 1, NULL},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct ccp_context c = {bad[i].len, bad[i].hist, 1, 0, 1, 0, 0, 0, 0};
		struct ccp_thread t = {1, "", 1, &c};
		struct ccp_profile p = sample();
		p.nthreads = 1;
		p.threads = &t;
		unsigned char *b = (unsigned char *)"x";
		size_t n = 1;
		errno = 0;
		int rc = ccp_format_encode(&p, &b, &n);
		CHECK(rc == -1 && errno == EINVAL && b == NULL && n == 0,
		      "encoder refuses %s (EINVAL)", bad[i].what);
	}
	struct ccp_profile p = sample();
	struct ccp_cc c[NCCS];
	memcpy(c, ccs, sizeof c);
	p.ccs = c;
	unsigned char *b;
	size_t n;
	c[P].module = 3;
	int rc = ccp_format_encode(&p, &b, &n);
	CHECK(rc == -1 && errno == EINVAL,
	      "encoder refuses a module index out of range");
	c[P].module = 0;
	c[P].kind = 3;
	rc = ccp_format_encode(&p, &b, &n);
	CHECK(rc == -1 && errno == EINVAL,
	      "encoder refuses an unknown CC kind");
	c[P].kind = 0;
	p.clock = 3;
	rc = ccp_format_encode(&p, &b, &n);
	CHECK(rc == -1 && errno == EINVAL,
	      "encoder refuses an unknown clock");
	p.clock = 0;
	totals_past_2_64();
}

/* STATS keys 11 (clock=cycles' subtracted ticks), 12 (the runs a
 * merged profile holds), 13 (the runtime's own time), 14 (the samples'
 * looks) and 15 (slow finds) are written only when not 0: the other
 * files keep the ten keys they always had (the tiny example).  Set to
 * value, the key takes `bytes` more. */
static void optional_key(struct ccp_profile *p, uint64_t *field, uint64_t value, int key,
			 size_t bytes)
{
	unsigned char *b1 = NULL, *b2 = NULL;
	size_t n1 = 0, n2 = 0;
	uint64_t saved = *field;
	*field = 0;
	int rc = ccp_format_encode(p, &b1, &n1);
	*field = value;
	rc |= ccp_format_encode(p, &b2, &n2);
	CHECK(rc == 0 && n2 == n1 + bytes, "STATS key %d takes %zu bytes when set (%zu -> %zu)",
	      key, bytes, n1, n2);
	roundtrip(p, key == 11   ? "sample with subtracted"
		     : key == 12 ? "sample with merged"
		     : key == 13 ? "sample with own time"
		     : key == 14 ? "sample with looks"
		     : key == 15 ? "sample with slow finds"
				 : "sample with untracked allocations");
	*field = saved;
	free(b1);
	free(b2);
}

/* ALLOC (format.md 3.7): written only for a run that counted
 * allocations, one record per context that allocated. */
static void alloc_section(struct ccp_profile *p)
{
	unsigned char *b0 = NULL, *b1 = NULL, *b2 = NULL;
	size_t n0 = 0, n1 = 0, n2 = 0;
	struct ccp_context *saved = p->threads[0].contexts, copy[LEN(main_ctx)];
	memcpy(copy, saved, sizeof copy);
	p->threads[0].contexts = copy;
	int rc = ccp_format_encode(p, &b0, &n0);
	p->alloc.measured = 1;
	rc |= ccp_format_encode(p, &b1, &n1);
	/* tag and length, then 0 bytes, 0 blocks and 0 records outside: 5 bytes. */
	CHECK(rc == 0 && n1 == n0 + 5, "ALLOC of a run that allocated nothing: 5 bytes (%zu -> %zu)",
	      n0, n1);
	roundtrip(p, "measured, nothing allocated");
	p->alloc.outside_bytes = 4000;
	p->alloc.outside_blocks = 3;
	copy[0].alloc_bytes = 16; /* the root context */
	copy[0].alloc_blocks = 1;
	copy[4].alloc_bytes = 0; /* malloc(0) */
	copy[4].alloc_blocks = 5;
	copy[8].alloc_bytes = (uint64_t)1 << 62;
	copy[8].alloc_blocks = 1;
	roundtrip(p, "allocations in three contexts");
	copy[9].alloc_bytes = (uint64_t)1 << 63;
	copy[9].alloc_blocks = 1;
	copy[10].alloc_bytes = (uint64_t)1 << 62; /* the sum reaches 2^64 */
	copy[10].alloc_blocks = 1;
	errno = 0;
	rc = ccp_format_encode(p, &b2, &n2);
	CHECK(rc == -1 && errno == EINVAL, "encoder refuses allocations adding up past 2^64");
	p->alloc = (struct ccp_alloc){0, 0, 0};
	p->threads[0].contexts = saved;
	free(b0);
	free(b1);
}

/* HEAP (format.md 3.8): the live heap at the write and the samples,
 * only with ALLOC; the encoder refuses what a reader would. */
static void heap_section(struct ccp_profile *p)
{
	unsigned char *b = NULL;
	size_t n = 0;
	struct ccp_context *saved = p->threads[0].contexts, copy[LEN(main_ctx)];
	struct ccp_heap_record r0[] = {{0, 1, 300}, {0, 8, 1000}}, r1[] = {{0, 8, 1500}};
	struct ccp_heap_sample s[] = {{0, 0, 0, NULL}, {5000000, 40, 2, r0}, {5000000, 0, 1, r1}};
	memcpy(copy, saved, sizeof copy);
	p->threads[0].contexts = copy;
	p->alloc = (struct ccp_alloc){1, 4000, 3};
	copy[1].alloc_bytes = 300;
	copy[1].alloc_blocks = 2;
	copy[8].alloc_bytes = 2000;
	copy[8].alloc_blocks = 4;
	p->heap = (struct ccp_heap){1, 10000000, 1540, 40, 1, 0, NULL};
	roundtrip(p, "heap without samples");
	copy[8].live_bytes = 1500;
	copy[8].live_blocks = 3;
	copy[1].live_blocks = 1; /* malloc(0) */
	p->heap.nsamples = 3;
	p->heap.samples = s;
	roundtrip(p, "heap with three samples, two at one time");

	struct {
		const char *what;
		uint64_t *field, bad;
	} refused[] = {
		{"live above allocated", &copy[8].live_bytes, 2001},
		{"live blocks above allocated", &copy[8].live_blocks, 5},
		{"final total above the peak", &copy[8].live_bytes, 1501},
		{"a sample above the peak", &r0[1].bytes, 1201},
		{"a sample above what its context allocated", &r1[0].bytes, 2001},
		{"an empty sample record", &r0[0].bytes, 0},
		{"samples out of time order", &s[2].time_ns, 1},
		{"outside live above outside allocated", &p->heap.outside_live_bytes, 4001},
		{"interval 0", &p->heap.interval_ns, 0},
	};
	for (size_t i = 0; i < LEN(refused); i++) {
		uint64_t was = *refused[i].field;
		*refused[i].field = refused[i].bad;
		errno = 0;
		int rc = ccp_format_encode(p, &b, &n);
		CHECK(rc == -1 && errno == EINVAL, "encoder refuses %s", refused[i].what);
		*refused[i].field = was;
	}
	p->heap.measured = 1;
	p->alloc.measured = 0;
	errno = 0;
	CHECK(ccp_format_encode(p, &b, &n) == -1 && errno == EINVAL,
	      "encoder refuses a heap part without allocation data");
	p->alloc = (struct ccp_alloc){0, 0, 0};
	p->heap = (struct ccp_heap){0};
	p->threads[0].contexts = saved;
}

int main(void)
{
	struct ccp_profile p = sample();
	alloc_section(&p);
	heap_section(&p);
	roundtrip(&p, "sample");
	optional_key(&p, &p.stats.subtracted, 300, 11, 3); /* a 2-byte varint after the key */
	optional_key(&p, &p.stats.merged, 3, 12, 2);
	optional_key(&p, &p.stats.own_time, 5000, 13, 3);
	optional_key(&p, &p.stats.looks, 36000, 14, 4); /* a 3-byte varint */
	optional_key(&p, &p.stats.slow_finds, 265672, 15, 4); /* a 3-byte varint */
	optional_key(&p, &p.stats.untracked_allocs, 17270, 16, 4); /* a 3-byte varint */
	tiny_example();
	empty_profile();
	determinism();
	file_io();
	large();
	rejects();
	return check_failures != 0;
}
