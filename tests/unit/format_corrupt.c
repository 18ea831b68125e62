/*
 * format_corrupt.c - the reader against damaged and hostile input.
 *
 * Every prefix of a valid file, every single-bit flip of it, a run of
 * random mutations, and hand-made files that each break one rule.  Built
 * with -fsanitize=address,undefined this also proves the reader never
 * reads out of bounds: every input lives in a malloc'd block of exactly its
 * own size.  What must hold: decoding fails with a message, or (with the
 * checksum off) succeeds with a profile the writer accepts.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "format/wire.h"
#include "unit/check.h"

#define E(cc, m) CCP_ENTRY(cc, m)

/* Decode a copy of exactly n bytes (so ASan sees any overread).  Returns
 * the decoder's result; err gets its message.  A successful decode must
 * re-encode: the writer accepts whatever the reader accepts. */
static int try_decode(const unsigned char *b, size_t n, unsigned flags, char *err, size_t errlen,
		      int *reencode_failed)
{
	unsigned char *copy = malloc(n ? n : 1);
	if (n)
		memcpy(copy, b, n);
	struct ccp_profile p;
	int rc = ccp_format_decode_flags(copy, n, &p, err, errlen, flags);
	free(copy);
	if (rc == 0) {
		unsigned char *out;
		size_t len;
		if (ccp_format_encode(&p, &out, &len) != 0)
			++*reencode_failed;
		else
			free(out);
		ccp_profile_free(&p);
	}
	return rc;
}

/* ---- a valid file to damage --------------------------------------------------- */

static uint32_t h1[] = {E(0, 1)};
static uint32_t h2[] = {E(0, 1), E(1, 1)};
static uint32_t h3[] = {E(0, 1), E(1, 1), E(2, 1)};
static uint32_t h4[] = {E(0, 1), E(1, 0), E(2, 1), E(1, 1)};
static uint32_t h5[] = {E(0, 1), E(1, 0), E(2, 1), E(1, 1), E(3, 1)};

static unsigned char *valid_file(size_t *n)
{
	static struct ccp_context c1[] = {
		{0, NULL, 1, 0, 2, 0, 0, 0, 0}, {1, h1, 1, 0, 10, 4096, 2, 0, 0},  {2, h2, 3, 1, 20, 0, 0, 0, 0},
		{3, h3, 2, 0, 300, 0, 1, 0, 0}, {4, h4, 1, 0, 40, 1ull << 40, 300, 0, 0}, {5, h5, 1, 0, 1ull << 40, 0, 0, 0, 0},
	};
	static struct ccp_context c2[] = {{2, h2, 9, 0, 9, 7, 7, 0, 0}, {1, h1, 1, 0, 1, 0, 0, 0, 0}};
	static struct ccp_thread th[] = {{100, "", 6, c1}, {101, "w", 2, c2}};
	static struct ccp_module m[] = {{"/bin/t", "abcd", 0x400000}};
	static struct ccp_cc cc[] = {
		{CCP_CC_FUNCTION, "main", 0, 0x10, "t.c", 3},
		{CCP_CC_FUNCTION, "f", 0, 0x20, "t.c", 9},
		{CCP_CC_MANUAL, "region", -1, 0, "", 0},
		{CCP_CC_OVERFLOW, "<overflow>", -1, 0, "", 0},
	};
	static const char *argv_[] = {"t", "-v"};
	struct ccp_profile p = {.program = "/bin/t", .argc = 2, .argv = argv_, .pid = 77,
				.clock = CCP_CLOCK_WALL, .options = "interval=1ms",
				.hostname = "h", .nmodules = 1, .modules = m, .nccs = 4,
				.ccs = cc, .nthreads = 2, .threads = th,
				.stats = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 0, 0},
				.alloc = {1, 64, 1}};
	unsigned char *b = NULL;
	*n = 0;
	ccp_format_encode(&p, &b, n);
	return b;
}

/* ---- damage ------------------------------------------------------------------- */

static void truncations(const unsigned char *b, size_t n)
{
	char err[128];
	size_t failed = 0, silent = 0, failed_nocrc = 0;
	int reenc = 0;
	for (size_t k = 0; k < n; k++) {
		err[0] = 0;
		if (try_decode(b, k, 0, err, sizeof err, &reenc) != 0)
			failed++;
		if (err[0] == 0)
			silent++;
		if (try_decode(b, k, CCP_DECODE_NO_CRC, err, sizeof err, &reenc) != 0)
			failed_nocrc++;
	}
	CHECK(failed == n, "all %zu truncation prefixes fail (%zu did)", n, failed);
	CHECK(silent == 0, "every truncation failure has a message (%zu without)", silent);
	CHECK(failed_nocrc == n, "all truncation prefixes fail without the CRC too (%zu did)",
	      failed_nocrc);
}

