/*
 * gen_seeds.c - valid profiles, written through ccp_format_encode, for the
 * fuzzer's seed corpus (make fuzz) and as the base of the hostile corpus
 * (tests/t_hostile.sh).  Deterministic: the same bytes on every run.
 *
 *   gen_seeds DIR    writes DIR/tiny.ccprof, spivey.ccprof, threads.ccprof,
 *                    cxx.ccprof, many.ccprof, wide.ccprof
 *   gen_seeds --flood N FILE
 *                    writes FILE: a valid profile built to defeat the
 *                    model's merge table (see flood() below).  Slow to
 *                    report while that bug stands: do not name it *.ccprof
 *                    in tests/out, where t_sanitize.sh runs every profile.
 *
 * Each profile is written as docs/semantics.md draws histories, marked
 * entries in brackets ("[main] P [Q]"); names become cost centres in order
 * of first use; "" is the root context.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"

#define MAX_CCS 64
#define MAX_THREADS 4
#define MAX_CTX 256
#define MAX_HIST 8192

struct gen {
	struct ccp_profile p;
	struct ccp_cc ccs[MAX_CCS];
	struct ccp_thread threads[MAX_THREADS];
	struct ccp_context ctx[MAX_THREADS][MAX_CTX];
	uint32_t hist[MAX_HIST];
	size_t nhist;
};

static _Noreturn void die(const char *what)
{
	fprintf(stderr, "gen_seeds: %s\n", what);
	exit(1);
}

static void g_thread(struct gen *g, uint64_t tid, const char *name)
{
	if (g->p.nthreads == MAX_THREADS)
		die("too many threads");
	struct ccp_thread *t = &g->threads[g->p.nthreads++];
	t->tid = tid;
	t->name = name;
	t->contexts = g->ctx[g->p.nthreads - 1];
}

static void g_init(struct gen *g, const char *program, uint32_t clock, uint64_t tps)
{
	memset(g, 0, sizeof *g);
	g->p.program = program;
	g->p.clock = clock;
	g->p.ticks_per_sec = tps;
	g->p.interval_ns = clock == CCP_CLOCK_CYCLES ? 0 : 1000000;
	g->p.ccs = g->ccs;
	g->p.threads = g->threads;
	g->p.options = "";
	g->p.hostname = "";
}

/* The cost centre called name (a function with no module unless added
 * before with g_cc_full). */
static uint32_t g_cc(struct gen *g, const char *name)
{
	for (uint32_t i = 0; i < g->p.nccs; i++)
		if (strcmp(g->ccs[i].name, name) == 0)
			return i;
	if (g->p.nccs == MAX_CCS)
		die("too many cost centres");
	uint32_t i = g->p.nccs++;
	g->ccs[i] = (struct ccp_cc){.kind = CCP_CC_FUNCTION, .name = name, .module = -1,
				    .offset = 0x1000 + 16 * i, .file = "", .line = 0};
	return i;
}

static uint32_t g_cc_full(struct gen *g, const char *name, uint32_t kind, int32_t module,
			  uint64_t offset, const char *file, uint32_t line)
{
	uint32_t i = g_cc(g, name);
	g->ccs[i] = (struct ccp_cc){.kind = kind, .name = name, .module = module,
				    .offset = offset, .file = file, .line = line};
	return i;
}

/* A context "[a] b [c]" of the last thread.  A name "#N" means cost
 * centre N itself (for unnamed ones, whose name is ""). */
static void g_ctx(struct gen *g, const char *history, uint64_t e, uint64_t r, uint64_t t)
{
	struct ccp_thread *th = &g->threads[g->p.nthreads - 1];
	if (th->ncontexts == MAX_CTX)
		die("too many contexts");
	struct ccp_context *c = &th->contexts[th->ncontexts++];
	c->hist = &g->hist[g->nhist];
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", history);
	for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		int marked = tok[0] == '[';
		if (marked) {
			tok++;
			tok[strlen(tok) - 1] = '\0';
		}
		if (g->nhist == MAX_HIST)
			die("histories too long");
		uint32_t cc;
		if (tok[0] == '#')
			cc = (uint32_t)strtoul(tok + 1, NULL, 10);
		else {
			/* strtok_r's buffer is reused: names must outlive it. */
			uint32_t k;
			for (k = 0; k < g->p.nccs && strcmp(g->ccs[k].name, tok) != 0; k++)
				;
			if (k == g->p.nccs)
				die("g_ctx: name not declared with g_cc first");
			cc = k;
		}
		g->hist[g->nhist++] = CCP_ENTRY(cc, marked);
		c->len++;
	}
	c->entries = e;
	c->recursive = r;
	c->time = t;
}

