/*
 * alloc_shim.c - the allocation functions of libccprof-alloc.so, the
 * runtime that also profiles allocation (docs/alloc.md).
 *
 * libccprof-alloc.so is libccprof.so plus this file: malloc, calloc,
 * realloc, reallocarray, the aligned allocators and free, each passing the
 * call on to the allocator that would have served it without us and
 * counting what it returned (alloc.c).  It is a library of its own so that
 * the default runtime leaves the program's allocator alone: preloading it
 * instead of libccprof.so (`ccprof record --alloc`) is the only switch.
 *
 * "The allocator that would have served it" is the next definition after
 * ours in the lookup order, found with dlsym(RTLD_NEXT): glibc's, or the
 * jemalloc or tcmalloc the program links, whose other functions
 * (malloc_usable_size, mallocx, ...) the program then keeps calling on
 * blocks from the same allocator.  A program that defines malloc itself
 * comes before us in that order and keeps its own, uncounted (its
 * allocator is then its own instrumented code).
 *
 * Note [Bootstrap allocations]: dlsym may allocate (glibc's dlerror state)
 * before the pointers are known.  Such calls, on the thread that is
 * resolving them, are served from a static buffer and never freed; only
 * free and realloc need to recognise its blocks.  Calls that come in
 * before the runtime's constructor (other libraries' constructors, the
 * dynamic linker) resolve the pointers on the spot.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

struct next_allocator {
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void *(*memalign)(size_t, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
};

/* glibc's own, if dlsym finds nothing (it always should).  Weak, so that
 * a libc without one of them still loads us (the pointer is then NULL,
 * and only that function, if ever called, would fail). */
#define WEAK __attribute__((weak))
extern void *__libc_malloc(size_t) WEAK;
extern void __libc_free(void *) WEAK;
extern void *__libc_calloc(size_t, size_t) WEAK;
extern void *__libc_realloc(void *, size_t) WEAK;
extern void *__libc_memalign(size_t, size_t) WEAK;
extern void *__libc_valloc(size_t) WEAK;
extern void *__libc_pvalloc(size_t) WEAK;

static struct next_allocator next;
static int resolved;
static __thread int resolving __attribute__((tls_model("initial-exec")));

#define BOOT_SIZE (64 * 1024)
static alignas(64) unsigned char boot[BOOT_SIZE];
static size_t boot_used;

/* A block of the bootstrap buffer: 16 bytes of size, then the block. */
static void *boot_alloc(size_t n)
{
	size_t need = 16 + ((n + 15) & ~(size_t)15), at;

	if (n > BOOT_SIZE)
		return NULL;
	at = __atomic_fetch_add(&boot_used, need, __ATOMIC_RELAXED);
	if (at + need > BOOT_SIZE)
		return NULL;
	memcpy(boot + at, &n, sizeof n);
	return boot + at + 16;
}

static int in_boot(const void *p)
{
	return (const unsigned char *)p >= boot && (const unsigned char *)p < boot + BOOT_SIZE;
}

static size_t boot_size(const void *p)
{
	size_t n;

	memcpy(&n, (const unsigned char *)p - 16, sizeof n);
	return n;
}

