/*
 * exports.c - the pieces of `ccprof convert` on hand-built data: the
 * protobuf encoder against golden bytes (pprof's minimal profile), gzip's
 * CRC and framing, the rounding that keeps totals exact, the export
 * escapers, the tree walk with pruning, and every writer on Spivey's
 * example, with and without allocations.
 */
#include <stdarg.h>

#include "model_fixture.h"
#include "model/view.h"
#include "output/escape.h"
#include "output/export.h"
#include "output/gzip.h"
#include "output/pbuf.h"

static void protobuf(void)
{
	/* The minimal profile.proto message (docs/exports.md, "pprof"), 61
	 * bytes before gzip: sample_type {type:1 unit:2}, sample {location_id:1
	 * value:7}, location {id:1 line {function_id:1 line:3}}, function {id:1
	 * name:3 filename:4}, string_table "" "samples" "count" "main" "a.c". */
	static const unsigned char want[] = {
		0x0a, 0x04, 0x08, 0x01, 0x10, 0x02,
		0x12, 0x06, 0x0a, 0x01, 0x01, 0x12, 0x01, 0x07,
		0x22, 0x08, 0x08, 0x01, 0x22, 0x04, 0x08, 0x01, 0x10, 0x03,
		0x2a, 0x06, 0x08, 0x01, 0x10, 0x03, 0x20, 0x04,
		0x32, 0x00,
		0x32, 0x07, 's', 'a', 'm', 'p', 'l', 'e', 's',
		0x32, 0x05, 'c', 'o', 'u', 'n', 't',
		0x32, 0x04, 'm', 'a', 'i', 'n',
		0x32, 0x03, 'a', '.', 'c',
	};
	struct pbuf b = {0};
	size_t mk = pb_begin(&b, 1);
	pb_uint(&b, 1, 1);
	pb_uint(&b, 2, 2);
	pb_end(&b, mk);
	mk = pb_begin(&b, 2);
	size_t packed = pb_begin(&b, 1);
	pb_varint(&b, 1);
	pb_end(&b, packed);
	packed = pb_begin(&b, 2);
	pb_varint(&b, 7);
	pb_end(&b, packed);
	pb_end(&b, mk);
	mk = pb_begin(&b, 4);
	pb_uint(&b, 1, 1);
	size_t line = pb_begin(&b, 4);
	pb_uint(&b, 1, 1);
	pb_uint(&b, 2, 3);
	pb_end(&b, line);
	pb_end(&b, mk);
	mk = pb_begin(&b, 5);
	pb_uint(&b, 1, 1);
	pb_uint(&b, 2, 3);
	pb_uint(&b, 4, 4);
	pb_end(&b, mk);
	static const char *strings[] = {"", "samples", "count", "main", "a.c"};
	for (int i = 0; i < 5; i++)
		pb_bytes(&b, 6, strings[i], strlen(strings[i]));
	CHECK(b.len == sizeof want && memcmp(b.p, want, sizeof want) == 0,
	      "protobuf: the minimal profile's 61 golden bytes (got %zu bytes)", b.len);
	pb_free(&b);

	/* A body of 200 bytes needs a two-byte length: the body moves. */
	mk = pb_begin(&b, 3);
	for (int i = 0; i < 200; i++)
		pb_raw(&b, "x", 1);
	pb_end(&b, mk);
	CHECK(b.len == 203 && b.p[0] == 0x1a && b.p[1] == 0xc8 && b.p[2] == 0x01 && b.p[3] == 'x' &&
		      b.p[202] == 'x',
	      "protobuf: a long nested message gets a canonical 2-byte length");
	pb_free(&b);
	pb_uint(&b, 9, UINT64_MAX);
	CHECK(b.len == 11 && b.p[10] == 0x01, "protobuf: a 64-bit varint takes 10 bytes");
	pb_free(&b);
}