static void bit_flips(const unsigned char *b, size_t n)
{
	char err[128];
	unsigned char *m = malloc(n);
	size_t total = 0, failed = 0, by_crc = 0, ok_nocrc = 0;
	int reenc = 0;
	memcpy(m, b, n);
	for (size_t i = 0; i < n; i++) {
		for (int bit = 0; bit < 8; bit++) {
			m[i] ^= (unsigned char)(1u << bit);
			total++;
			if (try_decode(m, n, 0, err, sizeof err, &reenc) != 0) {
				failed++;
				by_crc += strstr(err, "checksum") != NULL;
			}
			if (try_decode(m, n, CCP_DECODE_NO_CRC, err, sizeof err, &reenc) == 0)
				ok_nocrc++;
			m[i] ^= (unsigned char)(1u << bit);
		}
	}
	free(m);
	CHECK(failed == total, "all %zu single-bit flips fail (%zu did; %zu as checksum mismatch)",
	      total, failed, by_crc);
	CHECK(reenc == 0, "without the CRC %zu flipped files decode, and all re-encode", ok_nocrc);
}

/* xorshift64*: deterministic, so a failure reproduces. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* Random edits (overwrite, insert, delete, small-integer splice) with the
 * CRC off: the reader's structural checks alone must hold the line. */
static void random_mutations(const unsigned char *b, size_t n)
{
	enum { ROUNDS = 30000 };
	static const unsigned char interesting[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x02, 0x05};
	unsigned char *m = malloc(n + 64);
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t ok = 0;
	int reenc = 0;
	char err[128];
	for (int round = 0; round < ROUNDS; round++) {
		size_t len = n;
		memcpy(m, b, n);
		int edits = 1 + (int)(rnd(&seed) % 4);
		for (int e = 0; e < edits && len > 1; e++) {
			size_t at = 16 + rnd(&seed) % (len - 16 > 0 ? len - 16 : 1);
			unsigned op = (unsigned)(rnd(&seed) % 4);
			unsigned char v = op == 3 ? interesting[rnd(&seed) % sizeof interesting]
						  : (unsigned char)rnd(&seed);
			if (at >= len)
				at = len - 1;
			if (op == 1 && len < n + 64) { /* insert */
				memmove(m + at + 1, m + at, len - at);
				m[at] = v;
				len++;
			} else if (op == 2) { /* delete */
				memmove(m + at, m + at + 1, len - at - 1);
				len--;
			} else {
				m[at] = v;
			}
		}
		ok += try_decode(m, len, CCP_DECODE_NO_CRC, err, sizeof err, &reenc) == 0;
	}
	free(m);
	CHECK(reenc == 0, "%d random mutations without CRC: no crash, %zu decode, all re-encode",
	      ROUNDS, ok);
}

/* ---- hand-made files ---------------------------------------------------------- */

struct fb {
	unsigned char b[4096];
	size_t n;
};

static void raw(struct fb *f, const void *p, size_t n)
{
	if (n > sizeof f->b - f->n)
		abort(); /* a test bug, not a reader bug */
	memcpy(f->b + f->n, p, n);
	f->n += n;
}

static void vs(struct fb *f, const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char t[CCP_VARINT_MAX];
		raw(f, t, ccp_varint_put(t, v[i]));
	}
}
/* V(f, 1, 2, 3): append varints. */
#define V(f, ...) vs((f), (const uint64_t[]){__VA_ARGS__}, \
		     sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t))

static void text(struct fb *f, const char *s)
{
	V(f, strlen(s));
	raw(f, s, strlen(s));
}

/* The section payloads of a small valid file; tests break one. */
struct parts {
	struct fb strings, meta, modules, ccs, thread, stats, alloc, heap; /* none if empty */
	unsigned char header[16];
};