/* Encode p, check that it reads back, and write it to path. */
static void write_profile(const struct ccp_profile *p, const char *path)
{
	unsigned char *buf;
	size_t len;
	if (ccp_format_encode(p, &buf, &len) != 0) {
		fprintf(stderr, "gen_seeds: %s: encode failed: %s\n", path, strerror(errno));
		exit(1);
	}
	struct ccp_profile back;
	char err[256];
	if (ccp_format_decode(buf, len, &back, err, sizeof err) != 0) {
		fprintf(stderr, "gen_seeds: %s: does not decode: %s\n", path, err);
		exit(1);
	}
	ccp_profile_free(&back);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "gen_seeds: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	free(buf);
}

static void g_write(struct gen *g, const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.ccprof", dir, name);
	write_profile(&g->p, path);
}

/* docs/format.md §9: ./t, main calls f once. */
static void tiny(struct gen *g)
{
	static const char *argv_[] = {"./t"};
	g_init(g, "./t", CCP_CLOCK_CPU, 0);
	g->p.interval_ns = 0;
	g->p.pid = 42;
	g->p.argc = 1;
	g->p.argv = argv_;
	g_cc(g, "main");
	g_cc(g, "f");
	g_thread(g, 7, "");
	g_ctx(g, "[main]", 1, 0, 1);
	g_ctx(g, "[main] [f]", 1, 0, 1);
}

/* Spivey's mutual recursion (tests/unit/model_spivey.c, docs/semantics.md):
 * 8 contexts and the root. */
static void spivey(struct gen *g)
{
	static const char *argv_[] = {"./spivey", "2"};
	g_init(g, "./spivey", CCP_CLOCK_CPU, 1000);
	g->p.pid = 4242;
	g->p.argc = 2;
	g->p.argv = argv_;
	g->p.start_ns = 1700000000000000000ull;
	g->p.end_ns = 1700000000365000000ull;
	g->p.overhead_milliticks = 12;
	g->p.options = "interval=1ms";
	g->p.hostname = "spivey.example";
	static const char *names[] = {"main", "P", "Q", "R", "S"};
	for (size_t i = 0; i < 5; i++)
		g_cc(g, names[i]);
	g_thread(g, 4242, "spivey");
	g_ctx(g, "", 0, 0, 5);
	g_ctx(g, "[main]", 1, 0, 10);
	g_ctx(g, "[main] [P]", 1, 2, 20);
	g_ctx(g, "[main] [P] [Q]", 1, 0, 30);
	g_ctx(g, "[main] [P] [Q] [R]", 1, 0, 40);
	g_ctx(g, "[main] P [Q] [R] [P]", 2, 0, 50);
	g_ctx(g, "[main] P Q [R] [P] [Q]", 1, 0, 60);
	g_ctx(g, "[main] P R [P] [Q] [R]", 1, 0, 70);
	g_ctx(g, "[main] P [Q] [R] [P] [S]", 1, 3, 80);
	g->p.stats = (struct ccp_stats){.calls = 14, .contexts = 9, .transitions = 12,
					.deepest_history = 6, .max_depth = 9,
					.memory_bytes = 65536, .samples = 365};
}

/* Two threads (wall clock) whose contexts partly coincide, so the model
 * merges them; a named worker thread; a root context in each. */