static unsigned le16(const unsigned char *p)
{
	return p[0] | (unsigned)p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void gzip(void)
{
	CHECK(gzip_crc32(0, "123456789", 9) == 0xcbf43926u, "CRC-32 check value of 123456789");
	CHECK(gzip_crc32(gzip_crc32(0, "1234", 4), "56789", 5) == 0xcbf43926u,
	      "CRC-32 continues across pieces");

	size_t n = 70000, size;
	unsigned char *data = malloc(n);
	for (size_t i = 0; i < n; i++)
		data[i] = (unsigned char)(i * 7);
	char *buf;
	FILE *f = open_memstream(&buf, &size);
	CHECK(gzip_write(f, data, n) == 0, "gzip_write succeeds");
	fclose(f);
	const unsigned char *p = (const unsigned char *)buf;
	CHECK_EQ_U(size, 10 + 5 + 65535 + 5 + (n - 65535) + 8, "gzip: two stored blocks");
	CHECK(p[0] == 0x1f && p[1] == 0x8b && p[2] == 8 && p[3] == 0, "gzip: magic, deflate");
	CHECK(p[10] == 0 && le16(p + 11) == 65535 && le16(p + 13) == 0,
	      "gzip: first block not final, LEN 65535, NLEN its complement");
	const unsigned char *b2 = p + 15 + 65535;
	CHECK(b2[0] == 1 && le16(b2 + 1) == n - 65535 && le16(b2 + 3) == (~(n - 65535) & 0xffff),
	      "gzip: last block final");
	CHECK(memcmp(b2 + 5, data + 65535, n - 65535) == 0, "gzip: data stored as is");
	CHECK(le32(p + size - 8) == gzip_crc32(0, data, n) && le32(p + size - 4) == n,
	      "gzip: CRC-32 and ISIZE trailer");
	free(buf);
	f = open_memstream(&buf, &size);
	gzip_write(f, "", 0);
	fclose(f);
	p = (const unsigned char *)buf;
	CHECK(size == 23 && p[10] == 1 && le16(p + 11) == 0 && le16(p + 13) == 0xffff,
	      "gzip: empty data is one empty final block");
	free(buf);
	free(data);
}

static void scaling(void)
{
	/* Thirds of a tick: rounding each part gives 0 + 0 + 0 = 0 for a total
	 * of 1 unit; the running sums give 0 + 1 + 0. */
	struct export_scale s;
	export_scale_init(&s, 1, 3);
	uint64_t sum = 0;
	for (int i = 0; i < 3; i++)
		sum += export_scale(&s, 1);
	CHECK_EQ_U(sum, 1, "scale: thirds add up to the rounded total");
	export_scale_init(&s, 1000000000u, 2600000000u); /* cycles to ns */
	sum = 0;
	uint64_t ticks = 0;
	int close = 1;
	for (uint64_t i = 1; i < 1000; i++) {
		uint64_t t = i * 7919 % 1013;
		uint64_t v = export_scale(&s, t);
		uint64_t own = export_scale_one(t, 1000000000u, 2600000000u);
		close &= v + 1 >= own && v <= own + 1;
		sum += v;
		ticks += t;
	}
	CHECK(close, "scale: every part within one unit of its own rounding");
	CHECK_EQ_U(sum, export_scale_one(ticks, 1000000000u, 2600000000u),
		   "scale: parts add up to the rounded total");
	export_scale_init(&s, 1, 0);
	CHECK_EQ_U(export_scale(&s, 5), 0, "scale: unknown clock rate gives 0");
}

static const char *esc(const struct escape_table *t, const char *s, size_t len)
{
	static char buf[4096];
	size_t n = escape_mem(buf, t, s, len);
	buf[n] = '\0';
	return buf;
}

#define ESC(t, lit) esc(&(t), (lit), sizeof(lit) - 1)

static void escapers(void)
{
	CHECK(strcmp(ESC(escape_xml, "a<b>&\"c'\t\x01\xff"),
		     "a&lt;b&gt;&amp;&quot;c&#39;&#9;\xef\xbf\xbd\xef\xbf\xbd") == 0,
	      "xml: entities, TAB as a reference, control and invalid bytes U+FFFD");
	CHECK(strcmp(ESC(escape_dot, "a\"b\\c&d<e>\n"), "a\\\"b\\\\c&amp;d<e>?") == 0,
	      "dot: quote, backslash, & as an entity, newline");
	CHECK(strcmp(ESC(escape_folded, "a;b c\t\xc3\xa9"), "a\xef\xbc\x9b" "b c?\xc3\xa9") == 0,
	      "folded: ; becomes U+FF1B, TAB ?");
	CHECK(strcmp(ESC(escape_line, "f(x)\n\r\x7f \xc3"), "f(x)??? \xef\xbf\xbd") == 0,
	      "line: control characters ?, invalid UTF-8 U+FFFD");
	CHECK(strcmp(ESC(escape_utf8, "a\x01<\"\xe2\x82"), "a\x01<\"\xef\xbf\xbd\xef\xbf\xbd") == 0,
	      "utf8: only invalid sequences replaced");
}

/* ---- the writers on Spivey's example ----------------------------------- */

static void spivey(struct fixture *fx)
{
	fx_init(fx, 1000); /* ticks are milliseconds */
	fx_ctx(fx, "", 0, 0, 5);
	fx_ctx(fx, "[main]", 1, 0, 10);
	fx_ctx(fx, "[main] [P]", 1, 2, 20);
	fx_ctx(fx, "[main] [P] [Q]", 1, 0, 30);
	fx_ctx(fx, "[main] [P] [Q] [R]", 1, 0, 40);
	fx_ctx(fx, "[main] P [Q] [R] [P]", 2, 0, 50);
	fx_ctx(fx, "[main] P Q [R] [P] [Q]", 1, 0, 60);
	fx_ctx(fx, "[main] P R [P] [Q] [R]", 1, 0, 70);
	fx_ctx(fx, "[main] P [Q] [R] [P] [S]", 1, 0, 15);
}

static char *render(const struct export_format *fmt, const struct model *m,
		    const struct export_opts *o, size_t *size)
{
	char *buf;
	FILE *f = open_memstream(&buf, size);
	struct export_input in = {.m = m};
	CHECK(fmt->write(f, &in, o) == 0, "%s writer reports success", fmt->name);
	fclose(f);
	return buf;
}

struct walk_log {
	char text[1024];
	uint64_t individual;
};

static void log_visit(void *arg, const struct model_node *x, const struct model_node_alloc *a,
		      const uint32_t *path, uint32_t depth, int leaving)
{
	struct walk_log *w = arg;
	(void)path;
	(void)a;
	size_t n = strlen(w->text);
	if (!leaving)
		w->individual += x->individual;
	snprintf(w->text + n, sizeof w->text - n, "%s%u%s ", leaving ? "/" : "",
		 (unsigned)depth, x->cc == EXPORT_HIDDEN ? "h" : "");
}

/* A view of m pruned below min_percent (--min-percent), in vm. */
struct pruned {
	struct model_view_opts o;
	struct model_view v;
};

static void prune(struct pruned *p, const struct model *m, double min_percent, struct model *vm)
{
	char err[128];
	model_view_opts_init(&p->o);
	p->o.prune.min_percent = min_percent;
	CHECK(model_view_resolve(&p->v, m, &p->o, err, sizeof err) == 0, "view resolves");
	model_view_build(vm, m, &p->v, MODEL_TREE);
	model_prune(vm, &p->o.prune);
}

static void prune_free(struct pruned *p, struct model *vm)
{
	model_free(vm);
	model_view_free(&p->v);
	model_view_opts_free(&p->o);
}

static void walking(void)
{
	static struct fixture fx;
	struct model m, vm;
	spivey(&fx);
	if (fx_build(&m, &fx) != 0)
		return;
	struct walk_log w = {"", 0};
	export_walk_tree(&m, log_visit, &w);
	/* root, main, P, Q, R, P, Q...: one enter and one leave per node */
	size_t enters = 0, leaves = 0;
	for (const char *p = w.text; *p; p++) {
		if (*p == ' ')
			enters++;
		if (*p == '/')
			leaves++;
	}
	CHECK_EQ_U(enters - leaves, m.nnodes, "walk: enters every node once");
	CHECK_EQ_U(leaves, m.nnodes, "walk: leaves every node once");
	CHECK_EQ_U(w.individual, m.total_time, "walk: individual times add up to the total");

	/* Prune below 20 % of 300: the stand-ins carry what is hidden. */
	struct pruned pr;
	prune(&pr, &m, 20, &vm);
	struct walk_log p = {"", 0};
	export_walk_tree(&vm, log_visit, &p);
	CHECK(strstr(p.text, "h ") != NULL, "walk: pruned tree has a stand-in (%s)", p.text);
	CHECK_EQ_U(p.individual, vm.total_time, "walk: with stand-ins the total is kept");
	prune_free(&pr, &vm);
	model_free(&m);
}

static void writers(void)
{
	static struct fixture fx;
	struct model m;
	spivey(&fx);
	static const char *argv[] = {"./spivey", "a \"b\""};
	fx.p.argv = argv;
	fx.p.argc = 2;
	if (fx_build(&m, &fx) != 0)
		return;
	model_hot(&m);
	struct export_opts o = {.node_threshold = 0.5};
	size_t size;
	char *s;

	s = render(export_find("folded"), &m, &o, &size);
	/* 300 ms in all; ⟨main,P,Q,R⟩ holds 40 + 70 ms, ⟨main,Q,R,P⟩ 50. */
	CHECK(strstr(s, "<root> 5000\n") && strstr(s, "main;P;Q;R 110000\n") &&
		      strstr(s, "main;Q;R;P 50000\n") && strstr(s, "main;Q;R;P;S 15000\n"),
	      "folded: stacks in microseconds");
	free(s);

	s = render(export_find("ghc-json"), &m, &o, &size);
	CHECK(strstr(s, "\"total_ticks\": 300,") && strstr(s, "\"tick_interval\": 1000,") &&
		      strstr(s, "\"arguments\": [\"./spivey\", \"a \\\"b\\\"\"]"),
	      "ghc-json: ticks of 1 ms, arguments escaped");
	CHECK(strstr(s, "\"label\": \"MAIN\"") && strstr(s, "\"total_time\":        0.30,"),
	      "ghc-json: MAIN, total_time %%11.2f");
	free(s);

	s = render(export_find("callgrind"), &m, &o, &size);
	CHECK(strstr(s, "\nevents: ticks calls\nsummary: 300 11\n") != NULL,
	      "callgrind: events last in the header, summary after");
	CHECK(strstr(s, "\ntotals: 300 11\n") != NULL, "callgrind: totals");
	free(s);

	s = render(export_find("dot"), &m, &o, &size);
	CHECK(strncmp(s, "digraph callgraph {", 19) == 0 && strstr(s, "penwidth=4"),
	      "dot: one digraph, the expensive arm drawn");
	free(s);

	s = render(export_find("svg"), &m, &o, &size);
	CHECK(strstr(s, "<title>all\ninherited 0.3 s (100.00%)") != NULL,
	      "svg: the root box has the exact total");
	free(s);

	s = render(export_find("speedscope"), &m, &o, &size);
	CHECK(strstr(s, "\"endValue\":300000000") != NULL, "speedscope: endValue in ns");
	free(s);

	s = render(export_find("pprof"), &m, &o, &size);
	CHECK(size > 18 && (unsigned char)s[0] == 0x1f && (unsigned char)s[1] == 0x8b,
	      "pprof: gzip");
	free(s);
	model_free(&m);
}

/*
 * ghc-prof (docs/exports.md, "ghc-prof") on Spivey's example: the whole
 * file.  Its mutual recursion is three stacks of compressed stacks
 * (docs/semantics.md, "The views");
 * ⟨main,Q⟩, ⟨main,Q,R⟩ and ⟨main,R,P⟩ were never entered but lead to
 * stacks that were, so they stay; MAIN holds the root context's 5 ms.
 */
static const char ghc_prof_spivey[] =
	"\t Time and Allocation Profiling Report  (Final)\n"
	"\n"
	"\t   fixture a?b\n"
	"\n"
	"\ttotal time  =        0.30 secs   (300 ticks @ 1000 us, 1 processor)\n"
	"\ttotal alloc =           0 bytes  (excludes profiling overheads)\n"
	"\n"
	"COST CENTRE MODULE  SRC         %time %alloc  ticks     bytes\n"
	"\n"
	"R           fixture <unknown>    36.7    0.0    110         0\n"
	"Q           fixture <unknown>    30.0    0.0     90         0\n"
	"P           fixture <unknown>    23.3    0.0     70         0\n"
	"S           fixture <unknown>     5.0    0.0     15         0\n"
	"main        fixture <unknown>     3.3    0.0     10         0\n"
	"MAIN        MAIN    <built-in>    1.7    0.0      5         0\n"
	"\n"
	"\n"
	"                                                  individual      inherited\n"
	"COST CENTRE MODULE  SRC        no.     entries  %time %alloc   %time %alloc  ticks     bytes\n"
	"\n"
	"MAIN        MAIN    <built-in>   1           0    1.7    0.0   100.0    0.0      5         0\n"
	" main       fixture <unknown>    2           1    3.3    0.0    98.3    0.0     10         0\n"
	"  P         fixture <unknown>    3           3    6.7    0.0    53.3    0.0     20         0\n"
	"   Q        fixture <unknown>    4           1   10.0    0.0    46.7    0.0     30         0\n"
	"    R       fixture <unknown>    5           2   36.7    0.0    36.7    0.0    110         0\n"
	"  Q         fixture <unknown>    6           0    0.0    0.0    21.7    0.0      0         0\n"
	"   R        fixture <unknown>    7           0    0.0    0.0    21.7    0.0      0         0\n"
	"    P       fixture <unknown>    8           2   16.7    0.0    21.7    0.0     50         0\n"
	"     S      fixture <unknown>    9           1    5.0    0.0     5.0    0.0     15         0\n"
	"  R         fixture <unknown>   10           0    0.0    0.0    20.0    0.0      0         0\n"
	"   P        fixture <unknown>   11           0    0.0    0.0    20.0    0.0      0         0\n"
	"    Q       fixture <unknown>   12           1   20.0    0.0    20.0    0.0     60         0\n";

static void ghc_prof(void)
{
	static struct fixture fx;
	struct model m, vm;
	spivey(&fx);
	static const char *argv[] = {"./spivey", "a\nb"};
	fx.p.argv = argv;
	fx.p.argc = 2;
	if (fx_build(&m, &fx) != 0)
		return;
	struct export_opts o = {0};
	size_t size;
	char *s = render(export_find("ghc-prof"), &m, &o, &size);
	int same = strcmp(s, ghc_prof_spivey) == 0;
	CHECK(same, "ghc-prof: Spivey's example, byte for byte");
	for (char *line = same ? NULL : strtok(s, "\n"); line; line = strtok(NULL, "\n"))
		printf("# %s\n", line); /* what it wrote instead */
	free(s);

	/* Pruned below 20 %: S's stack becomes "(hidden)", in the flat
	 * table too, and the ticks still add up. */
	struct pruned pr;
	prune(&pr, &m, 20, &vm);
	s = render(export_find("ghc-prof"), &vm, &o, &size);
	CHECK(strstr(s, "\n(hidden)    MAIN    <pruned>      5.0    0.0     15         0\n") &&
		      strstr(s, "\n     (hidden) MAIN    <pruned>     9           1    5.0    0.0  "
				"   5.0    0.0     15         0\n"),
	      "ghc-prof, pruned: a (hidden) row in module MAIN, SRC <pruned>, with S's time");
	free(s);
	prune_free(&pr, &vm);
	model_free(&m);
}

/* ---- allocations on Spivey's example -------------------------------------- */

/* Bytes and blocks of spivey()'s contexts, in its order: 4723 bytes in 49
 * blocks, 7 of them at the root (outside every cost centre). */
static const struct model_alloc spivey_allocs[] = {
	{7, 1}, {100, 1}, {200, 2}, {0, 0}, {400, 4}, {1000, 10}, {0, 0}, {3000, 30}, {16, 1},
};
#define SPIVEY_BYTES 4723
#define SPIVEY_BLOCKS 49

static void spivey_alloc(struct fixture *fx)
{
	spivey(fx);
	for (uint32_t i = 0; i < sizeof spivey_allocs / sizeof spivey_allocs[0]; i++) {
		fx->ctx[0][i].alloc_bytes = spivey_allocs[i].bytes;
		fx->ctx[0][i].alloc_blocks = spivey_allocs[i].blocks;
	}
	fx->p.alloc.measured = 1;
}

/* Whether the format's export of m has each of the strings, up to NULL. */
static int renders_with(const char *format, const struct model *m, const struct export_opts *o,
			...)
{
	size_t size;
	char *s = render(export_find(format), m, o, &size);
	int all = 1;
	va_list ap;
	va_start(ap, o);
	for (const char *want; (want = va_arg(ap, const char *));)
		all &= strstr(s, want) != NULL;
	va_end(ap);
	free(s);
	return all;
}

/* Σ of the numbers after each occurrence of key in s. */
static uint64_t sum_after(const char *s, const char *key)
{
	uint64_t sum = 0;
	for (const char *p = strstr(s, key); p; p = strstr(p + 1, key))
		sum += strtoull(p + strlen(key), NULL, 10);
	return sum;
}

/* A callgrind file's allocations per function id: self (the cost lines
 * under fn=) and inclusive (the cost lines after calls=, into cfn=),
 * the events being time, calls, bytes, blocks. */
struct cg_alloc {
	char name[32];
	struct model_alloc self, in;
};

static void cg_parse(const char *text, struct cg_alloc *fns, uint32_t nfns)
{
	uint32_t fn = 0, cfn = 0;
	int after_calls = 0;
	for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
		unsigned id;
		unsigned long long line, t, c, bytes, blocks;
		int n = 0;
		if ((sscanf(l, "fn=(%u)%n", &id, &n) == 1 || sscanf(l, "cfn=(%u)%n", &id, &n) == 1) &&
		    id < nfns) {
			if (l[n] == ' ') /* the name, the first time */
				snprintf(fns[id].name, sizeof fns[id].name, "%.*s",
					 (int)strcspn(l + n + 1, "\n"), l + n + 1);
			*(l[0] == 'f' ? &fn : &cfn) = id;
		} else if (sscanf(l, "%llu %llu %llu %llu %llu", &line, &t, &c, &bytes, &blocks) == 5) {
			struct model_alloc a = {bytes, blocks};
			model_alloc_add(after_calls ? &fns[cfn].in : &fns[fn].self, a);
		}
		after_calls = strncmp(l, "calls=", 6) == 0;
		if (!strchr(l, '\n'))
			break;
	}
}

