/*
 * mkprof.c - write a profile described in text, through the format
 * library's writer (format.h), for the script tests that need exact
 * numbers a real run cannot give, or data no runtime writes yet
 * (allocations).
 *
 * Usage: mkprof OUT < SPEC.  SPEC has one directive per line ('#' starts
 * a comment line):
 *
 *   program PATH ARG...      the command line (argv[0] = PATH)
 *   clock cpu|cycles|wall TICKS_PER_SEC
 *   alloc BYTES BLOCKS       the run counted allocations; these were made
 *                            outside any context
 *   thread TID [NAME]        the contexts below are this thread's
 *   ctx E R T [BYTES BLOCKS [LIVE_BYTES LIVE_BLOCKS]] : HISTORY
 *                            a context, its history drawn as
 *                            docs/semantics.md does: "[main] P [Q]"
 *                            (marked in brackets);
 *                            nothing after ':' is the root context; LIVE:
 *                            what it held when the profile was written
 *   heap INTERVAL_NS PEAK OUTSIDE_BYTES OUTSIDE_BLOCKS
 *                            the run followed the heap (needs alloc);
 *                            OUTSIDE: live at the write in no context
 *   sample TIME_NS OUTSIDE_BYTES
 *                            a heap sample, its records on the lines after:
 *   rec THREAD CONTEXT BYTES a context's live bytes in the sample above
 *                            (THREAD and CONTEXT count from 0 in the order
 *                            of the thread and ctx lines)
 *   source NAME FILE LINE    cost centre NAME's source file and line
 *   time START END           when the run started and ended (ns since
 *                            the epoch)
 *   dispatchers N            STATS key 10, as a runtime before session
 *                            51 wrote it
 *   hooks MILLITICKS SUBTRACTED
 *                            the runtime's estimate per hooked call in
 *                            ticks * 1000, and the ticks clock=cycles took
 *                            off as the hooks' cost (report --hook-cost)
 *
 * Cost centres are functions named in order of first use, with no module.
 * In a name, a file or an argument, \xHH is the byte HH (a space, a
 * control character, invalid UTF-8) and \\ a backslash.
 * Exits 1 with a message on a bad line or if the writer refuses.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/format.h"

#define MAX_ITEMS 4096 /* cost centres, threads, contexts, arguments each */

struct spec {
	struct ccp_profile p;
	struct ccp_cc ccs[MAX_ITEMS];
	struct ccp_thread threads[MAX_ITEMS];
	struct ccp_context ctx[MAX_ITEMS];
	const char *argv[MAX_ITEMS];
	struct ccp_heap_sample samples[MAX_ITEMS];
	struct ccp_heap_record recs[MAX_ITEMS];
	uint32_t nctx, nrecs, line;
};

static _Noreturn void bad(const struct spec *s, const char *what)
{
	fprintf(stderr, "mkprof: line %" PRIu32 ": %s\n", s->line, what);
	exit(1);
}

