/*
 * combine.h - several profiles of one program added into one
 * (`ccprof merge`).
 *
 * Cost centres are matched across the files by what identifies them in
 * any run (docs/format.md, "3.3 MODULES"): a function by its module and
 * its offset there, a manual region by its name.  Modules are matched by
 * build-id, or by path without one (Note [One binary by two paths] in
 * combine.c).  Thread i of every file is
 * added to thread i of the result (threads are written in start order, so
 * the main thread is thread 0 everywhere), and within a thread contexts
 * with the same history are added up: entries, recursive calls, time and
 * allocations add exactly, and so do the allocations outside any context.
 * The result counted allocations (alloc.measured) if any file did: a file
 * that did not adds no bytes.
 *
 * The files must agree on how time was measured: the same clock, the
 * same sampling interval (sampling clocks), and the same ticks_per_sec.
 * For the cycles clock ticks_per_sec is the counter's rate measured over
 * each run, so it may differ by a little: within COMBINE_TPS_TOLERANCE
 * the files are accepted and each one's ticks are rescaled to the first
 * file's rate (rounded to the nearest tick per context), so seconds add
 * up; beyond it they are refused (different machines, or a broken
 * measurement).
 */
#ifndef CCPROF_MODEL_COMBINE_H
#define CCPROF_MODEL_COMBINE_H

#include <stddef.h>
#include <stdint.h>

#include "format/arena.h"
#include "format/profile.h"

#define COMBINE_TPS_TOLERANCE 0.005 /* relative, cycles clock only */

/*
 * Profiles added one at a time (Note [One file at a time] in combine.c):
 * combine_begin, then combine_add for each file in order (it keeps
 * nothing of the file: free it after), then combine_end for the sum.
 * Memory is that of the sum, whatever the number of files.
 */
struct combine;

/* An empty sum whose result will live in arena. */
struct combine *combine_begin(struct ccp_arena *arena);

/* Check p against the first file added and add it.  name is p's file,
 * for messages (copied when one is made).  A file that cannot be added
 * is remembered for combine_end; the files after it are still checked,
 * so that combine_end names the first that does not fit. */
void combine_add(struct combine *c, const struct ccp_profile *p, const char *name);

/* The sum into *out, allocated in the arena (out->arena stays NULL:
 * free the arena, not the profile), and c freed.  Returns 0, or -1 with
 * "FILE: what differs" in err (no file added: -1 and err untouched).
 * Header fields come from the first file, except: start_ns the
 * earliest, end_ns the latest; counters add, except deepest_history,
 * max_depth and memory_bytes, which are the largest. */
int combine_end(struct combine *c, struct ccp_profile *out, char *err, size_t errlen);

/* The same for n profiles at hand: combine_begin, combine_add of each
 * in[i] (names[i] its file), combine_end. */
int combine_profiles(struct ccp_profile *out, struct ccp_arena *arena,
		     const struct ccp_profile *const *in, const char *const *names, uint32_t n,
		     char *err, size_t errlen);

/*
 * Make the cost centres of one function in p (the same module path,
 * build-id and offset: a library loaded again elsewhere after dlclose)
 * one: every history names the first of them (Note [One function, several
 * cost centres] in combine.c).  Returns how many cost centres now appear
 * in no history.
 */
uint32_t combine_fold_reloads(struct ccp_profile *p);

#endif