static void default_parts(struct parts *p)
{
	memset(p, 0, sizeof *p);
	memcpy(p->header, CCP_MAGIC "\x01\x00\x10\x00\x01\x02\x03\x04", 16);
	V(&p->strings, 4);
	text(&p->strings, "");
	text(&p->strings, "main");
	text(&p->strings, "f");
	text(&p->strings, "t.c");
	/* program argc argv0 pid start end clock interval tps overhead options host */
	V(&p->meta, 1, 1, 1, 9, 1, 2, 0, 1000, 1000000000, 0, 0, 0);
	V(&p->modules, 1, 3, 0, 0x400000);
	V(&p->ccs, 2, 0, 1, 1, 0x10, 3, 5, 0, 2, 0, 0, 0, 0);
	/* tid name ncontexts; contexts: shared suffix entries... E R T */
	V(&p->thread, 1, 0, 2, 0, 1, E(0, 1), 1, 0, 5, 1, 1, E(1, 1), 1, 0, 7);
	V(&p->stats, 1, 1, 5);
}

static void section(struct fb *f, uint64_t tag, const struct fb *payload)
{
	V(f, tag, payload->n);
	raw(f, payload->b, payload->n);
}

static void end(struct fb *f)
{
	uint32_t crc = ccp_crc32(0, f->b, f->n);
	unsigned char le[4] = {(unsigned char)crc, (unsigned char)(crc >> 8),
			       (unsigned char)(crc >> 16), (unsigned char)(crc >> 24)};
	V(f, 0, 4);
	raw(f, le, 4);
}

static void assemble(struct fb *f, const struct parts *p)
{
	f->n = 0;
	raw(f, p->header, 16);
	section(f, CCP_SEC_STRINGS, &p->strings);
	section(f, CCP_SEC_META, &p->meta);
	section(f, CCP_SEC_MODULES, &p->modules);
	section(f, CCP_SEC_CCS, &p->ccs);
	section(f, CCP_SEC_THREAD, &p->thread);
	section(f, CCP_SEC_STATS, &p->stats);
	if (p->alloc.n)
		section(f, CCP_SEC_ALLOC, &p->alloc);
	if (p->heap.n)
		section(f, CCP_SEC_HEAP, &p->heap);
	end(f);
}

/* A file of the known sections p holds, in the order of the tags in
 * `order` (a string of digits, "" for none), each written as p has it. */
static void assemble_order(struct fb *f, const struct parts *p, const char *order)
{
	const struct fb *by_tag[] = {
		[CCP_SEC_STRINGS] = &p->strings, [CCP_SEC_META] = &p->meta,
		[CCP_SEC_MODULES] = &p->modules, [CCP_SEC_CCS] = &p->ccs,
		[CCP_SEC_THREAD] = &p->thread,   [CCP_SEC_STATS] = &p->stats,
		[CCP_SEC_ALLOC] = &p->alloc,     [CCP_SEC_HEAP] = &p->heap,
	};
	f->n = 0;
	raw(f, p->header, 16);
	for (const char *t = order; *t; t++)
		section(f, (uint64_t)(*t - '0'), by_tag[*t - '0']);
	end(f);
}

/* Decode f (CRC on) and expect failure whose message contains want, or
 * success when want is NULL. */
static void expect(const struct fb *f, const char *want, const char *what)
{
	char err[160] = "";
	int reenc = 0;
	int rc = try_decode(f->b, f->n, 0, err, sizeof err, &reenc);
	if (want)
		CHECK(rc == -1 && strstr(err, want), "%s: \"%s\"", what, err);
	else
		CHECK(rc == 0 && reenc == 0, "%s: accepted%s%s", what, rc ? ", but: " : "", err);
}

static void expect_parts(const struct parts *p, const char *want, const char *what)
{
	struct fb f;
	assemble(&f, p);
	expect(&f, want, what);
}

static void header_cases(void)
{
	struct parts p;
	struct fb f;
	default_parts(&p);
	expect_parts(&p, NULL, "the hand-made base file");

	f.n = 0;
	expect(&f, "empty file", "empty buffer");
	f.n = 0;
	raw(&f, "hello, world\n this is text, not a profile", 40);
	expect(&f, "not a ccprof profile (bad magic)", "bad magic");
	assemble(&f, &p);
	memmove(f.b + 4, f.b + 5, f.n - 5); /* "\r\n" became "\n" */
	f.n--;
	expect(&f, "line endings altered", "text-mode transfer");
	assemble(&f, &p);
	f.n = 5;
	expect(&f, "truncated (header)", "5 bytes of magic");

	default_parts(&p);
	p.header[8] = 7;
	expect_parts(&p, "unsupported version 7 (this ccprof reads version 1)", "version 7");
	default_parts(&p);
	p.header[12] = 4, p.header[15] = 1;
	expect_parts(&p, "endianness probe", "byte-swapped probe");
	default_parts(&p);
	p.header[10] = 8;
	expect_parts(&p, "header size 8", "header size below 16");

	/* A longer header (a future extension) is skipped. */
	default_parts(&p);
	assemble(&f, &p);
	struct fb g = {.n = 0};
	raw(&g, f.b, 16);
	g.b[10] = 20;
	raw(&g, "\xee\xee\xee\xee", 4);
	raw(&g, f.b + 16, f.n - 16 - 6);
	end(&g);
	expect(&g, NULL, "20-byte header");
}