static const struct cg_alloc *cg_find(const struct cg_alloc *fns, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(fns[i].name, name) == 0)
			return &fns[i];
	return NULL;
}

/* callgrind's alloc_bytes and alloc_blocks: each function's self
 * allocations, and the calls into it adding up to its inherited ones,
 * under Spivey's mutual recursion too. */
static void callgrind_alloc(const struct model *m, const char *s)
{
	CHECK(strstr(s, "\nevents: ticks calls alloc_bytes alloc_blocks\nsummary: 300 11 4723 49\n") &&
		      strstr(s, "\ntotals: 300 11 4723 49\n"),
	      "callgrind: two allocation events after time and calls, in summary and totals");
	struct cg_alloc fns[16];
	memset(fns, 0, sizeof fns);
	cg_parse(s, fns, 16);
	static const char *names[] = {"main", "P", "Q", "R", "S"};
	int self_ok = 1, in_ok = 1;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const struct cg_alloc *c = cg_find(fns, 16, names[i]);
		const struct model_fn *f = fx_fn(m, names[i]);
		self_ok &= c && c->self.bytes == f->self_alloc.bytes &&
			   c->self.blocks == f->self_alloc.blocks;
		in_ok &= c && c->in.bytes == f->inherited_alloc.bytes &&
			 c->in.blocks == f->inherited_alloc.blocks;
	}
	CHECK(self_ok, "callgrind: each function's self allocations are the model's");
	CHECK(in_ok, "callgrind: the calls into each function add up to its inherited allocations "
		     "(mutual recursion counted once)");
	const struct cg_alloc *root = cg_find(fns, 16, EXPORT_ROOT_NAME);
	CHECK(root && root->self.bytes == 7 && root->self.blocks == 1,
	      "callgrind: <root> holds the root context's allocations");
}

