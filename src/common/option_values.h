/*
 * option_values.h - the values of CCPROF_OPTIONS keys that the runtime
 * and `ccprof record` must judge alike: the runtime when it reads
 * dump_signal= and max_contexts=, record when --dump-signal and
 * --max-contexts are given, so that a value record accepts is never one
 * the runtime then ignores with a warning on the program's stderr.
 * libc only (the runtime links it); neither allocates.
 */
#ifndef CCPROF_OPTION_VALUES_H
#define CCPROF_OPTION_VALUES_H

#include <stddef.h>
#include <stdint.h>

/* The fewest contexts per thread max_contexts= takes, and its default. */
#define CCP_MIN_MAX_CONTEXTS 16
#define CCP_DEFAULT_MAX_CONTEXTS 1000000

/* A number macro as a string literal, for help texts. */
#define CCP_STRINGIFY_(x) #x
#define CCP_STRINGIFY(x) CCP_STRINGIFY_(x)

/* The next entry of a CCPROF_OPTIONS string at *s (Note [Escapes in
 * CCPROF_OPTIONS] in src/runtime/options.c: ':' or ',' ends it, a
 * backslash takes the character after it), unescaped into buf (room for
 * the rest of *s and a NUL), *s moved past it and its separator.  Its
 * first '=' becomes a NUL and *value points after it; NULL without one.
 * Returns the entry's length, 0 for an empty one.  The runtime reads its
 * options with it, and the tool the options a profile kept. */
size_t ccp_option_next(const char **s, char *buf, char **value);

/* The signal v names for dump_signal= ("SIGUSR2", "USR2", "12"), or 0 if
 * it names none, or one that cannot be the dump signal. */
int ccp_parse_dump_signal(const char *v);

/* A plain decimal number of at least min (and above 0) that fits 64
 * bits, digits only: 0 with *n set, or -1.  run_start= takes this. */
int ccp_parse_count(const char *v, uint64_t min, uint64_t *n);

/* max_contexts=: 0 with *n set, or -1 (not a plain decimal number of at
 * least CCP_MIN_MAX_CONTEXTS that fits 64 bits). */
int ccp_parse_max_contexts(const char *v, uint64_t *n);

#endif
