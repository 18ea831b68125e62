/*
 * profile.h - the content of a ccprof profile, in memory.
 *
 * This is the one data model that the runtime fills in at exit, the writer
 * turns into bytes, and the reader rebuilds from bytes.  Everything the tool
 * knows about a run comes from here, so a profile is self-contained: names,
 * modules, clock and options are all inside it.
 *
 * Cost centres (CCs) are numbered densely from 0 in `ccs`.  A context's
 * history is an array of entries, each `cc << 1 | mark`
 * (docs/semantics.md, "Cost centres and contexts"): the last entry is the
 * running CC and is always marked; every CC appears marked at most once.
 * The root context (before the first CC on a thread, and after the last
 * one returns) has an empty history.
 *
 * Times are in clock ticks; seconds = ticks / ticks_per_sec.  For the cpu
 * and wall clocks a tick is a nanosecond; for the cycles clock it is one
 * cycle of the time-stamp counter, whose measured rate is ticks_per_sec.
 */
#ifndef CCPROF_PROFILE_H
#define CCPROF_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#define CCP_MARK 1u
#define CCP_ENTRY(cc, marked) (((uint32_t)(cc) << 1) | ((marked) ? CCP_MARK : 0u))
#define CCP_ENTRY_CC(e) ((e) >> 1)
#define CCP_ENTRY_MARKED(e) (((e) & CCP_MARK) != 0)

enum ccp_clock {
	CCP_CLOCK_CPU = 0,    /* per-thread CPU time, sampled */
	CCP_CLOCK_CYCLES = 1, /* time-stamp counter read at each transition */
	CCP_CLOCK_WALL = 2,   /* wall-clock time, sampled (counts blocked time) */
};

enum ccp_cc_kind {
	CCP_CC_FUNCTION = 0, /* instrumented function: module + offset */
	CCP_CC_MANUAL = 1,   /* region named through ccprof.h */
	CCP_CC_OVERFLOW = 2, /* costs past the context memory budget */
};

struct ccp_module {
	const char *path;     /* absolute (docs/format.md 3.3); "" if unknown */
	const char *build_id; /* lowercase hex of NT_GNU_BUILD_ID, or "" */
	uint64_t base;        /* load address in this run (informational) */
};

struct ccp_cc {
	uint32_t kind;    /* enum ccp_cc_kind */
	const char *name; /* symbol or region name; "" if unresolved */
	int32_t module;   /* index into modules, or -1 */
	uint64_t offset;  /* address - module base (functions only) */
	const char *file; /* source file if known, else "" */
	uint32_t line;    /* source line if known, else 0 */
};

/* Whether the cost centre's source file is known (file may be NULL in a
 * profile built by hand, "" when read). */
static inline int ccp_cc_has_source(const struct ccp_cc *c)
{
	return c->file != NULL && c->file[0] != '\0';
}

struct ccp_context {
	uint32_t len;
	uint32_t *hist;     /* len entries, CCP_ENTRY(cc, mark) */
	uint64_t entries;   /* E(C): transitions into this context */
	uint64_t recursive; /* R(C): direct recursive calls (A1) */
	uint64_t time;      /* T(C): ticks charged while here */
	uint64_t alloc_bytes;  /* bytes allocated while here (ccp_alloc) */
	uint64_t alloc_blocks; /* blocks allocated while here */
	uint64_t live_bytes;   /* of those, not freed when the profile was written (ccp_heap) */
	uint64_t live_blocks;
};

struct ccp_thread {
	uint64_t tid;     /* kernel thread id */
	const char *name; /* pthread name if set, else "" */
	uint32_t ncontexts;
	struct ccp_context *contexts;
};