static void writers_alloc(void)
{
	static struct fixture fx;
	struct model m;
	spivey_alloc(&fx);
	if (fx_build(&m, &fx) != 0)
		return;
	struct export_opts o = {.node_threshold = 0.5, .weight = EXPORT_WEIGHT_ALLOC};
	size_t size;
	char *s;

	s = render(export_find("folded"), &m, &o, &size);
	CHECK(strstr(s, "<root> 7\n") && strstr(s, "main;P;Q;R 3400\n") &&
		      strstr(s, "main;Q;R;P 1000\n") && strstr(s, "main;Q;R;P;S 16\n") &&
		      !strstr(s, "main;P;Q "),
	      "folded --weight alloc: bytes per stack, stacks without any left out");
	CHECK_EQ_U(sum_after(s, " "), SPIVEY_BYTES, "folded --weight alloc: the bytes add up");
	free(s);

	o.weight = EXPORT_WEIGHT_TIME;
	s = render(export_find("ghc-json"), &m, &o, &size);
	CHECK(strstr(s, "\"total_alloc\":4723,\n") != NULL, "ghc-json: total_alloc in bytes");
	CHECK_EQ_U(sum_after(s, "\"alloc\": "), SPIVEY_BYTES, "ghc-json: Σ alloc = total_alloc");
	free(s);

	s = render(export_find("ghc-prof"), &m, &o, &size);
	CHECK(strstr(s, "\ttotal alloc =       4,723 bytes  (excludes profiling overheads)\n") &&
		      strstr(s, "\nR           fixture <unknown>    36.7   72.0    110      3400\n") &&
		      strstr(s, "\nMAIN        MAIN    <built-in>   1           0    1.7    0.1  "
				" 100.0  100.0      5         7\n") &&
		      strstr(s, "\n    P       fixture <unknown>    8           2   16.7   21.2  "
				"  21.7   21.5     50      1000\n"),
	      "ghc-prof: total alloc with commas, %%alloc and bytes in both tables, MAIN "
	      "inheriting 100.0 of both");
	free(s);

	s = render(export_find("callgrind"), &m, &o, &size);
	callgrind_alloc(&m, s);
	free(s);

	CHECK(renders_with("speedscope", &m, &o, "\"name\":\"fixture\",\"unit\":\"nanoseconds\"",
			   "\"name\":\"fixture allocation (bytes)\",\"unit\":\"bytes\","
			   "\"startValue\":0,\"endValue\":4723,",
			   NULL),
	      "speedscope: the time profile, then one in bytes");
	CHECK(renders_with("svg", &m, &o, "\nallocated 4723 bytes (100.00%) in 49 blocks\n", NULL),
	      "svg: allocations in the tooltips");
	o.weight = EXPORT_WEIGHT_ALLOC;
	/* ⟨main,P,Q,R⟩ holds 3400 of 4723 bytes: 3400 / 4723 × 1180 px */
	CHECK(renders_with("svg", &m, &o, ">Flame graph of bytes allocated: ",
			   "individually 3400 bytes (71.99%) in 34 blocks</title><rect x=\"10.00\" "
			   "y=\"72.0\" width=\"849.46\"",
			   NULL),
	      "svg --weight alloc: boxes as wide as their bytes");
	o.weight = EXPORT_WEIGHT_TIME;

	/* pprof's gzip has stored blocks: the strings are there as they are */
	s = render(export_find("pprof"), &m, &o, &size);
	CHECK(memmem(s, size, "alloc_space", 11) && memmem(s, size, "alloc_objects", 13),
	      "pprof: alloc_objects and alloc_space sample types");
	free(s);
	model_free(&m);
}

