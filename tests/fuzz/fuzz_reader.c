/*
 * fuzz_reader.c - libFuzzer harness for everything a profile goes through
 * in the tool: the decoder, the model, and every report writer.
 *
 * Build and run with `make fuzz` (docs/fuzzing.md).  For each input:
 *
 *   1. decode with CCP_DECODE_NO_CRC, so mutated bytes reach the structural
 *      checks instead of stopping at "checksum mismatch";
 *   2. if the reader accepts it, build the model once per set of passes a
 *      command asks for (cmd_report.c, cmd_info.c) and run that command's
 *      writer into /dev/null:
 *        ccprof info / info --json          MODEL_FLAT
 *        ccprof report                      report_text_passes(default)
 *        ccprof report --graph              + MODEL_ARCS
 *        ccprof report --contexts --top 0   + MODEL_CONTEXTS
 *        ccprof report --graph --contexts --top 1, and --json    MODEL_ALL
 *        ccprof report --heap --threads, and --json of a heap profile
 *   3. re-encode the profile, decode that (with the CRC this time) and
 *      re-encode again: docs/format.md §6 promises the writer accepts
 *      whatever the reader accepts and that the second encoding is
 *      byte-identical to the first.
 *
 * A broken promise in step 3 calls abort(), so libFuzzer reports it like a
 * crash.  A profile the model refuses (model_build returning -1) is fine:
 * `ccprof` prints the reason and exits 1.
 *
 * Module paths in a fuzzed profile name files the model tries to read
 * (model.c resolve_names, for functions without a name), so run the
 * fuzzer where opening an arbitrary short path is harmless.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "model/model.h"
#include "cli/cli.h"
#include "cli/report_heap.h"
#include "output/export.h"
#include "output/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* report_heap.c says why a heap cannot be built with the CLI's error
 * line, and the rest of the CLI (src/cli/cli.c) is not linked here: the
 * line goes to stderr as it is. */
void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static FILE *devnull;

static void model_then(const struct ccp_profile *p, unsigned passes,
		       void (*view)(struct model *m))
{
	struct model m;
	char err[256];
	memset(&m, 0, sizeof m);
	if (model_build(&m, p, passes, err, sizeof err) == 0)
		view(&m);
	model_free(&m);
}

static void view_info(struct model *m)
{
	struct info_input in = {.m = m, .path = "fuzz.ccprof", .file_size = 12345};
	info_text(devnull, &in);
	info_json(devnull, &in);
}

static void view_default(struct model *m)
{
	struct report_opts o = {.top = 20};
	report_text(devnull, m, &o);
}

static void view_graph(struct model *m)
{
	struct report_opts o = {.top = 20, .graph = 1};
	report_text(devnull, m, &o);
}

static void view_contexts(struct model *m)
{
	struct report_opts o = {.top = 0, .contexts = 1};
	report_text(devnull, m, &o);
}

static void view_all(struct model *m)
{
	/* Sorted by allocation when the run counted it (--sort alloc; the
	 * command refuses it otherwise). */
	struct report_opts o = {.top = 1, .graph = 1, .contexts = 1,
				.sort = model_alloc_measured(m) ? REPORT_SORT_ALLOC : REPORT_SORT_CALLS};
	model_hook_cost(m); /* the text and JSON sections of report --hook-cost */
	report_text(devnull, m, &o);
	struct report_opts j = {.top = 20};
	report_json(devnull, m, &j);
	/* report --heap --threads and report --json --threads of a heap
	 * profile (each the plain report without heap data): the heap models
	 * make each thread's as m has them (heap_views_like). */
	model_threads(m, MODEL_FLAT | MODEL_ARCS);
	struct report_heap_args text = {.text = 1}, json = {.json = 1};
	report_heap_write(devnull, "fuzz.ccprof", m, &j, &text);
	report_heap_write(devnull, "fuzz.ccprof", m, &j, &json);
}

/* `ccprof convert --to F` for every format, merged threads (the export
 * writers read the same model passes the command builds for them). */
static void exports(const struct ccp_profile *p)
{
	for (unsigned i = 0; i < export_nformats; i++) {
		const struct export_format *f = &export_formats[i];
		struct export_opts o = {.node_threshold = EXPORT_NODE_THRESHOLD_DEFAULT};
		struct model m;
		char err[256];

		memset(&m, 0, sizeof m);
		if (model_build(&m, p, f->passes | MODEL_TREE, err, sizeof err) == 0) {
			struct export_input in = {.m = &m};

			if (f->hot)
				model_hot(&m);
			f->write(devnull, &in, &o);
			/* --weight alloc, where a format takes it and the run
			 * counted allocations (the command refuses it otherwise). */
			if ((f->accepts & EXPORT_OPT_WEIGHT) && model_alloc_measured(&m)) {
				o.weight = EXPORT_WEIGHT_ALLOC;
				f->write(devnull, &in, &o);
			}
		}
		model_free(&m);
	}
}

static void roundtrip(const struct ccp_profile *p)
{
	unsigned char *b1, *b2;
	size_t n1, n2;
	struct ccp_profile q;
	char err[256];
	if (ccp_format_encode(p, &b1, &n1) != 0) {
		fprintf(stderr, "fuzz_reader: the writer refuses a profile the reader accepted\n");
		abort();
	}
	if (ccp_format_decode(b1, n1, &q, err, sizeof err) != 0) {
		fprintf(stderr, "fuzz_reader: re-encoded profile does not decode: %s\n", err);
		abort();
	}
	if (ccp_format_encode(&q, &b2, &n2) != 0) {
		fprintf(stderr, "fuzz_reader: second re-encode refused\n");
		abort();
	}
	if (n1 != n2 || memcmp(b1, b2, n1) != 0) {
		fprintf(stderr, "fuzz_reader: encode(decode(encode(p))) != encode(p)\n");
		abort();
	}
	free(b1);
	free(b2);
	ccp_profile_free(&q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ccp_profile p;
	char err[256];
	if (!devnull && !(devnull = fopen("/dev/null", "w"))) {
		perror("fuzz_reader: /dev/null");
		abort();
	}
	if (ccp_format_decode_flags(data, size, &p, err, sizeof err, CCP_DECODE_NO_CRC) != 0) {
		if (!err[0]) {
			fprintf(stderr, "fuzz_reader: decode failed without a reason\n");
			abort();
		}
		return 0;
	}
	struct report_opts dflt = {.top = 20}, graph = {.top = 20, .graph = 1},
			   ctxs = {.contexts = 1};
	model_then(&p, MODEL_FLAT, view_info);
	model_then(&p, report_text_passes(&dflt), view_default);
	model_then(&p, report_text_passes(&graph), view_graph);
	model_then(&p, report_text_passes(&ctxs), view_contexts);
	model_then(&p, MODEL_ALL, view_all);
	exports(&p);
	roundtrip(&p);
	ccp_profile_free(&p);
	return 0;
}
