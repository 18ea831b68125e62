/*
 * info.c - `ccprof info`: facts about a profile and the run that made it,
 * as text or JSON (one interface, two writers, like the reports).
 *
 * Most numbers are the runtime's own counters (struct ccp_stats); a few
 * come from the model: distinct histories (equal ones merged, across
 * threads and within one), and the functions that appear in some context.
 */
#include "output/report.h"

#include <inttypes.h>
#include <time.h>

#include "model/heap.h"
#include "model/sources.h"
#include "output/escape.h"
#include "output/jrep.h"
#include "output/json.h"
#include "output/text.h"

/* The runtime's per-call overhead estimate in nanoseconds (0: unknown). */
static double overhead_ns(const struct ccp_profile *p)
{
	if (!p->ticks_per_sec)
		return 0;
	return (double)p->overhead_milliticks / 1000.0 / (double)p->ticks_per_sec * 1e9;
}

static double duration_s(const struct ccp_profile *p)
{
	return p->end_ns > p->start_ns ? (double)(p->end_ns - p->start_ns) / 1e9 : 0;
}

static void text_time(struct ob *f, const char *label, uint64_t ns)
{
	char buf[64] = "unknown";
	time_t t = (time_t)(ns / 1000000000u);
	struct tm tm;
	if (ns && localtime_r(&t, &tm))
		strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S %z", &tm);
	ob_printf(f, "%-18s %s\n", label, buf);
}

static void text_string(struct ob *f, const char *label, const char *s)
{
	ob_printf(f, "%-18s ", label);
	escape_puts(f, &escape_text, s ? s : "");
	ob_putc(f, '\n');
}

static void text_u64(struct ob *f, const char *label, uint64_t v)
{
	ob_printf(f, "%-18s %" PRIu64 "\n", label, v);
}

static void text_run(struct ob *f, const struct ccp_profile *p)
{
	text_string(f, "program", p->program);
	ob_printf(f, "%-18s", "arguments");
	for (uint32_t i = 0; i < p->argc; i++) {
		ob_putc(f, ' ');
		text_shell_word(f, p->argv[i] ? p->argv[i] : "");
	}
	ob_putc(f, '\n');
	text_u64(f, "pid", p->pid);
	text_string(f, "host", p->hostname);
	text_time(f, "start", p->start_ns);
	text_time(f, "end", p->end_ns);
	ob_printf(f, "%-18s %.3f s\n", "duration", duration_s(p));
	text_string(f, "options", p->options);
	if (p->stats.merged)
		ob_printf(f, "%-18s %" PRIu64 " profile%s (program, arguments, pid, host and options "
			  "are the first's; start and end the earliest and the latest)\n",
			  "merged", p->stats.merged, p->stats.merged == 1 ? "" : "s");
}

static void text_clock(struct ob *f, const struct model *m)
{
	const struct ccp_profile *p = m->prof;
	ob_printf(f, "%-18s %s\n", "clock", report_clock_name(p->clock));
	text_u64(f, "ticks/sec", p->ticks_per_sec);
	if (p->clock == CCP_CLOCK_CYCLES)
		ob_printf(f, "%-18s %.3f GHz\n", "cycle frequency", (double)p->ticks_per_sec / 1e9);
	else
		ob_printf(f, "%-18s %g ms\n", "sampling interval", (double)p->interval_ns / 1e6);
	text_u64(f, "samples", p->stats.samples);
	if (p->stats.looks)
		ob_printf(f, "%-18s %" PRIu64 " (%.1f a sample)\n", "looks at threads", p->stats.looks,
			  p->stats.samples ? (double)p->stats.looks / (double)p->stats.samples : 0.0);
	if (p->overhead_milliticks == 0) /* no instrumented call ran: never calibrated */
		ob_printf(f, "%-18s not measured\n", "overhead estimate");
	else
		ob_printf(f, "%-18s %.1f ns per call\n", "overhead estimate", overhead_ns(p));
	if (p->clock == CCP_CLOCK_CYCLES)
		ob_printf(f, "%-18s %.3f s%s\n", "subtracted", model_seconds(m, p->stats.subtracted),
			  p->stats.subtracted || !p->overhead_milliticks || !p->stats.calls
				  ? ""
				  : " (not recorded: an older runtime's file)");
}

/* Of the functions that ran (listed, not regions), how many have a
 * source line: none at all says the binaries are gone, rebuilt or built
 * without -g (model/sources.c). */
static uint32_t with_source(const struct model *m, uint32_t *functions)
{
	uint32_t with = 0;
	*functions = 0;
	for (uint32_t i = 0; i < m->nlisted; i++) {
		const struct ccp_cc *c = &m->prof->ccs[m->by_self[i]];
		if (c->kind != CCP_CC_FUNCTION)
			continue;
		(*functions)++;
		with += ccp_cc_has_source(c);
	}
	return with;
}