/* Counters the runtime keeps about itself. */
struct ccp_stats {
	uint64_t calls;           /* hook entries seen (all threads) */
	uint64_t contexts;        /* contexts created */
	uint64_t transitions;     /* transitions memoised (slow-path misses) */
	uint64_t deepest_history; /* longest history */
	uint64_t max_depth;       /* deepest shadow stack */
	uint64_t memory_bytes;    /* profiling memory in use at exit */
	uint64_t samples;         /* samples taken (sampling clocks) */
	uint64_t lost_calls;      /* calls not recorded (budget, re-entry) */
	uint64_t lost_time;       /* ticks charged to overflow contexts */
	uint64_t dispatchers;     /* contexts whose inline cache is bypassed or on retrial */
	uint64_t subtracted;      /* clock=cycles: ticks taken off as the monitor's
				   * estimated cost per hook (own_time apart); 0 in
				   * files from before it was recorded */
	uint64_t merged;          /* profiles `ccprof merge` added up into this one;
				   * 0 in a run's own */
	uint64_t own_time;        /* ticks the runtime spent making transitions,
				   * contexts and cost centres, charged to no
				   * context (Note [The profiler's own time] in
				   * src/runtime/machine.c); 0 in older files */
	uint64_t looks;           /* clock=cpu: the samples' looks at threads,
				   * each a read of one thread's CPU clock or
				   * two (Note [Idle threads in turn] in
				   * src/runtime/sampler.c); 0 in older files */
	uint64_t slow_finds;      /* transitions made before that the hooks'
				   * caches missed, found in the thread's table
				   * (Note [Transition cache] in
				   * src/runtime/machine.c); 0 in older files */
	uint64_t untracked_allocs; /* heap=1: allocations the block table had
				    * no memory to follow, so the live heap
				    * and its peak may be short of them (Note
				    * [A table without memory] in
				    * src/runtime/heap.c); 0 in older files */
};

/*
 * Allocation profiling (docs/alloc.md): with the runtime that counts
 * allocations (libccprof-alloc.so), every context also has the bytes and
 * blocks allocated while it ran.  `measured` tells a run that allocated
 * nothing from a run where nothing was counted (an old file, or the
 * runtime without the counting); only then are alloc_* in the contexts
 * meaningful.  `outside_*`: allocations made by a thread before its first
 * instrumented call (or by a thread that never makes one), which no
 * context can take.
 */
struct ccp_alloc {
	uint32_t measured; /* 1 if the run counted allocations, else 0 */
	uint64_t outside_bytes;
	uint64_t outside_blocks;
};

/*
 * Heap profiling (docs/heap.md): with heap=1, the allocation runtime also
 * follows every block to its free, so it knows each context's live heap,
 * the bytes it allocated that are not yet freed.  The contexts' live_*
 * are the state when the profile was written (what a leak checker calls
 * "in use at exit"); `samples` are the live bytes of every context that
 * had any, taken every `interval_ns` of wall-clock time, oldest first;
 * `peak_bytes` is the largest total the process's live heap ever reached
 * (exact, not sampled).  A heap profile always has allocation data, and
 * a context's live bytes never exceed what it allocated.
 */
struct ccp_heap_record {
	uint32_t thread, context;
	uint64_t bytes;
};

struct ccp_heap_sample {
	uint64_t time_ns;       /* since the runtime started */
	uint64_t outside_bytes; /* live bytes no context holds */
	uint32_t nrecords;      /* in (thread, context) order, bytes > 0 */
	struct ccp_heap_record *records;
};

struct ccp_heap {
	uint32_t measured;     /* 1 if the run followed the heap, else 0 */
	uint64_t interval_ns;  /* between samples */
	uint64_t peak_bytes;   /* at least every sample's and the final total */
	uint64_t outside_live_bytes, outside_live_blocks; /* at the write */
	uint32_t nsamples;
	struct ccp_heap_sample *samples;
};

struct ccp_profile {
	const char *program;  /* path of the executable */
	uint32_t argc;
	const char **argv;
	uint64_t pid;
	uint64_t start_ns;    /* CLOCK_REALTIME at start, ns since epoch */
	uint64_t end_ns;      /* CLOCK_REALTIME at write */
	uint32_t clock;       /* enum ccp_clock */
	uint64_t interval_ns; /* sampling interval (sampling clocks) */
	uint64_t ticks_per_sec;
	uint64_t overhead_milliticks; /* calibrated cost per call, ticks*1000 */
	const char *options;  /* CCPROF_OPTIONS as given */
	const char *hostname;

	uint32_t nmodules;
	struct ccp_module *modules;
	uint32_t nccs;
	struct ccp_cc *ccs;
	uint32_t nthreads;
	struct ccp_thread *threads;
	struct ccp_stats stats;
	struct ccp_alloc alloc;
	struct ccp_heap heap;

	void *arena; /* owner of everything above when built by the reader */
};

#endif