/* dlsym returns a data pointer; POSIX guarantees the conversion works. */
#define NEXT(name, fallback)                                         \
	do {                                                         \
		void *sym_ = dlsym(RTLD_NEXT, #name);                \
		if (sym_)                                            \
			memcpy(&next.name, &sym_, sizeof sym_);      \
		else                                                 \
			next.name = fallback;                        \
	} while (0)

static void resolve(void)
{
	if (__atomic_load_n(&resolved, __ATOMIC_ACQUIRE) || resolving)
		return;
	resolving = 1;
	NEXT(malloc, __libc_malloc);
	NEXT(free, __libc_free);
	NEXT(calloc, __libc_calloc);
	NEXT(realloc, __libc_realloc);
	NEXT(memalign, __libc_memalign);
	NEXT(posix_memalign, NULL);
	NEXT(aligned_alloc, __libc_memalign);
	NEXT(valloc, __libc_valloc);
	NEXT(pvalloc, __libc_pvalloc);
	resolving = 0;
	__atomic_store_n(&resolved, 1, __ATOMIC_RELEASE);
}

/* Ready to pass calls on: 0 while this thread is resolving (bootstrap). */
static int ready(void)
{
	if (!__atomic_load_n(&resolved, __ATOMIC_ACQUIRE))
		resolve();
	return __atomic_load_n(&resolved, __ATOMIC_ACQUIRE);
}

/*
 * Note [Nested allocations]: an allocator's functions call one another
 * (a replacement allocator's realloc may call malloc, its posix_memalign
 * memalign), and those calls come back to us.  Only the outermost call is
 * the program's: the others would count its block twice.  So each raises
 * `nesting` while it calls on, and counts only at the outermost level.
 *
 * A call may never return: a signal handler that ran inside it (a signal
 * arriving in malloc) can leave by siglongjmp.  `nesting` would then stay
 * raised, and the thread count nothing more for the rest of the run.  So
 * the outermost call also notes where its frame is: a nested call runs
 * deeper on the same stack, and a call that runs no deeper than that
 * cannot be inside it, so the outermost call was left and nesting starts
 * again from it.  Where a call is is its frame address (its caller's
 * stack pointer), not the address of a local of ours: locals lie deeper
 * in a function with more of them (realloc than malloc), and a realloc
 * or free of the program's right after the jump, from a frame above the
 * one that called the malloc left behind, was taken for a call inside
 * it: the realloc counted nothing, nor did the calls after it, and with
 * heap=1 the free left its block live.  free and realloc ask the same
 * before they take a block out of the heap table (heap_take).  (Calls
 * made deeper than the one left, before one that is not, still go
 * uncounted; a handler's own calls on the same stack, as before, count
 * only when they are outermost.)  Each call puts back the
 * level it found rather than counting down, so that a handler on another
 * stack (sigaltstack), taken for outermost, leaves no level behind: the
 * call it interrupted still ends at its own (its allocator's calls to
 * itself after the handler, if any, would count once more).
 */
static __thread unsigned nesting __attribute__((tls_model("initial-exec")));
static __thread uintptr_t outer_frame __attribute__((tls_model("initial-exec")));

/* Where the calling function of ours is: its frame address. */
#define HERE() ((uintptr_t)__builtin_frame_address(0))

/* Whether a call at `here` is the program's own: no call of ours under
 * way, or the one under way was left by a longjmp. */
static int outermost(uintptr_t here)
{
	return nesting == 0 || here >= outer_frame;
}

/* The level a call at `here` enters at (0: outermost), raised for the
 * calls it makes. */
static unsigned nest_enter(uintptr_t here)
{
	if (nesting && outermost(here))
		nesting = 0; /* the outermost call was left by a longjmp */
	if (nesting == 0)
		outer_frame = here;
	return nesting++;
}

#define CALL_ON(result, call)                              \
	do {                                               \
		unsigned level_ = nest_enter(HERE());      \
		(result) = (call);                         \
		nesting = level_;                          \
	} while (0)

/*
 * Note [ThreadSanitizer build]: tests/heap.py runs heap=1 with the runtime
 * built -fsanitize=thread.  To see the program's allocations the shim
 * must come before libtsan's malloc, and then TSan's own allocations come
 * through it before TSan can run instrumented code on their thread: in
 * its start-up, and in each new thread before TSan has started it (the
 * realloc of pthread_getattr_np).  That build compiles this file without
 * the sanitizer and with CCPROF_TSAN_SHIM, which leaves uncounted the
 * calls of a thread that has run no hook yet (allocations outside any
 * context), so that the instrumented runtime runs on threads TSan knows
 * only.  Other builds count them.
 */
#ifdef CCPROF_TSAN_SHIM
#define FOLLOWED() (rt_self != NULL)
#else
#define FOLLOWED() 1
#endif

static void *counted(void *p, size_t bytes)
{
	if (p && nesting == 0 && FOLLOWED())
		rt_alloc_note(p, bytes);
	return p;
}

RT_API void *malloc(size_t n)
{
	void *p;

	if (!ready())
		return boot_alloc(n);
	CALL_ON(p, next.malloc(n));
	return counted(p, n);
}

/* With heap=1, the block leaves the heap table (heap.c) before it is
 * freed: after, another thread could be given its address; before the
 * runtime starts, the table of blocks from before it.  Only the
 * outermost call's, at `here`: the others are the allocator's own. */
static inline __attribute__((always_inline)) int heap_take(void *p, struct rt_heap_block *b,
							 uintptr_t here)
{
	return outermost(here) && FOLLOWED() && rt_heap_following() && rt_heap_take(p, b);
}

RT_API void free(void *p)
{
	struct rt_heap_block b;

	if (p == NULL || in_boot(p))
		return;
	if (ready()) {
		heap_take(p, &b, HERE());
		next.free(p);
	}
}

RT_API void *calloc(size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (__builtin_mul_overflow(n, size, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	if (!ready())
		return boot_alloc(bytes); /* static memory is zero */
	CALL_ON(p, next.calloc(n, size));
	return counted(p, bytes);
}

/* A bootstrap block moves to the real allocator on its first realloc. */
static void *realloc_boot(void *p, size_t n)
{
	void *q = malloc(n);

	if (q)
		memcpy(q, p, boot_size(p) < n ? boot_size(p) : n);
	return q;
}

/* realloc counts as a new block of the new size, as valgrind's memcheck
 * counts it (a realloc that frees, to size 0, returns NULL: nothing).
 * The old block leaves the heap table first, as in free. */
RT_API void *realloc(void *p, size_t n)
{
	struct rt_heap_block old;
	int taken;
	void *q;

	if (p && in_boot(p))
		return realloc_boot(p, n);
	if (!ready())
		return boot_alloc(n);
	taken = p && heap_take(p, &old, HERE());
	CALL_ON(q, next.realloc(p, n));
	if (q == NULL && n != 0 && taken) /* failed: p is still the program's */
		rt_heap_put_back(p, &old);
	return counted(q, n);
}

/* Not passed on as itself: glibc's reallocarray calls realloc, ours,
 * which would count the block twice. */
RT_API void *reallocarray(void *p, size_t n, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, bytes);
}

RT_API void *memalign(size_t align, size_t n)
{
	void *p;

	if (!ready())
		return NULL; /* not during bootstrap: nothing there asks */
	CALL_ON(p, next.memalign(align, n));
	return counted(p, n);
}

RT_API void *aligned_alloc(size_t align, size_t n)
{
	void *p;

	if (!ready())
		return NULL;
	CALL_ON(p, next.aligned_alloc(align, n));
	return counted(p, n);
}

RT_API int posix_memalign(void **out, size_t align, size_t n)
{
	int rc;

	if (!ready())
		return ENOMEM;
	if (next.posix_memalign == NULL) {
		void *p;

		CALL_ON(p, next.memalign(align, n));
		rc = p ? 0 : ENOMEM;
		if (p)
			*out = p;
	} else {
		CALL_ON(rc, next.posix_memalign(out, align, n));
	}
	if (rc == 0)
		counted(*out, n);
	return rc;
}

RT_API void *valloc(size_t n)
{
	void *p;

	if (!ready())
		return NULL;
	CALL_ON(p, next.valloc(n));
	return counted(p, n);
}

RT_API void *pvalloc(size_t n)
{
	void *p;

	if (!ready())
		return NULL;
	CALL_ON(p, next.pvalloc(n));
	return counted(p, n);
}

/* Whether this is the allocation runtime, from the start (Note [Start-up
 * order] in alloc.c). */
const int rt_alloc_shim_linked RT_HIDDEN = 1;

/* Early, so that the libraries' constructors after it find the pointers
 * set. */
__attribute__((constructor(101))) static void alloc_shim_init(void)
{
	resolve();
}