/* Note [Saying the overflow] in src/model/overflow.c: who reached
 * max_contexts, and what "lost time" above is the time of. */
static void text_overflow_info(struct ob *f, const struct ccp_profile *p)
{
	struct model_overflow ov = model_overflow(p);

	if (ov.threads == 0)
		return;
	ob_printf(f, "%-18s ", "overflow");
	text_overflow_who(f, p, &ov);
	ob_printf(f, ",\n%-18s so %" PRIu64 " call%s of %" PRIu32 " function%s lost their callers "
		     "(under <overflow>);\n%-18s record with a larger --max-contexts (above %" PRIu64
		     ") keeps more of them\n", "", ov.calls, ov.calls == 1 ? "" : "s", ov.functions,
		  ov.functions == 1 ? "" : "s", "", ov.max_contexts);
}

static void text_counts(struct ob *f, const struct info_input *in)
{
	const struct model *m = in->m;
	const struct ccp_profile *p = m->prof;
	const struct ccp_stats *s = &p->stats;
	text_u64(f, "calls", s->calls);
	ob_printf(f, "%-18s %" PRIu64 " (%" PRIu32 " distinct histories)\n", "contexts", s->contexts,
		m->nctx);
	text_u64(f, "transitions", s->transitions);
	ob_printf(f, "%-18s %" PRIu32 " (of %" PRIu32 " cost centres)\n", "functions", m->nlisted,
		p->nccs);
	text_u64(f, "threads", p->nthreads);
	text_u64(f, "modules", p->nmodules);
	uint32_t fns, src = with_source(m, &fns);
	if (sources_library() != NULL)
		ob_printf(f, "%-18s %" PRIu32 " of %" PRIu32 " functions\n", "source lines", src,
			  fns);
	else /* else "0 of M" would blame the binaries */
		ob_printf(f, "%-18s %" PRIu32 " of %" PRIu32 " functions (this ccprof reads no "
			  "debug information: built without libdw)\n", "source lines", src, fns);
	text_u64(f, "deepest history", s->deepest_history);
	text_u64(f, "max depth", s->max_depth);
	ob_printf(f, "%-18s %" PRIu64 " bytes (%.1f MiB)\n", "profiling memory", s->memory_bytes,
		(double)s->memory_bytes / 1048576.0);
	text_u64(f, "lost calls", s->lost_calls);
	ob_printf(f, "%-18s %.3f s\n", "lost time", model_seconds(m, s->lost_time));
	text_overflow_info(f, p);
	ob_printf(f, "%-18s %.6f s (the profiler's own work, charged to no function)\n", "own time",
		  model_seconds(m, s->own_time));
	if (s->dispatchers) /* a runtime's from before session 51: STATS key 10 */
		ob_printf(f, "%-18s %" PRIu64 " (contexts whose inline cache was bypassed or on "
			     "retrial)\n", "dispatchers", s->dispatchers);
	ob_printf(f, "%-18s %" PRIu64 " (%.3f %% of calls: transitions made before that the "
		     "caches missed)\n", "slow finds", s->slow_finds,
		  s->calls ? 100.0 * (double)s->slow_finds / (double)s->calls : 0.0);
}

/* With allocation data: the run's total (every context's and those
 * outside any), and the part outside. */
static void text_alloc(struct ob *f, const struct model *m)
{
	struct model_alloc all = model_alloc_total(m), outside = model_alloc_outside(m);
	if (!model_alloc_measured(m))
		return;
	ob_printf(f, "%-18s ", "allocated");
	text_bytes_blocks(f, all);
	ob_printf(f, "\n%-18s ", "outside contexts");
	text_bytes_blocks(f, outside);
	ob_puts(f, " (before a thread's first call)\n");
}

/* With heap data (heap=1): the peak, the live heap at the write (all of
 * it, and the part outside any context) and the samples. */
static void text_heap(struct ob *f, const struct ccp_profile *p)
{
	const struct ccp_heap *h = &p->heap;
	struct model_alloc live = heap_live_in_contexts(p);
	struct model_alloc outside = {h->outside_live_bytes, h->outside_live_blocks};
	if (!heap_measured(p))
		return;
	model_alloc_add(&live, outside);
	ob_printf(f, "%-18s %" PRIu64 " bytes (the most the live heap held)\n", "heap peak",
		  h->peak_bytes);
	ob_printf(f, "%-18s ", "live at end");
	text_bytes_blocks(f, live);
	ob_printf(f, "\n%-18s ", "live outside");
	text_bytes_blocks(f, outside);
	ob_puts(f, " (allocated in no context)\n");
	ob_printf(f, "%-18s %" PRIu32 ", every %g ms\n", "heap samples", h->nsamples,
		  (double)h->interval_ns / 1e6);
	if (p->stats.untracked_allocs)
		ob_printf(f, "%-18s %" PRIu64 " " TEXT_UNTRACKED_WHY "\n", "heap untracked",
			  p->stats.untracked_allocs);
}