static void structure_cases(void)
{
	struct parts p;
	struct fb f;
	default_parts(&p);

	assemble(&f, &p);
	f.b[f.n - 1] ^= 0x40;
	expect(&f, "checksum mismatch (file corrupt)", "wrong CRC");

	assemble(&f, &p);
	f.n -= 6;
	expect(&f, "truncated (missing END section)", "missing END");
	assemble(&f, &p);
	raw(&f, "\0", 1);
	expect(&f, "trailing bytes after END", "a byte after END");
	assemble(&f, &p);
	f.n -= 6;
	V(&f, 0, 5);
	raw(&f, "\0\0\0\0\0", 5);
	expect(&f, "bad section END", "END of length 5");

	struct fb empty = {.n = 0}, u = {.n = 0};
	/* Sections missing, repeated, out of order; unknown ones skipped. */
	assemble_order(&f, &p, "13");
	expect(&f, "missing section META", "no META");
	assemble_order(&f, &p, "11");
	expect(&f, "duplicate section STRINGS", "STRINGS twice");
	assemble_order(&f, &p, "123465");
	expect(&f, "section THREAD out of order (after STATS)", "THREAD after STATS");
	assemble_order(&f, &p, "1234");
	expect(&f, "missing section STATS", "END before STATS");

	V(&u, 1, 2, 3);
	f.n = 0;
	raw(&f, p.header, 16);
	section(&f, CCP_SEC_FIRST_UNKNOWN, &u);
	section(&f, CCP_SEC_STRINGS, &p.strings);
	section(&f, CCP_SEC_META, &p.meta);
	section(&f, 1000000, &u);
	section(&f, CCP_SEC_MODULES, &p.modules);
	section(&f, CCP_SEC_CCS, &p.ccs);
	section(&f, CCP_SEC_STATS, &p.stats); /* no THREAD at all is fine */
	section(&f, UINT64_MAX, &empty);
	end(&f);
	expect(&f, NULL, "unknown sections 9, 10^6, 2^64-1 skipped; no threads");

	assemble(&f, &p);
	f.n = 16;
	V(&f, CCP_SEC_STRINGS, 1000);
	raw(&f, p.strings.b, p.strings.n);
	end(&f);
	expect(&f, "truncated (section STRINGS)", "section longer than the file");

	default_parts(&p);
	V(&p.meta, 0);
	expect_parts(&p, "unexpected bytes", "an extra byte in META");
}