/* name with its \xHH and \\ escapes undone, in place. */
static char *unescape(struct spec *s, char *name)
{
	char *o = name;
	for (const char *p = name; *p; p++) {
		unsigned byte;
		if (p[0] == '\\' && p[1] == '\\') {
			*o++ = *++p;
		} else if (p[0] == '\\' && p[1] == 'x' && p[2] && p[3] &&
			   sscanf(p + 2, "%2x", &byte) == 1) {
			*o++ = (char)byte;
			p += 3;
		} else if (p[0] == '\\') {
			bad(s, "a name's \\ starts \\xHH or \\\\");
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return name;
}

static uint32_t cc_of(struct spec *s, char *name)
{
	unescape(s, name);
	for (uint32_t i = 0; i < s->p.nccs; i++)
		if (strcmp(s->ccs[i].name, name) == 0)
			return i;
	if (s->p.nccs == MAX_ITEMS)
		bad(s, "too many cost centres");
	s->ccs[s->p.nccs] = (struct ccp_cc){.kind = CCP_CC_FUNCTION, .name = strdup(name),
					    .module = -1, .offset = 16 * s->p.nccs, .file = "",
					    .line = 0};
	return s->p.nccs++;
}

/* "[a] b [c]" into c's history. */
static void history(struct spec *s, struct ccp_context *c, char *text)
{
	uint32_t *h = calloc(strlen(text) / 2 + 1, sizeof *h);
	for (char *save = NULL, *tok = strtok_r(text, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		size_t n = strlen(tok);
		int marked = tok[0] == '[' && tok[n - 1] == ']';
		if (marked)
			tok[n - 1] = '\0';
		h[c->len++] = CCP_ENTRY(cc_of(s, tok + marked), marked);
	}
	c->hist = h;
}

static void context(struct spec *s, char *args)
{
	char *colon = strchr(args, ':');
	if (!colon || s->p.nthreads == 0)
		bad(s, "ctx needs a thread before it and ':' before the history");
	*colon = '\0';
	struct ccp_context *c = &s->ctx[s->nctx];
	int n = sscanf(args,
		       "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		       " %" SCNu64,
		       &c->entries, &c->recursive, &c->time, &c->alloc_bytes, &c->alloc_blocks,
		       &c->live_bytes, &c->live_blocks);
	if (n != 3 && n != 5 && n != 7)
		bad(s, "ctx E R T [BYTES BLOCKS [LIVE_BYTES LIVE_BLOCKS]] : HISTORY");
	if (++s->nctx == MAX_ITEMS)
		bad(s, "too many contexts");
	history(s, c, colon + 1);
	s->threads[s->p.nthreads - 1].ncontexts++;
}

static void thread(struct spec *s, char *args)
{
	if (s->p.nthreads == MAX_ITEMS)
		bad(s, "too many threads");
	struct ccp_thread *t = &s->threads[s->p.nthreads++];
	char name[256] = "";
	if (sscanf(args, "%" SCNu64 " %255s", &t->tid, name) < 1)
		bad(s, "thread TID [NAME]");
	t->name = strdup(name);
	t->contexts = &s->ctx[s->nctx];
}

static void program(struct spec *s, char *args)
{
	for (char *save = NULL, *tok = strtok_r(args, " \t\n", &save); tok && s->p.argc < MAX_ITEMS;
	     tok = strtok_r(NULL, " \t\n", &save))
		s->argv[s->p.argc++] = strdup(unescape(s, tok));
	if (!s->p.argc)
		bad(s, "program PATH ARG...");
	s->p.program = s->argv[0];
	s->p.argv = s->argv;
}

static void source(struct spec *s, char *args)
{
	char name[4096], file[4096];
	uint32_t line;
	if (sscanf(args, "%4095s %4095s %" SCNu32, name, file, &line) != 3)
		bad(s, "source NAME FILE LINE");
	struct ccp_cc *c = &s->ccs[cc_of(s, name)];
	c->file = strdup(unescape(s, file));
	c->line = line;
}

static void clock_line(struct spec *s, char *args)
{
	static const char *const names[] = {"cpu", "cycles", "wall"};
	char name[16];
	if (sscanf(args, "%15s %" SCNu64, name, &s->p.ticks_per_sec) != 2)
		bad(s, "clock cpu|cycles|wall TICKS_PER_SEC");
	for (s->p.clock = 0; s->p.clock < 3 && strcmp(names[s->p.clock], name) != 0; s->p.clock++)
		;
	if (s->p.clock == 3)
		bad(s, "unknown clock");
	s->p.interval_ns = s->p.clock == CCP_CLOCK_CYCLES ? 0 : 1000000;
}

static void heap_line(struct spec *s, char *args)
{
	struct ccp_heap *h = &s->p.heap;
	if (sscanf(args, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &h->interval_ns,
		   &h->peak_bytes, &h->outside_live_bytes, &h->outside_live_blocks) != 4)
		bad(s, "heap INTERVAL_NS PEAK OUTSIDE_BYTES OUTSIDE_BLOCKS");
	h->measured = 1;
	h->samples = s->samples;
}

static void sample_line(struct spec *s, char *args)
{
	struct ccp_heap *h = &s->p.heap;
	if (!h->measured || h->nsamples == MAX_ITEMS)
		bad(s, "sample needs a heap line before it (and at most 4096)");
	struct ccp_heap_sample *x = &s->samples[h->nsamples++];
	if (sscanf(args, "%" SCNu64 " %" SCNu64, &x->time_ns, &x->outside_bytes) != 2)
		bad(s, "sample TIME_NS OUTSIDE_BYTES");
	x->records = &s->recs[s->nrecs];
}

static void rec_line(struct spec *s, char *args)
{
	struct ccp_heap *h = &s->p.heap;
	if (!h->nsamples || s->nrecs == MAX_ITEMS)
		bad(s, "rec needs a sample before it (and at most 4096)");
	struct ccp_heap_record *r = &s->recs[s->nrecs++];
	if (sscanf(args, "%" SCNu32 " %" SCNu32 " %" SCNu64, &r->thread, &r->context,
		   &r->bytes) != 3)
		bad(s, "rec THREAD CONTEXT BYTES");
	h->samples[h->nsamples - 1].nrecords++;
}

static void directive(struct spec *s, char *line)
{
	char word[16];
	int at = 0;
	if (line[strspn(line, " \t\n")] == '#' || sscanf(line, "%15s %n", word, &at) < 1)
		return;
	char *args = line + at;
	if (strcmp(word, "program") == 0)
		program(s, args);
	else if (strcmp(word, "clock") == 0)
		clock_line(s, args);
	else if (strcmp(word, "alloc") == 0) {
		if (sscanf(args, "%" SCNu64 " %" SCNu64, &s->p.alloc.outside_bytes,
			   &s->p.alloc.outside_blocks) != 2)
			bad(s, "alloc BYTES BLOCKS");
		s->p.alloc.measured = 1;
	} else if (strcmp(word, "source") == 0) {
		source(s, args);
	} else if (strcmp(word, "time") == 0) {
		if (sscanf(args, "%" SCNu64 " %" SCNu64, &s->p.start_ns, &s->p.end_ns) != 2)
			bad(s, "time START END");
	} else if (strcmp(word, "hooks") == 0) {
		if (sscanf(args, "%" SCNu64 " %" SCNu64, &s->p.overhead_milliticks,
			   &s->p.stats.subtracted) != 2)
			bad(s, "hooks MILLITICKS SUBTRACTED");
	} else if (strcmp(word, "dispatchers") == 0) {
		if (sscanf(args, "%" SCNu64, &s->p.stats.dispatchers) != 1)
			bad(s, "dispatchers N");
	} else if (strcmp(word, "thread") == 0)
		thread(s, args);
	else if (strcmp(word, "ctx") == 0)
		context(s, args);
	else if (strcmp(word, "heap") == 0)
		heap_line(s, args);
	else if (strcmp(word, "sample") == 0)
		sample_line(s, args);
	else if (strcmp(word, "rec") == 0)
		rec_line(s, args);
	else
		bad(s, "unknown directive");
}

int main(int argc, char **argv)
{
	static struct spec s;
	char line[8192];
	if (argc != 2) {
		fprintf(stderr, "usage: mkprof OUT < SPEC\n");
		return 2;
	}
	s.p = (struct ccp_profile){.program = "./prog", .clock = CCP_CLOCK_CPU,
				   .interval_ns = 1000000, .ticks_per_sec = 1000000000,
				   .options = "", .hostname = "mkprof", .ccs = s.ccs,
				   .threads = s.threads, .pid = 1};
	while (fgets(line, sizeof line, stdin)) {
		s.line++;
		directive(&s, line);
	}
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ccp_format_write_fd(&s.p, fd) != 0 || close(fd) != 0) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