/* Pruned stacks' bytes go to their "(hidden)" stand-in. */
static void pruned_alloc(void)
{
	static struct fixture fx;
	struct model m, vm;
	spivey_alloc(&fx);
	if (fx_build(&m, &fx) != 0)
		return;
	struct pruned pr;
	prune(&pr, &m, 20, &vm);
	struct export_opts o = {.weight = EXPORT_WEIGHT_ALLOC};
	size_t size;
	char *s = render(export_find("folded"), &vm, &o, &size);
	CHECK(strstr(s, "main;Q;R;P;(hidden) 16\n") != NULL,
	      "folded --weight alloc, pruned: S's 16 bytes under (hidden)");
	CHECK_EQ_U(sum_after(s, " "), SPIVEY_BYTES, "folded --weight alloc, pruned: total kept");
	free(s);
	prune_free(&pr, &vm);
	model_free(&m);
}

/* Without allocation data nothing of them shows (and the files are as
 * before allocation profiling). */
static void writers_no_alloc(void)
{
	static struct fixture fx;
	struct model m;
	spivey(&fx);
	if (fx_build(&m, &fx) != 0)
		return;
	struct export_opts o = {.node_threshold = 0.5};
	size_t size;
	char *s = render(export_find("ghc-json"), &m, &o, &size);
	CHECK(strstr(s, "\"total_alloc\":0,\n") && sum_after(s, "\"alloc\": ") == 0,
	      "ghc-json without allocations: total_alloc and every alloc 0");
	free(s);
	s = render(export_find("callgrind"), &m, &o, &size);
	CHECK(!strstr(s, "alloc") && strstr(s, "\nevents: ticks calls\n"),
	      "callgrind without allocations: two events");
	free(s);
	s = render(export_find("speedscope"), &m, &o, &size);
	CHECK(!strstr(s, "bytes"), "speedscope without allocations: the time profile only");
	free(s);
	s = render(export_find("pprof"), &m, &o, &size);
	CHECK(!memmem(s, size, "alloc_", 6), "pprof without allocations: two sample types");
	free(s);
	s = render(export_find("svg"), &m, &o, &size);
	CHECK(!strstr(s, "alloc"), "svg without allocations: none in the tooltips");
	free(s);
	model_free(&m);
}

/* Names no folded line can hold as they are (docs/exports.md, "folded"). */
static void folded_names(void)
{
	static struct fixture fx;
	struct model m;
	fx_init(&fx, 1000000);
	fx_ctx(&fx, "[main] [semi] [digits]", 1, 0, 2000);
	strcpy(fx.names[fx_cc(&fx, "semi")], "a;b");
	strcpy(fx.names[fx_cc(&fx, "digits")], "frame 42");
	if (fx_build(&m, &fx) != 0)
		return;
	struct export_opts o = {0};
	size_t size;
	char *s = render(export_find("folded"), &m, &o, &size);
	CHECK(strcmp(s, "main;a\xef\xbc\x9b" "b;frame\xc2\xa0" "42 2000\n") == 0,
	      "folded: ';' in a name is U+FF1B, a trailing ' 42' keeps one count");
	free(s);
	model_free(&m);
}

int main(void)
{
	protobuf();
	gzip();
	scaling();
	escapers();
	walking();
	writers();
	writers_alloc();
	pruned_alloc();
	writers_no_alloc();
	folded_names();
	ghc_prof();
	return check_failures != 0;
}