static void varint_cases(void)
{
	struct parts p;
	default_parts(&p);
	p.meta.n = 0; /* pid = 2^64 - 1 in 10 bytes: the longest legal varint */
	V(&p.meta, 1, 1, 1, UINT64_MAX, 1, 2, 0, 1000, 1000000000, 0, 0, 0);
	expect_parts(&p, NULL, "10-byte varint 2^64-1");

	static const struct {
		const char *bytes;
		size_t n;
		const char *want, *what;
	} bad[] = {
		{"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x81\x00", 11, "longer than 10 bytes",
		 "11-byte varint"},
		{"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 10, "overflows 64 bits",
		 "varint of 2^64"},
		{"\x89\x80\x00", 3, "overlong", "varint with zero padding"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		default_parts(&p);
		p.meta.n = 0;
		V(&p.meta, 1, 1, 1);
		raw(&p.meta, bad[i].bytes, bad[i].n); /* as pid */
		V(&p.meta, 1, 2, 0, 1000, 1000000000, 0, 0, 0);
		expect_parts(&p, bad[i].want, bad[i].what);
	}
}

static void count_cases(void)
{
	struct parts p;
	default_parts(&p);
	p.strings.n = 0;
	V(&p.strings, 1ull << 60, 0);
	expect_parts(&p, "bad count 1152921504606846976", "2^60 strings");

	default_parts(&p);
	p.meta.n = 0;
	V(&p.meta, 1, 4000000000u, 1, 1);
	expect_parts(&p, "bad count", "argc 4e9");

	default_parts(&p);
	p.modules.n = 0;
	V(&p.modules, 5, 3, 0, 0);
	expect_parts(&p, "bad count", "5 modules in 4 bytes");

	default_parts(&p);
	p.thread.n = 0;
	V(&p.thread, 1, 0, UINT32_MAX);
	expect_parts(&p, "bad count", "2^32-1 contexts");

	default_parts(&p);
	p.thread.n = 0;
	V(&p.thread, 1, 0, 1, 0, 1ull << 40, E(0, 1), 1, 0, 5);
	expect_parts(&p, "bad history length in thread 0 context 0", "history of 2^40 entries");

	default_parts(&p);
	p.strings.n = 0;
	V(&p.strings, 1, 1ull << 62);
	expect_parts(&p, "truncated (section STRINGS)", "string of 2^62 bytes");

	/* Prefix sharing lets 5 bytes stand for a long history; without a cap
	 * 3 KB could ask for gigabytes.  Context 0 has 1000 entries (1 marked);
	 * 300 more contexts each repeat all of it (6 bytes each). */
	struct fb t = {.n = 0};
	V(&t, 1, 0, 301, 0, 1000);
	for (int i = 0; i < 999; i++)
		V(&t, E(0, 0));
	V(&t, E(0, 1), 1, 0, 1);
	for (int i = 0; i < 300; i++)
		V(&t, 1000, 0, 1, 0, 1);
	default_parts(&p);
	p.thread = t;
	/* 301,000 entries: under the fixed slack, so accepted. */
	expect_parts(&p, NULL, "301 contexts sharing a 1000-entry history");
}

/* The budget itself, with a history long enough to exceed the slack. */
static void amplification(void)
{
	enum { LEN = 20000, CTXS = 800 }; /* 16M entries from ~25 KB */
	size_t cap = 64 + 2 * LEN + 6 * CTXS + 256;
	unsigned char *b = malloc(cap + 4096);
	struct parts p;
	default_parts(&p);
	size_t n = 0;
	unsigned char t[CCP_VARINT_MAX];
#define PUT(x) (n += ccp_varint_put(b + n, (x)))
	memcpy(b, p.header, 16);
	n = 16;
	PUT(CCP_SEC_STRINGS), PUT(p.strings.n), memcpy(b + n, p.strings.b, p.strings.n), n += p.strings.n;
	PUT(CCP_SEC_META), PUT(p.meta.n), memcpy(b + n, p.meta.b, p.meta.n), n += p.meta.n;
	PUT(CCP_SEC_MODULES), PUT(p.modules.n), memcpy(b + n, p.modules.b, p.modules.n), n += p.modules.n;
	PUT(CCP_SEC_CCS), PUT(p.ccs.n), memcpy(b + n, p.ccs.b, p.ccs.n), n += p.ccs.n;
	/* THREAD payload size: tid name count + first context + the rest */
	size_t first = 1 + ccp_varint_put(t, LEN) + (LEN - 1) + 1 + 3;
	size_t rest = (size_t)(CTXS - 1) * (ccp_varint_put(t, LEN) + 4);
	size_t payload = 2 + ccp_varint_put(t, CTXS) + first + rest;
	PUT(CCP_SEC_THREAD), PUT(payload), PUT(1), PUT(0), PUT(CTXS);
	PUT(0), PUT(LEN);
	for (int i = 0; i < LEN - 1; i++)
		PUT(E(0, 0));
	PUT(E(0, 1)), PUT(1), PUT(0), PUT(1);
	for (int i = 1; i < CTXS; i++)
		PUT(LEN), PUT(0), PUT(1), PUT(0), PUT(1);
	PUT(CCP_SEC_STATS), PUT(p.stats.n), memcpy(b + n, p.stats.b, p.stats.n), n += p.stats.n;
	uint32_t crc = ccp_crc32(0, b, n);
	PUT(0), PUT(4);
	for (int i = 0; i < 4; i++)
		b[n++] = (unsigned char)(crc >> (8 * i));
#undef PUT
	char err[160];
	int reenc = 0;
	int rc = try_decode(b, n, 0, err, sizeof err, &reenc);
	CHECK(rc == -1 && strstr(err, "histories too long for the file size"),
	      "%d x %d shared entries from %zu bytes: \"%s\"", CTXS, LEN, n, err);
	free(b);
}

static void index_cases(void)
{
	static const struct {
		uint64_t e[3];
		uint64_t len;
		const char *want, *what;
	} hist[] = {
		{{E(2, 1)}, 1, "bad cost-centre index in thread 0 context 0", "cc index 2 of 2"},
		{{(uint64_t)1 << 32}, 1, "bad cost-centre index in thread 0 context 0",
		 "entry beyond 32 bits"},
		{{E(0, 1), E(1, 1), E(0, 1)}, 3, "cost centre marked twice in thread 0 context 0",
		 "CC marked twice"},
		{{E(0, 1), E(1, 0)}, 2, "running cost centre not marked", "unmarked last entry"},
		{{E(0, 0), E(1, 0), E(0, 1)}, 3, NULL, "unmarked interior entries"},
	};
	struct parts p;
	for (size_t i = 0; i < sizeof hist / sizeof hist[0]; i++) {
		default_parts(&p);
		p.thread.n = 0;
		V(&p.thread, 1, 0, 1, 0, hist[i].len);
		vs(&p.thread, hist[i].e, hist[i].len);
		V(&p.thread, 1, 0, 1);
		expect_parts(&p, hist[i].want, hist[i].what);
	}

	default_parts(&p);
	p.thread.n = 0;
	V(&p.thread, 1, 0, 2, 0, 1, E(0, 1), 1, 0, 5, 2, 1, E(1, 1), 1, 0, 7);
	expect_parts(&p, "bad shared prefix in thread 0 context 1", "shared prefix too long");
	default_parts(&p);
	p.thread.n = 0;
	V(&p.thread, 1, 0, 2, 0, 0, 1, 0, 5, 0, 1, E(1, 1), 1, 0, 7);
	expect_parts(&p, NULL, "root context of length 0 first");

	default_parts(&p);
	p.ccs.n = 0;
	V(&p.ccs, 1, 0, 4, 0, 0, 0, 0);
	expect_parts(&p, "bad string index 4 in section CCS", "string index out of range");
	default_parts(&p);
	p.ccs.n = 0;
	V(&p.ccs, 2, 0, 1, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0);
	expect_parts(&p, "bad module index in cost centre 0", "module index out of range");
	default_parts(&p);
	p.ccs.n = 0;
	V(&p.ccs, 2, 3, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0);
	expect_parts(&p, "bad kind 3 of cost centre 0", "kind 3");
	default_parts(&p);
	p.ccs.n = 0;
	V(&p.ccs, 2, 0, 1, 0, 0, 0, 1ull << 32, 0, 2, 0, 0, 0, 0);
	expect_parts(&p, "out of range in section CCS", "line 2^32");
	default_parts(&p);
	p.meta.n = 0;
	V(&p.meta, 1, 1, 1, 9, 1, 2, 3, 1000, 1000000000, 0, 0, 0);
	expect_parts(&p, "bad clock 3", "clock 3");

	default_parts(&p);
	p.strings.n = 0;
	V(&p.strings, 2, 0, 3);
	raw(&p.strings, "a\0b", 3);
	expect_parts(&p, "string 1 contains a NUL byte", "NUL inside a string");
	default_parts(&p);
	p.strings.n = 0;
	V(&p.strings, 4, 1);
	raw(&p.strings, "x", 1);
	text(&p.strings, "main");
	text(&p.strings, "f");
	text(&p.strings, "t.c");
	expect_parts(&p, "string 0 is not empty", "string 0 not empty");
	default_parts(&p);
	p.strings.n = 0;
	V(&p.strings, 0);
	expect_parts(&p, "no string 0", "empty string table");

	default_parts(&p);
	p.stats.n = 0;
	V(&p.stats, 3, 1, 5, 10, 99, 0, 7);
	expect_parts(&p, NULL, "unknown STATS keys 10 and 0 ignored");
	default_parts(&p);
	p.stats.n = 0;
	V(&p.stats, 2, 1, 5, 1, 6);
	expect_parts(&p, "duplicate key 1 in section STATS", "STATS key twice");
}

/* HEAP (format.md 3.8): optional, once, right after ALLOC; live counts
 * within what each context allocated, samples in time order, no total
 * above the peak. */
static void heap_case(size_t n, const uint64_t *v, const char *want, const char *what)
{
	struct parts p;
	default_parts(&p);
	/* outside 10 bytes in 1 block; context 0: 100 bytes in 2, context 1: 0 in 1 */
	V(&p.alloc, 10, 1, 2, 0, 0, 100, 2, 0, 1, 0, 1);
	vs(&p.heap, v, n);
	expect_parts(&p, want, what);
}

#define HEAP_CASE(want, what, ...) \
	heap_case(sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t), \
		  (const uint64_t[]){__VA_ARGS__}, (want), (what))