static void threads(struct gen *g)
{
	static const char *argv_[] = {"./threads", "-n", "2"};
	static struct ccp_module mods[] = {
		{"/usr/local/bin/threads", "0123456789abcdef0123456789abcdef01234567", 0x555555554000},
		{"/lib/x86_64-linux-gnu/libc.so.6", "", 0x7ffff7c00000},
	};
	g_init(g, "/usr/local/bin/threads", CCP_CLOCK_WALL, 1000000000);
	g->p.argc = 3;
	g->p.argv = argv_;
	g->p.pid = 31337;
	g->p.nmodules = 2;
	g->p.modules = mods;
	g_cc_full(g, "main", CCP_CC_FUNCTION, 0, 0x1139, "threads.c", 40);
	g_cc_full(g, "worker", CCP_CC_FUNCTION, 0, 0x11a0, "threads.c", 20);
	g_cc_full(g, "spin", CCP_CC_FUNCTION, 0, 0x1200, "threads.c", 10);
	g_cc_full(g, "start_thread", CCP_CC_FUNCTION, 1, 0x94ac3, "", 0);
	g_thread(g, 31337, "threads");
	g_ctx(g, "", 0, 0, 1000);
	g_ctx(g, "[main]", 1, 0, 2000000);
	g_ctx(g, "[main] [spin]", 100, 99, 300000000);
	g_ctx(g, "[main] [worker]", 1, 0, 1000);
	g_ctx(g, "[main] [worker] [spin]", 50, 0, 150000000);
	g_thread(g, 31338, "worker-1");
	g_ctx(g, "", 0, 0, 500);
	g_ctx(g, "[start_thread]", 1, 0, 20000);
	g_ctx(g, "[start_thread] [worker]", 1, 0, 30000);
	g_ctx(g, "[start_thread] [worker] [spin]", 200, 3, 600000000);
	g_ctx(g, "[main] [spin]", 7, 0, 7000);
	g->p.stats = (struct ccp_stats){.calls = 364, .contexts = 10, .transitions = 20,
					.deepest_history = 3, .max_depth = 101,
					.memory_bytes = 1 << 20, .samples = 1050,
					.lost_calls = 2, .lost_time = 0};
}

/* threads with allocation profiling (docs/alloc.md): the ALLOC section,
 * allocations outside any context, in the root, and in a few contexts. */
static void allocs(struct gen *g)
{
	threads(g);
	g->p.alloc = (struct ccp_alloc){1, 72704, 1};
	g->ctx[0][0].alloc_bytes = 16; /* the root: before main's first call */
	g->ctx[0][0].alloc_blocks = 1;
	g->ctx[0][1].alloc_bytes = 4096;
	g->ctx[0][1].alloc_blocks = 1;
	g->ctx[0][4].alloc_bytes = 0; /* malloc(0) */
	g->ctx[0][4].alloc_blocks = 3;
	g->ctx[1][3].alloc_bytes = 3000;
	g->ctx[1][3].alloc_blocks = 3;
	g->ctx[1][4].alloc_bytes = UINT64_C(1) << 40;
	g->ctx[1][4].alloc_blocks = 7;
}

/* allocs with the live heap (docs/heap.md): the HEAP section, live
 * blocks at the end in two threads and outside, and three samples, two
 * at the same time. */
static void heap(struct gen *g)
{
	static struct ccp_heap_record r0[] = {{0, 1, 4096}, {1, 3, 1000}};
	static struct ccp_heap_record r1[] = {{0, 1, 2048}, {1, 4, UINT64_C(1) << 39}};
	static struct ccp_heap_sample s[] = {
		{1000000, 72704, 2, r0}, {1000000, 72704, 0, NULL}, {25000000, 0, 2, r1}};

	allocs(g);
	g->ctx[0][1].live_bytes = 2048;
	g->ctx[0][1].live_blocks = 1;
	g->ctx[0][4].live_blocks = 2; /* malloc(0) blocks not freed */
	g->ctx[1][3].live_bytes = 999;
	g->ctx[1][3].live_blocks = 2;
	g->p.heap = (struct ccp_heap){1, 10000000, (UINT64_C(1) << 39) + 80000, 72704, 1, 3, s};
}

/* C++: mangled names the model demangles, a manual region, the overflow
 * centre, unnamed functions (shown as 0x<offset>@<module>), and strings
 * the writers must escape (quotes, backslash, control bytes, UTF-8 and a
 * byte that is not UTF-8). */
