/*
 * model_misc.c - the model's edge cases: names of unnamed cost centres,
 * empty and root-only profiles, a damaged history, a very deep history
 * (no recursion anywhere in the passes), and the spontaneous arc of a
 * thread root that is re-entered through mutual recursion, and what a
 * profile lost to the context budget (model_overflow).
 */
#include <inttypes.h>

#include "model_fixture.h"
#include "output/report.h"

static void names(void)
{
	static struct fixture f;
	static struct ccp_module mods[] = {{"/usr/lib/libfoo.so.1", "", 0}};
	struct model m;
	fx_init(&f, 1000);
	f.p.modules = mods;
	f.p.nmodules = 1;
	fx_ctx(&f, "[main] [x] [y] [z]", 1, 0, 1);
	f.ccs[fx_cc(&f, "x")] = (struct ccp_cc){.kind = CCP_CC_FUNCTION, .name = "",
						 .module = 0, .offset = 0x1a2b};
	f.ccs[fx_cc(&f, "y")] = (struct ccp_cc){.kind = CCP_CC_FUNCTION, .name = "",
						 .module = -1, .offset = 0x10};
	f.ccs[fx_cc(&f, "z")] = (struct ccp_cc){.kind = CCP_CC_OVERFLOW, .name = "", .module = -1};
	CHECK(fx_build(&m, &f) == 0, "profile with unnamed cost centres builds");
	CHECK(strcmp(m.fns[1].name, "0x1a2b@libfoo.so.1") == 0, "unnamed function: %s",
	      m.fns[1].name);
	CHECK(strcmp(m.fns[2].name, "0x10") == 0, "no module: %s", m.fns[2].name);
	CHECK(strcmp(m.fns[3].name, "<overflow>") == 0, "overflow: %s", m.fns[3].name);
	CHECK(strcmp(m.fns[0].name, "main") == 0, "named function keeps its name");
	model_free(&m);
}

static void empty(void)
{
	static struct fixture f;
	struct model m;
	fx_init(&f, 0); /* no clock rate: seconds must not divide by zero */
	f.p.nthreads = 0;
	CHECK(fx_build(&m, &f) == 0, "profile without threads builds");
	CHECK(m.nctx == 0 && m.nnodes == 1 && m.narcs == 0 && m.nlisted == 0,
	      "empty model: no contexts, root node only");
	CHECK(model_seconds(&m, 100) == 0 && model_percent(&m, 100) == 0,
	      "ratios guarded against zero");
	fx_check_identities(&m, "empty");
	model_free(&m);

	fx_init(&f, 1000);
	fx_ctx(&f, "", 0, 0, 42);
	CHECK(fx_build(&m, &f) == 0, "root-only profile builds");
	CHECK(m.root_ctx == 0 && m.root_time == 42 && m.total_time == 42,
	      "root context holds the time outside any CC");
	CHECK_NEAR(model_percent(&m, m.root_time), 100.0, 1e-9, "all of it outside");
	model_free(&m);
}

static void damaged(void)
{
	static struct fixture f;
	struct model m;
	char err[128] = "";
	fx_init(&f, 1000);
	fx_ctx(&f, "[main] [P]", 1, 0, 1);
	f.hist[1] = CCP_ENTRY(77, 1); /* no such cost centre */
	CHECK(model_build(&m, &f.p, MODEL_ALL, err, sizeof err) != 0, "unknown cost centre is refused");
	CHECK(strstr(err, "unknown cost centre") != NULL, "reason: %s", err);
	model_free(&m);

	/* The decoder refuses a CC marked twice; the model still counts the
	 * context once for it. */
	fx_init(&f, 1000);
	fx_ctx(&f, "[main] [P] [Q] [P]", 1, 0, 10);
	CHECK(fx_build(&m, &f) == 0, "doubly marked history builds");
	CHECK_EQ_U(fx_fn(&m, "P")->inherited, 10, "inherited counts the context once");
	model_free(&m);
}

/* A history of 3000 distinct marked entries: a tree 3000 deep, which the
 * passes and the writers must walk without recursion. */
#define DEEP 3000
static void deep(void)
{
	static struct fixture f;
	static struct ccp_cc ccs[DEEP];
	static char names[DEEP][8];
	static uint32_t hist[DEEP];
	struct model m;
	fx_init(&f, 1000);
	for (uint32_t i = 0; i < DEEP; i++) {
		snprintf(names[i], sizeof names[i], "f%u", (unsigned)i);
		ccs[i] = (struct ccp_cc){.kind = CCP_CC_FUNCTION, .name = names[i], .module = -1};
		hist[i] = CCP_ENTRY(i, 1);
	}
	f.p.ccs = ccs;
	f.p.nccs = DEEP;
	f.ctx[0][0] = (struct ccp_context){.len = DEEP, .hist = hist, .entries = 1, .time = 7};
	f.threads[0].ncontexts = 1;
	CHECK(fx_build(&m, &f) == 0, "long history builds");
	CHECK_EQ_U(m.nnodes, DEEP + 1, "a chain of 3000 nodes under the root");
	CHECK_EQ_U(m.nodes[DEEP].depth, DEEP, "depth 3000");
	CHECK_EQ_U(fx_fn(&m, "f0")->inherited, 7, "the bottom inherits the time");
	FILE *null = fopen("/dev/null", "w");
	struct report_opts o = {.top = 0, .graph = 1, .contexts = 1};
	CHECK(null && report_text(null, &m, &o) == 0 && report_json(null, &m, &o) == 0,
	      "text and JSON writers walk a 3000-deep tree");
	if (null)
		fclose(null);
	fx_check_identities(&m, "deep");
	fx_check_in_equals_out(&m, "deep");
	model_free(&m);
}

