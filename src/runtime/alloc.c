/*
 * alloc.c - allocation profiling: the bytes and blocks each context
 * allocated (docs/semantics.md, "Costs other than time"), counted for the
 * interposed allocation functions of libccprof-alloc.so
 * (shim/alloc_shim.c).
 *
 * Only that library calls rt_alloc_note, so the default runtime counts
 * nothing and writes no ALLOC section; with it, every successful
 * allocation the program makes adds its size and one block to the
 * current context of the calling thread, in one instruction each, like
 * the hooks' counters (Note [Cache reads] in hooks.c).  A thread that has
 * not yet run instrumented code has no context: its allocations go to the
 * process-wide `outside` counts (format.md, ALLOC).
 *
 * Note [The runtime's own allocations]: the runtime allocates too (the
 * profile write's symbol tables, the copy of argv, glibc's memory for the
 * sampling thread and for thread-specific data).  The program did not ask
 * for those, and valgrind's counts of the bare program (tests/alloc.py)
 * do not have them, so the runtime brackets the places that allocate
 * with rt_alloc_own_begin/end, and the shim's counting is off inside.
 */
#include "runtime.h"

static __thread unsigned own_depth __attribute__((tls_model("initial-exec")));
static uint64_t outside_bytes, outside_blocks;

/*
 * Note [Start-up order]: the dynamic linker runs the constructors of the
 * program's libraries before those of a preloaded one, so an
 * instrumented library's constructor runs the hooks, and rt_init, before
 * the shim's constructor.  A flag that constructor set was still 0 then:
 * the start-up warned that heap=1 needs the allocation runtime when it
 * was the one running, and under clock=cycles started no sampler for the
 * heap samples (the profile had the final one alone).  The shim's own
 * symbol answers from the start: with it linked in, every allocation
 * comes through it, resolved on the spot if need be.  So rt_init alone,
 * whenever it runs, decides about heap=1 (rt_heap_configure).
 */
extern const int rt_alloc_shim_linked __attribute__((weak)) RT_HIDDEN;

int rt_alloc_measured(void)
{
	return &rt_alloc_shim_linked != NULL;
}

void rt_alloc_own_begin(void)
{
	own_depth++;
}

void rt_alloc_own_end(void)
{
	own_depth--;
}

/* Block p of `bytes` was allocated.  The live counts (heap.c) come after
 * the allocated ones, so that a reader never sees more live than
 * allocated. */
void rt_alloc_note(void *p, size_t bytes)
{
	struct rt_thread *t = rt_self;
	struct rt_ctx *c = NULL;

	if (own_depth || rt_config.disabled)
		return;
	if (t == NULL) { /* other threads may add too */
		__atomic_fetch_add(&outside_bytes, (uint64_t)bytes, __ATOMIC_RELAXED);
		__atomic_fetch_add(&outside_blocks, 1, __ATOMIC_RELAXED);
	} else {
		c = t->cur;
		rt_count_add(&c->alloc_bytes, (uint64_t)bytes);
		rt_count(&c->alloc_blocks);
	}
	if (RT_LOAD(&rt_heap_active)) {
		/* The allocated counts are seen before the live ones, on any
		 * processor (x86 keeps store order anyway): the writer reads
		 * live first, then allocated (dump.c). */
		__atomic_thread_fence(__ATOMIC_RELEASE);
		rt_heap_alloc(p, t, c, bytes);
	} else if (c == NULL && (RT_LOAD(&rt_heap_early_open) || RT_LOAD(&rt_heap_active))) {
		/* Before the start (or while it turns heap=1 on): Note [Blocks
		 * from before the start] in heap.c. */
		rt_heap_early_alloc(p, bytes);
	}
}

void rt_alloc_gather(struct ccp_alloc *out)
{
	out->measured = (uint32_t)rt_alloc_measured();
	out->outside_bytes = RT_LOAD(&outside_bytes);
	out->outside_blocks = RT_LOAD(&outside_blocks);
}

/* In a forked child: its counts start from zero, as its calls do. */
void rt_alloc_after_fork(void)
{
	outside_bytes = 0;
	outside_blocks = 0;
}