static void cxx(struct gen *g)
{
	static const char *argv_[] = {"./exc", "--name=\"q\"\\t", "tab\there", "\xc3\xa9t\xc3\xa9",
				      ("bad\xff" "byte"), "new\nline"};
	static struct ccp_module mods[] = {
		{"/opt/app/exc", "feedface", 0x400000},
		{"/opt/app/lib/libstdc++.so.6", "cafe", 0x7f0000000000}, /* no such file */
		{"", "", 0},
	};
	g_init(g, "/opt/app/exc", CCP_CLOCK_CYCLES, 2400000000ull);
	g->p.argc = 6;
	g->p.argv = argv_;
	g->p.pid = 7;
	g->p.start_ns = 1;
	g->p.end_ns = 2;
	g->p.overhead_milliticks = 41000;
	g->p.options = "clock=cycles,budget=64M";
	g->p.hostname = "h\"o\\st";
	g->p.nmodules = 3;
	g->p.modules = mods;
	g_cc_full(g, "main", CCP_CC_FUNCTION, 0, 0x1000, "exc.cpp", 90);
	g_cc_full(g, "_ZN2ns3Foo3barEi", CCP_CC_FUNCTION, 0, 0x1100, "exc.cpp", 12);
	g_cc_full(g, "_ZNSt6vectorIiSaIiEE9push_backERKi", CCP_CC_FUNCTION, 1, 0x9a0c0,
		  "/usr/include/c++/12/bits/stl_vector.h", 1281);
	g_cc_full(g, "_Z3fibi", CCP_CC_FUNCTION, 0, 0x1200, "exc.cpp", 5);
	g_cc_full(g, "_ZN2ns3FooD2Ev", CCP_CC_FUNCTION, 0, 0x1300, "exc.cpp", 30);
	g_cc_full(g, "_Z1fIiEvT_", CCP_CC_FUNCTION, 0, 0x1340, "", 0);
	g_cc_full(g, "_ZL6broken", CCP_CC_FUNCTION, 0, 0x1380, "", 0);
	g_cc_full(g, "_Zzz-not-mangled", CCP_CC_FUNCTION, 0, 0x13c0, "", 0);
	g_cc_full(g, "region\"init\"\t\\", CCP_CC_MANUAL, -1, 0, "", 0);
	g_cc_full(g, "<overflow>", CCP_CC_OVERFLOW, -1, 0, "", 0);
	/* Unnamed: a function in a module (no such file: shown by offset), one
	 * in a module with no path, one with no module, an unnamed region. */
	g->ccs[g->p.nccs++] = (struct ccp_cc){CCP_CC_FUNCTION, "", 1, 0xdead0, "", 0};
	g->ccs[g->p.nccs++] = (struct ccp_cc){CCP_CC_FUNCTION, "", 2, 0x10, "", 0};
	g->ccs[g->p.nccs++] = (struct ccp_cc){CCP_CC_FUNCTION, "", -1, 0xffffffffffffffffull, "", 0};
	g->ccs[g->p.nccs++] = (struct ccp_cc){CCP_CC_MANUAL, "", -1, 0, "", 0};
	g->ccs[g->p.nccs++] = (struct ccp_cc){CCP_CC_OVERFLOW, "", -1, 0, "", 0};
	g_thread(g, 7, "m\xc3\xa4in\x01");
	g_ctx(g, "", 0, 0, 12345);
	g_ctx(g, "[main]", 1, 0, 1000);
	g_ctx(g, "[main] [_ZN2ns3Foo3barEi]", 3, 0, 5000);
	g_ctx(g, "[main] [_ZN2ns3Foo3barEi] [_ZNSt6vectorIiSaIiEE9push_backERKi]", 300, 0, 90000);
	g_ctx(g, "[main] [_Z3fibi]", 1, 20, 1ull << 40);
	g_ctx(g, "[main] [_Z3fibi] [_ZN2ns3FooD2Ev]", 1, 0, 77);
	g_ctx(g, "[main] _Z3fibi [_ZN2ns3FooD2Ev] [_Z3fibi]", 2, 0, 88);
	g_ctx(g, "[main] [_Z1fIiEvT_] [_ZL6broken] [_Zzz-not-mangled]", 1, 0, 3);
	g_ctx(g, "[main] [region\"init\"\t\\]", 1, 0, 400);
	g_ctx(g, "[main] [region\"init\"\t\\] [#10]", 5, 0, 6);
	g_ctx(g, "[main] [#11] [#12] [#13]", 1, 0, 7);
	g_ctx(g, "[#14]", 0, 0, 999);
	g_ctx(g, "[main] [<overflow>]", 1000, 0, 18446744073709551615ull - (1ull << 40) - 200000);
	g->p.stats = (struct ccp_stats){.calls = 18446744073709551615ull, .contexts = 13,
					.deepest_history = 4, .max_depth = 4,
					.lost_calls = 1000, .lost_time = 5};
}