static void heap_cases(void)
{
	struct parts p;
	struct fb f;
	/* interval peak outside-bytes outside-blocks; n (thread ctx bytes blocks)...;
	 * nsamples (step outside n (thread ctx bytes)...)... */
	HEAP_CASE(NULL, "HEAP with live heap and two samples", 1000, 60, 10, 1, 1, 0, 0, 50, 2, 2, 0, 0,
		  1, 0, 0, 50, 5, 10, 0);
	HEAP_CASE(NULL, "HEAP with nothing live and no sample", 1000, 0, 0, 0, 0, 0);
	HEAP_CASE("heap sample interval 0", "HEAP interval 0", 0, 0, 0, 0, 0, 0);
	HEAP_CASE("more live outside contexts than allocated there", "HEAP outside live bytes",
		  1000, 11, 11, 1, 0, 0);
	HEAP_CASE("more live outside contexts than allocated there", "HEAP outside live blocks",
		  1000, 0, 0, 2, 0, 0);
	HEAP_CASE("more live than allocated (record 0)", "HEAP live bytes above allocated", 1000,
		  101, 0, 0, 1, 0, 0, 101, 1, 0);
	HEAP_CASE("more live than allocated (record 0)", "HEAP live blocks above allocated", 1000,
		  0, 0, 0, 1, 0, 1, 0, 2, 0);
	HEAP_CASE("live heap above its peak", "HEAP final total above the peak", 1000, 59, 10, 1,
		  1, 0, 0, 50, 2, 0);
	HEAP_CASE("no context 2 in thread 0", "HEAP record past the contexts", 1000, 0, 0, 0, 1, 0,
		  2, 1, 1, 0);
	HEAP_CASE("records out of order (record 1)", "HEAP records out of order", 1000, 100, 0, 0,
		  2, 0, 1, 0, 1, 0, 0, 1, 1, 0);
	HEAP_CASE("empty record 0", "HEAP record of nothing", 1000, 0, 0, 0, 1, 0, 0, 0, 0, 0);
	HEAP_CASE("heap sample above the peak", "HEAP sample above the peak", 1000, 60, 0, 0, 0, 1,
		  0, 10, 1, 0, 0, 51);
	HEAP_CASE("more live than allocated (record 0)", "HEAP sample above allocated", 1000,
		  200, 0, 0, 0, 1, 0, 0, 1, 0, 1, 1);
	HEAP_CASE("empty record 0", "HEAP sample record of nothing", 1000, 0, 0, 0, 0, 1, 0, 0, 1,
		  0, 0, 0);
	HEAP_CASE("records out of order (record 1)", "HEAP sample records twice", 1000, 100, 0, 0,
		  0, 1, 0, 0, 2, 0, 0, 1, 0, 0, 1);
	HEAP_CASE("no context 0 in thread 1", "HEAP sample record of a missing thread", 1000, 100,
		  0, 0, 0, 1, 0, 0, 1, 1, 0, 1);
	HEAP_CASE("more live outside contexts than allocated there", "HEAP sample outside bytes",
		  1000, 100, 0, 0, 0, 1, 0, 11, 0);
	HEAP_CASE("heap sample time past 2^64 ns", "HEAP sample times past 2^64", 1000, 0, 0, 0, 0,
		  2, UINT64_MAX, 0, 0, 1, 0, 0);
	HEAP_CASE("bad count 1000 in section HEAP", "HEAP sample count past its bytes", 1000, 0, 0,
		  0, 0, 1000);
	HEAP_CASE("bad section HEAP (1 unexpected bytes", "HEAP with a byte left over", 1000, 0, 0,
		  0, 0, 0, 0);

	/* Where it may stand: only right after ALLOC. */
	default_parts(&p);
	V(&p.alloc, 0, 0, 0);
	V(&p.heap, 1000, 0, 0, 0, 0, 0);
	assemble_order(&f, &p, "12345678");
	expect(&f, NULL, "HEAP right after ALLOC");
	assemble_order(&f, &p, "1234568");
	expect(&f, "section HEAP out of order (after STATS)", "HEAP without ALLOC");
	assemble_order(&f, &p, "123456788");
	expect(&f, "duplicate section HEAP", "HEAP twice");
	assemble_order(&f, &p, "12345687");
	expect(&f, "section HEAP out of order (after STATS)", "HEAP before ALLOC");
	assemble_order(&f, &p, "123456787");
	expect(&f, "section ALLOC out of order (after HEAP)", "ALLOC after HEAP");
}