/* Thread root main re-entered by mutual recursion: main [f] [main]. */
static void root_reentered(void)
{
	static struct fixture f;
	struct model m;
	fx_init(&f, 1000);
	fx_ctx(&f, "[main]", 1, 0, 1);
	fx_ctx(&f, "[main] [f]", 1, 0, 2);
	fx_ctx(&f, "main [f] [main]", 3, 0, 4);
	CHECK(fx_build(&m, &f) == 0, "re-entered root builds");
	const struct model_arc *sp = fx_arc(&m, "", "main");
	CHECK(sp && sp->calls == 1 && sp->self_in == 1 && sp->child_in == 2,
	      "spontaneous arc: only contexts where the first main is marked");
	const struct model_arc *fm = fx_arc(&m, "f", "main");
	CHECK(fm && fm->calls == 3 && fm->self_in == 4 && fm->self_out == 4, "arc f->main");
	CHECK_EQ_U(fx_fn(&m, "main")->inherited, 7, "inherited(main)");
	fx_check_identities(&m, "re-entered root");
	model_free(&m);
}

/* What model_overflow finds (Note [Saying the overflow]): the threads
 * with an overflow context, the distinct functions and the calls and
 * ticks there; the limit read from the options as the runtime reads
 * them (later keys win, a bad value keeps the earlier one, a backslash
 * escapes the next character). */
static uint64_t limit_in(struct fixture *f, const char *options)
{
	f->p.options = options;
	return model_overflow(&f->p).max_contexts;
}

static void overflow(void)
{
	static struct fixture f;
	struct model_overflow ov;
	fx_init(&f, 1000);
	fx_ctx(&f, "[main] [f]", 4, 0, 100);
	ov = model_overflow(&f.p);
	CHECK(ov.threads == 0 && ov.calls == 0 && ov.time == 0 && ov.functions == 0 &&
	      ov.total_time == 100 && ov.max_contexts == 1000000,
	      "no overflow context: nothing lost, the default limit");
	fx_thread(&f);
	fx_ctx(&f, "[w]", 1, 0, 7);
	fx_ctx(&f, "[O] [f]", 5, 2, 30);
	fx_ctx(&f, "[O] [g]", 3, 0, 10);
	fx_thread(&f);
	fx_ctx(&f, "[O] [f]", 1, 0, 5);
	fx_thread(&f);
	fx_ctx(&f, "[x]", 1, 0, 1);
	f.ccs[fx_cc(&f, "O")] = (struct ccp_cc){.kind = CCP_CC_OVERFLOW, .name = "", .module = -1};
	ov = model_overflow(&f.p);
	CHECK(ov.threads == 2 && ov.first_thread == 1 && ov.functions == 2 && ov.calls == 11 &&
	      ov.time == 45 && ov.total_time == 153,
	      "overflow: 2 threads from the second, f and g, 11 calls, 45 ticks of 153 "
	      "(%" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64 ")",
	      ov.threads, ov.first_thread, ov.functions, ov.calls, ov.time, ov.total_time);
	CHECK(!model_thread_overflowed(&f.p, 0) && model_thread_overflowed(&f.p, 1) &&
	      model_thread_overflowed(&f.p, 2) && !model_thread_overflowed(&f.p, 3),
	      "overflow: the second and third threads reached the limit");
	CHECK_EQ_U(limit_in(&f, "clock=cycles:max_contexts=16"), 16, "max_contexts=16");
	CHECK_EQ_U(limit_in(&f, "max_contexts=20:max_contexts=bad"), 20, "a bad value keeps 20");
	CHECK_EQ_U(limit_in(&f, "max_contexts=20,max_contexts=15"), 20, "below 16 keeps 20");
	CHECK_EQ_U(limit_in(&f, "max_contexts=20:max_contexts=0032"), 32, "later wins: 0032");
	CHECK_EQ_U(limit_in(&f, "max_contexts=64:output=a\\:max_contexts=17"), 64,
		   "an escaped ':' is part of output=");
	CHECK_EQ_U(limit_in(&f, "max\\_contexts=40::x"), 40, "an escaped key character");
	CHECK_EQ_U(limit_in(&f, "max_contexts= 50"), 1000000, "' 50' is bad: the default");
	CHECK_EQ_U(limit_in(&f, ""), 1000000, "no options: the default");
}

int main(void)
{
	names();
	empty();
	damaged();
	deep();
	root_reentered();
	overflow();
	return check_failures != 0;
}