/* Many contexts and cost centres, a deep recursion and mutual recursion,
 * from a fixed pseudo-random walk: the merged model has arcs both ways. */
static void many(struct gen *g)
{
	static char names[40][16];
	g_init(g, "./many", CCP_CLOCK_CPU, 1000000000);
	for (int i = 0; i < 40; i++) {
		snprintf(names[i], sizeof names[i], "fn%02d", i);
		g_cc(g, names[i]);
	}
	uint64_t s = 0x2545f4914f6cdd1dull;
	for (int t = 0; t < 3; t++) {
		g_thread(g, 100 + (uint64_t)t, t ? "pool" : "main");
		g_ctx(g, "", 0, 0, 1 + (uint64_t)t);
		for (int k = 0; k < 80; k++) {
			/* A history: a walk over the names, marking each CC at its last
			 * occurrence only, so no CC is marked twice. */
			char h[1024] = "";
			int seq[24], n = 1 + (int)((s >> 33) % 24);
			for (int i = 0; i < n; i++) {
				s = s * 6364136223846793005ull + 1442695040888963407ull;
				seq[i] = (int)((s >> 35) % (k < 40 ? 8 : 40));
			}
			seq[0] = 0;
			for (int i = 0; i < n; i++) {
				int last = 1;
				for (int j = i + 1; j < n; j++)
					last &= seq[j] != seq[i];
				size_t len = strlen(h);
				snprintf(h + len, sizeof h - len, "%s%s%s%s", len ? " " : "",
					 last ? "[" : "", names[seq[i]], last ? "]" : "");
			}
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			g_ctx(g, h, 1 + (s >> 60), (s >> 40) % 3, (s >> 20) % 100000);
		}
	}
}

/*
 * Hash flooding.  model_merge (src/model/model.c) finds the merged context
 * of each history in an open-addressing table with linear probing
 * (src/model/htab.c), indexed by the low bits of htab_hash_words, which
 * has no secret seed.  This profile has n distinct 3-entry histories
 * "a b [c]" whose hashes all fall in the first 4096 slots of that table,
 * in a second thread (the table is only used with more than one thread):
 * every insertion walks the whole cluster, so the merge does ~n^2/2
 * probes.  The hash is copied here (not linked) so that the file stays
 * the same whatever the model does later; with a seeded hash or another
 * merge it is just a valid profile of n + 1 contexts.
 */
static uint64_t flood_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t flood_hash(const uint32_t *w, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	for (size_t i = 0; i < n; i++)
		h = flood_mix64(h ^ w[i]) + 0x9e3779b97f4a7c15ULL;
	return flood_mix64(h);
}