int info_text(FILE *out, const struct info_input *in)
{
	const struct ccp_profile *p = in->m->prof;
	struct ob *f = ob_open(out);
	text_string(f, "file", in->path);
	text_u64(f, "file size", in->file_size);
	text_run(f, p);
	text_clock(f, in->m);
	text_counts(f, in);
	text_alloc(f, in->m);
	text_heap(f, p);
	return ob_close(f);
}

/* "heap": the same as text_heap, with heap data only. */
static void json_heap(struct json *j, const struct ccp_profile *p)
{
	const struct ccp_heap *h = &p->heap;
	struct model_alloc live = heap_live_in_contexts(p);
	if (!heap_measured(p))
		return;
	json_newline(j);
	json_key(j, "heap");
	json_begin_object(j);
	json_kuint(j, "peak_bytes", h->peak_bytes);
	json_kuint(j, "live_bytes", live.bytes + h->outside_live_bytes);
	json_kuint(j, "live_blocks", live.blocks + h->outside_live_blocks);
	json_kuint(j, "outside_live_bytes", h->outside_live_bytes);
	json_kuint(j, "outside_live_blocks", h->outside_live_blocks);
	json_kuint(j, "interval_ns", h->interval_ns);
	json_kuint(j, "samples", h->nsamples);
	json_kuint(j, "untracked_allocs", p->stats.untracked_allocs);
	json_end_object(j);
}

int info_json(FILE *out, const struct info_input *in)
{
	const struct model *m = in->m;
	const struct ccp_profile *p = m->prof;
	const struct ccp_stats *s = &p->stats;
	struct ob *f = ob_open(out);
	struct json j;
	json_init(&j, f);
	json_begin_object(&j);
	json_newline(&j);
	json_kstring(&j, "file", in->path);
	json_kuint(&j, "file_size", in->file_size);
	json_newline(&j);
	json_kstring(&j, "program", p->program);
	json_kstrings(&j, "argv", p->argv, p->argc);
	json_newline(&j);
	json_kuint(&j, "pid", p->pid);
	json_kstring(&j, "hostname", p->hostname);
	json_kuint(&j, "start_ns", p->start_ns);
	json_kuint(&j, "end_ns", p->end_ns);
	json_kseconds(&j, "duration_s", p->end_ns > p->start_ns ? p->end_ns - p->start_ns : 0,
		      1000000000);
	json_kstring(&j, "options", p->options);
	json_kuint(&j, "merged_profiles", p->stats.merged);
	json_newline(&j);
	json_kstring(&j, "clock", report_clock_name(p->clock));
	json_kuint(&j, "ticks_per_sec", p->ticks_per_sec);
	json_kuint(&j, "interval_ns", p->interval_ns);
	json_kuint(&j, "samples", s->samples);
	json_kuint(&j, "looks", s->looks);
	json_kuint(&j, "overhead_milliticks", p->overhead_milliticks);
	json_kdouble(&j, "overhead_ns_per_call", overhead_ns(p));
	json_kuint(&j, "subtracted_ticks", s->subtracted);
	json_kseconds(&j, "subtracted_s", s->subtracted, p->ticks_per_sec);
	json_newline(&j);
	json_kuint(&j, "calls", s->calls);
	json_kuint(&j, "contexts", s->contexts);
	json_kuint(&j, "distinct_contexts", m->nctx);
	json_kuint(&j, "transitions", s->transitions);
	json_kuint(&j, "slow_finds", s->slow_finds);
	json_kuint(&j, "functions", m->nlisted);
	json_kuint(&j, "cost_centres", p->nccs);
	json_kuint(&j, "threads", p->nthreads);
	json_kuint(&j, "modules", p->nmodules);
	uint32_t fns, src = with_source(m, &fns);
	json_kuint(&j, "source_lines", src);
	json_kuint(&j, "instrumented_functions", fns);
	json_newline(&j);
	json_kuint(&j, "deepest_history", s->deepest_history);
	json_kuint(&j, "max_depth", s->max_depth);
	json_kuint(&j, "memory_bytes", s->memory_bytes);
	json_kuint(&j, "lost_calls", s->lost_calls);
	json_kuint(&j, "lost_ticks", s->lost_time);
	json_kseconds(&j, "lost_time_s", s->lost_time, p->ticks_per_sec);
	json_kuint(&j, "own_ticks", s->own_time);
	json_kseconds(&j, "own_time_s", s->own_time, p->ticks_per_sec);
	json_kuint(&j, "dispatchers", s->dispatchers);
	jr_overflow_member(&j, p);
	jr_alloc_member(&j, m);
	json_heap(&j, p);
	json_end_object(&j);
	ob_putc(f, '\n');
	return ob_close(f);
}
