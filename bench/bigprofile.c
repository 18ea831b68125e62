/*
 * bigprofile.c - write a synthetic profile with many contexts, to time
 * `ccprof report` on it (bench/run's report speed check).
 *
 * Usage: bigprofile OUT [CONTEXTS [FUNCTIONS [THREADS]]]
 *   defaults: 1000000 contexts, 20000 functions, 1 thread.
 *
 * The contexts form a call tree: context i (i >= 1) extends context
 * (i - 1) / 6 by one function not already on its path nor run by an
 * earlier sibling, so the tree is about eight levels deep with a fan-out
 * of six, every entry marked (no recursion), and no two histories are the
 * same, as in a profile the runtime writes; each has pseudo-random
 * entries, recursive calls and time.
 * Context 0 of each thread is the root (empty history).  Linked against
 * build/lib/libccprof-tool.a with -Isrc: uses format.h's writer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (p == NULL) {
		perror("bigprofile");
		exit(1);
	}
	return p;
}

/* Does an earlier child of context i's parent run cc?  Then the two would
 * have the same history, which the runtime never writes (one context per
 * history): the model would merge them (model.c). */
static int sibling_runs(const struct ccp_context *c, uint32_t i, uint32_t cc)
{
	for (uint32_t s = (i - 1) / 6 * 6 + 1; s < i; s++)
		if (CCP_ENTRY_CC(c[s].hist[c[s].len - 1]) == cc)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bigprofile OUT [CONTEXTS [FUNCTIONS [THREADS]]]\n");
		return 2;
	}
	const char *out = argv[1];
	uint32_t nctx = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1000000;
	uint32_t nfn = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 20000;
	uint32_t nthr = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 1;
	if (nctx < 1 || nfn < 64 || nthr < 1) {
		fprintf(stderr, "bigprofile: need CONTEXTS >= 1, FUNCTIONS >= 64, THREADS >= 1\n");
		return 2;
	}

	struct ccp_module mod = {.path = "/opt/synthetic/bin/app", .build_id = "", .base = 0x400000};
	struct ccp_cc *ccs = xcalloc(nfn, sizeof *ccs);
	char (*names)[24] = xcalloc(nfn, sizeof *names);
	for (uint32_t i = 0; i < nfn; i++) {
		snprintf(names[i], sizeof names[i], "function_%u", i);
		ccs[i] = (struct ccp_cc){.kind = CCP_CC_FUNCTION, .name = names[i], .module = 0,
					 .offset = 0x1000 + 64ull * i, .file = "", .line = 0};
	}

	/* Contexts are spread over the threads round-robin; each thread's
	 * tree is built the same way from its own index. */
	struct ccp_thread *th = xcalloc(nthr, sizeof *th);
	uint64_t calls = 0, total = 0, deepest = 0;
	for (uint32_t t = 0; t < nthr; t++) {
		uint32_t n = nctx / nthr + (t < nctx % nthr);
		struct ccp_context *c = xcalloc(n, sizeof *c);
		uint32_t *pool = xcalloc((size_t)n * 16, sizeof *pool);
		size_t used = 0;

		th[t] = (struct ccp_thread){.tid = 1000 + t, .name = "", .ncontexts = n, .contexts = c};
		c[0] = (struct ccp_context){.len = 0, .hist = NULL, .time = next() % 1000000};
		total += c[0].time;
		for (uint32_t i = 1; i < n; i++) {
			const struct ccp_context *p = &c[(i - 1) / 6];
			uint32_t len = p->len + 1, cc;

			if (len > 16) /* cannot happen with fan-out 6, but stay safe */
				len = 16;
			for (;;) { /* a function not on the path yet */
				cc = (uint32_t)(next() % nfn);
				uint32_t k;
				for (k = 0; k < len - 1; k++)
					if (CCP_ENTRY_CC(p->hist[k]) == cc)
						break;
				if (k == len - 1 && !sibling_runs(c, i, cc))
					break;
			}
			uint32_t *h = pool + used;
			used += len;
			if (len > 1)
				memcpy(h, p->hist, (len - 1) * sizeof *h);
			h[len - 1] = CCP_ENTRY(cc, 1);
			c[i].len = len;
			c[i].hist = h;
			c[i].entries = 1 + next() % 1000;
			c[i].recursive = next() % 4 == 0 ? next() % 100 : 0;
			c[i].time = next() % 10000000;
			calls += c[i].entries + c[i].recursive;
			total += c[i].time;
			if (len > deepest)
				deepest = len;
		}
	}

	const char *args[] = {"app", "--synthetic", NULL};
	struct ccp_profile p = {
		.program = "/opt/synthetic/bin/app",
		.argc = 2,
		.argv = args,
		.pid = 4242,
		.start_ns = 1700000000000000000ull,
		.end_ns = 1700000000000000000ull + total,
		.clock = CCP_CLOCK_CPU,
		.interval_ns = 1000000,
		.ticks_per_sec = 1000000000,
		.options = "",
		.hostname = "synthetic",
		.nmodules = 1,
		.modules = &mod,
		.nccs = nfn,
		.ccs = ccs,
		.nthreads = nthr,
		.threads = th,
		.stats = {.calls = calls, .contexts = nctx, .transitions = nctx,
			  .deepest_history = deepest, .max_depth = deepest,
			  .samples = total / 1000000},
	};

	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ccp_format_write_fd(&p, fd) != 0 || close(fd) != 0) {
		fprintf(stderr, "bigprofile: %s: %s\n", out, strerror(errno));
		return 1;
	}
	printf("bigprofile: %s: %u contexts, %u functions, %u threads\n", out, nctx, nfn, nthr);
	return 0;
}