static int flood(uint32_t n, const char *path)
{
	enum { NCCS = 1024, CLUSTER = 4096 };
	static struct ccp_cc ccs[NCCS];
	static char names[NCCS][8];
	size_t cap = 16; /* htab_init(total contexts) */
	while (cap / 2 < (size_t)n + 1)
		cap *= 2;
	for (uint32_t i = 0; i < NCCS; i++) {
		snprintf(names[i], sizeof names[i], "f%u", i);
		ccs[i] = (struct ccp_cc){CCP_CC_FUNCTION, names[i], -1, 16 * i, "", 0};
	}
	struct ccp_context *c = calloc(n, sizeof *c);
	uint32_t *hist = calloc((size_t)n * 3, sizeof *hist);
	if (!c || !hist)
		die("out of memory");
	uint32_t k = 0;
	for (uint64_t x = 0; k < n && x < (uint64_t)NCCS * NCCS * NCCS; x++) {
		uint32_t *w = hist + 3 * (size_t)k;
		w[0] = CCP_ENTRY(x % NCCS, 0);
		w[1] = CCP_ENTRY(x / NCCS % NCCS, 0);
		w[2] = CCP_ENTRY(x / NCCS / NCCS, 1);
		if ((flood_hash(w, 3) & (cap - 1)) < CLUSTER)
			c[k++] = (struct ccp_context){3, w, 1, 0, 1, 0, 0, 0, 0};
	}
	static uint32_t main_hist[] = {CCP_ENTRY(0, 1)};
	struct ccp_context first = {1, main_hist, 1, 0, 1, 0, 0, 0, 0};
	struct ccp_thread th[] = {{1, "", 1, &first}, {2, "flood", k, c}};
	struct ccp_profile p = {.program = "./flood", .options = "", .hostname = "",
				.clock = CCP_CLOCK_CPU, .ticks_per_sec = 1000, .nccs = NCCS,
				.ccs = ccs, .nthreads = 2, .threads = th};
	write_profile(&p, path);
	free(c);
	free(hist);
	return 0;
}

/* Wide: more threads than the reader's first thread array (8) holds, and
 * names longer than the escaper's 4096-byte chunk, with multi-byte UTF-8
 * (U+2028, 4-byte characters) across the chunk boundary. */
static void wide(struct gen *g)
{
	static char longname[5000];
	static const char *pieces[] = {"a", "\xc3\xa9", "\xe2\x80\xa8", "\xf0\x9f\x98\x80", "\"", "\\",
				       "\x7f", "\xe2\x80\xa9", "<&>"};
	size_t n = 0;
	for (unsigned i = 0; n + 8 < sizeof longname; i = (i + 4) % 9) {
		size_t k = strlen(pieces[i]);
		memcpy(longname + n, pieces[i], k);
		n += k;
	}
	longname[n] = '\0';
	static const char *thread_names[] = {"t0", "t1", "t2", "t3", "t4", "t5",
					     "t6", "t7", "t8", "t9", "t10", "t11"};
	static struct ccp_thread ths[12];
	static struct ccp_context ctxs[12][2];
	static uint32_t h1[] = {CCP_ENTRY(0, 1)}, h2[] = {CCP_ENTRY(0, 1), CCP_ENTRY(1, 1)};
	g_init(g, longname, CCP_CLOCK_WALL, 1000000000);
	g_cc(g, "main");
	g_cc(g, longname);
	for (uint32_t t = 0; t < 12; t++) {
		ctxs[t][0] = (struct ccp_context){1, h1, 1, 0, 10 * t, 0, 0, 0, 0};
		ctxs[t][1] = (struct ccp_context){2, h2, t, t % 3, 1000 + t, 0, 0, 0, 0};
		ths[t] = (struct ccp_thread){100 + t, thread_names[t], 2, ctxs[t]};
	}
	g->p.threads = ths;
	g->p.nthreads = 12;
}

int main(int argc, char **argv)
{
	static struct gen g;
	if (argc == 4 && strcmp(argv[1], "--flood") == 0)
		return flood((uint32_t)strtoul(argv[2], NULL, 10), argv[3]);
	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds DIR | gen_seeds --flood N FILE\n");
		return 2;
	}
	tiny(&g);
	g_write(&g, argv[1], "tiny");
	spivey(&g);
	g_write(&g, argv[1], "spivey");
	threads(&g);
	g_write(&g, argv[1], "threads");
	allocs(&g);
	g_write(&g, argv[1], "allocs");
	heap(&g);
	g_write(&g, argv[1], "heap");
	cxx(&g);
	g_write(&g, argv[1], "cxx");
	many(&g);
	g_write(&g, argv[1], "many");
	wide(&g);
	g_write(&g, argv[1], "wide");
	return 0;
}