/* ALLOC (format.md 3.7): optional, once, after STATS; records of contexts
 * that exist, in order, not empty; sums below 2^64. */
static void alloc_cases(void)
{
	struct parts p;
	struct fb f;
	default_parts(&p);
	/* outside bytes blocks, records; (thread, context, bytes, blocks)... */
	V(&p.alloc, 10, 1, 2, 0, 0, 100, 2, 0, 1, 0, 1);
	expect_parts(&p, NULL, "ALLOC with two records");
	p.alloc.n = 0;
	V(&p.alloc, 0, 0, 0);
	expect_parts(&p, NULL, "ALLOC with no record");
	p.alloc.n = 0;
	V(&p.alloc, 0, 0, 1, 0, 2, 1, 1);
	expect_parts(&p, "no context 2 in thread 0", "ALLOC record past the contexts");
	p.alloc.n = 0;
	V(&p.alloc, 0, 0, 1, 1, 0, 1, 1);
	expect_parts(&p, "no context 0 in thread 1", "ALLOC record of a missing thread");
	p.alloc.n = 0;
	V(&p.alloc, 0, 0, 2, 0, 1, 1, 1, 0, 0, 1, 1);
	expect_parts(&p, "records out of order (record 1)", "ALLOC records out of order");
	p.alloc.n = 0;
	V(&p.alloc, 0, 0, 2, 0, 1, 1, 1, 0, 1, 1, 1);
	expect_parts(&p, "records out of order (record 1)", "ALLOC record twice");
	p.alloc.n = 0;
	V(&p.alloc, 0, 0, 1, 0, 1, 0, 0);
	expect_parts(&p, "empty record 0", "ALLOC record of nothing");
	p.alloc.n = 0;
	V(&p.alloc, UINT64_MAX, 0, 1, 0, 1, 1, 0);
	expect_parts(&p, "allocations add up past 2^64 (record 0)", "ALLOC bytes past 2^64");
	p.alloc.n = 0;
	V(&p.alloc, 0, 0, 1000, 0, 1, 1, 0);
	expect_parts(&p, "bad count 1000 in section ALLOC", "ALLOC count past its bytes");
	p.alloc.n = 0;
	V(&p.alloc, 0, 0, 0, 0);
	expect_parts(&p, "bad section ALLOC (1 unexpected bytes", "ALLOC with a byte left over");

	/* Where it may stand. */
	p.alloc.n = 0;
	V(&p.alloc, 0, 0, 0);
	assemble_order(&f, &p, "12345677");
	expect(&f, "duplicate section ALLOC", "ALLOC twice");
	assemble_order(&f, &p, "1234576");
	expect(&f, "section ALLOC out of order (after THREAD)", "ALLOC before STATS");
	assemble_order(&f, &p, "7");
	expect(&f, "section ALLOC out of order (after header)", "ALLOC first");
	assemble_order(&f, &p, "1234565");
	expect(&f, "section THREAD out of order (after STATS)", "THREAD after STATS with ALLOC");
	assemble_order(&f, &p, "1234567");
	expect(&f, NULL, "ALLOC right after STATS");
	assemble_order(&f, &p, "12345675");
	expect(&f, "section THREAD out of order (after ALLOC)", "THREAD after ALLOC");
}

int main(void)
{
	uint32_t crc = ccp_crc32(0, (const unsigned char *)"123456789", 9);
	CHECK(crc == 0xcbf43926u, "CRC-32 check value: %08x", (unsigned)crc);
	crc = ccp_crc32(ccp_crc32(0, (const unsigned char *)"1234", 4), (const unsigned char *)"56789", 5);
	CHECK(crc == 0xcbf43926u, "CRC-32 chains: %08x", (unsigned)crc);

	size_t n;
	unsigned char *b = valid_file(&n);
	char err[128];
	int reenc = 0;
	CHECK(b && try_decode(b, n, 0, err, sizeof err, &reenc) == 0, "the damaged file starts valid");
	if (!b)
		return 1;
	truncations(b, n);
	bit_flips(b, n);
	random_mutations(b, n);
	free(b);

	header_cases();
	structure_cases();
	varint_cases();
	count_cases();
	amplification();
	index_cases();
	alloc_cases();
	heap_cases();
	return check_failures != 0;
}
