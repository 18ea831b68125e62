/*
 * ccprof.h - the public API of libccprof, the ccprof runtime.
 *
 * Functions compiled with -finstrument-functions are profiled without any
 * of this.  The header adds manual cost centres (named regions that take
 * part in the context machine exactly like functions) and a way to write
 * the profile before exit.
 *
 * The runtime's entry points are declared weak and called through inline
 * wrappers, so a program that uses the API still links and runs without
 * libccprof: the calls then do nothing.
 *
 *     ccprof_cc_t parse = ccprof_cc("parse");     // intern once
 *     ccprof_enter(parse); ... ccprof_leave(parse);
 *
 *     void f(void) { CCPROF_SCOPE("f/inner loop"); ... }  // left at scope end
 *
 * C++:  { ccprof::scope s("name"); ... }
 */
#ifndef CCPROF_H
#define CCPROF_H

#ifdef __cplusplus
extern "C" {
#endif

#define CCPROF_API __attribute__((visibility("default")))
#define CCPROF_NOINST __attribute__((no_instrument_function))
#ifdef CCPROF_BUILDING_RUNTIME
#define CCPROF_WEAK
#else
#define CCPROF_WEAK __attribute__((weak))
#endif

/* A manual cost centre; NULL when the runtime is absent. */
typedef struct ccprof_cc *ccprof_cc_t;

/* The runtime's entry points.  Weak, so that the wrappers below can tell
 * whether libccprof is there; call the wrappers, not these. */
CCPROF_API ccprof_cc_t ccprof__cc(const char *name) CCPROF_WEAK;
CCPROF_API void ccprof__enter(ccprof_cc_t cc) CCPROF_WEAK;
CCPROF_API void ccprof__leave(ccprof_cc_t cc) CCPROF_WEAK;
CCPROF_API int ccprof__dump(void) CCPROF_WEAK;

#ifndef CCPROF_BUILDING_RUNTIME
#include <errno.h>

/* The cost centre named `name`, created on first use.  Thread-safe; takes a
 * lock, so call it once and keep the handle. */
static inline CCPROF_NOINST ccprof_cc_t ccprof_cc(const char *name)
{
	return ccprof__cc ? ccprof__cc(name) : (ccprof_cc_t)0;
}

/* Enter / leave a cost centre on the calling thread.  Regions nest with
 * functions and with each other; leaving a region also closes whatever
 * was entered after it and is still open. */
static inline CCPROF_NOINST void ccprof_enter(ccprof_cc_t cc)
{
	if (cc && ccprof__enter)
		ccprof__enter(cc);
}

static inline CCPROF_NOINST void ccprof_leave(ccprof_cc_t cc)
{
	if (cc && ccprof__leave)
		ccprof__leave(cc);
}

/* Write the profile collected so far (to the same file as at exit; the
 * write at exit replaces it).  Returns 0, or -1 with errno set (ENOSYS
 * when the program runs without libccprof). */
static inline CCPROF_NOINST int ccprof_dump(void)
{
	if (!ccprof__dump) {
		errno = ENOSYS;
		return -1;
	}
	return ccprof__dump();
}

/* Helpers for the scoped form. */
static inline CCPROF_NOINST ccprof_cc_t ccprof__scope_enter(ccprof_cc_t *cache, const char *name)
{
	ccprof_cc_t cc = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (!cc) {
		cc = ccprof_cc(name);
		__atomic_store_n(cache, cc, __ATOMIC_RELEASE);
	}
	ccprof_enter(cc);
	return cc;
}

static inline CCPROF_NOINST void ccprof__scope_leave(ccprof_cc_t *cc)
{
	ccprof_leave(*cc);
}

#define CCPROF__CAT2(a, b) a##b
#define CCPROF__CAT(a, b) CCPROF__CAT2(a, b)

/* Enter the region `name` (a string literal) until the enclosing scope ends. */
#define CCPROF_SCOPE(name)                                                      \
	static ccprof_cc_t CCPROF__CAT(ccprof__cache_, __LINE__);               \
	__attribute__((cleanup(ccprof__scope_leave), unused)) ccprof_cc_t       \
		CCPROF__CAT(ccprof__scope_, __LINE__) =                         \
			ccprof__scope_enter(&CCPROF__CAT(ccprof__cache_, __LINE__), name)
#endif /* CCPROF_BUILDING_RUNTIME */

#ifdef __cplusplus
}

namespace ccprof {
/* RAII region: entered on construction, left on destruction (also when an
 * exception unwinds through the scope). */
class scope {
public:
	CCPROF_NOINST explicit scope(const char *name) : cc_(ccprof_cc(name))
	{
		ccprof_enter(cc_);
	}
	CCPROF_NOINST ~scope()
	{
		ccprof_leave(cc_);
	}
	scope(const scope &) = delete;
	scope &operator=(const scope &) = delete;

private:
	ccprof_cc_t cc_;
};
} // namespace ccprof
#endif

#endif
