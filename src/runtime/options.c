/*
 * options.c - CCPROF_OPTIONS, in the style of ASAN_OPTIONS:
 * key=value pairs separated by ':' (or ','), a backslash escaping the
 * character after it (Note [Escapes in CCPROF_OPTIONS]).  Later keys win,
 * so a tool can append its own settings to the user's.  See
 * docs/options.md.
 *
 *   clock=cpu|cycles|wall   what time is (default cpu, sampled)
 *   interval=N[ms|us|ns]    sampling interval (default 1ms)
 *   output=PATH             profile file; %p is the process id
 *   verbose=0|1             say where the profile went
 *   enabled=0|1             0: profile nothing (hooks stay cheap)
 *   crash_stack=0|1         print the cost-centre stack on a crash
 *   handle_signals=0|1      0: install no signal handler at all
 *   dump_signal=SIG         write the profile when SIG arrives (SIGUSR2, 12)
 *   max_contexts=N          per thread; past it, overflow contexts
 *   heap=0|1                follow every block to its free (allocation runtime only)
 *   heap_interval=N[ms|..]  between heap samples (default 10ms)
 *   run_start=NS            the run's start, ns since the epoch (set by record)
 *   helper=clone|pthread    how the sampling thread is made (default clone)
 *   names=0|1               0: no function names in the profile (the tool reads them)
 */
#include <stdlib.h>
#include <string.h>

#include "common/option_values.h"
#include "runtime.h"

#define RT_MAX_INTERVAL_NS 3600e9 /* an hour; also INTERVAL_MAX_MS in cmd_record.c */

/* The length of the decimal number at v, digits with at most one point,
 * as record's --interval and --heap-interval take it; 0 if none.
 * strtod alone also took blanks, a sign, hexadecimal ("0x10" ran at
 * 16 ms), exponents ("1e3" at a second), "inf" and "nan". */
static size_t decimal_length(const char *v)
{
	size_t n = strspn(v, "0123456789");

	if (n > 0 && v[n] == '.')
		n += 1 + strspn(v + n + 1, "0123456789");
	return n;
}

static uint64_t parse_interval(const char *v)
{
	char *end;
	size_t n = decimal_length(v);
	double x = n ? strtod(v, &end) : 0;
	double unit = 1e6; /* milliseconds by default */

	/* A number too small for a double ("0." and 400 zeros and "1") is
	 * above 0 all the same: raised to 10 us below, as 0.001ms is. */
	if (n > 0 && x == 0 && strspn(v, "0.") < n)
		x = 1e-300;
	if (n == 0 || end != v + n || !(x > 0))
		return 0;
	if (strcmp(end, "us") == 0)
		unit = 1e3;
	else if (strcmp(end, "ns") == 0)
		unit = 1;
	else if (strcmp(end, "s") == 0)
		unit = 1e9;
	else if (*end && strcmp(end, "ms") != 0)
		return 0;
	x *= unit;
	if (!(x <= RT_MAX_INTERVAL_NS)) /* infinity, or more than fits a uint64_t */
		return 0;
	if (x < 10000) /* 10 us: below that the sampler is the workload */
		x = 10000;
	return (uint64_t)x;
}

/* A switch: exactly 0 or 1, or a warning and no change (docs/options.md:
 * enabled=maybe must not turn the profiler off in silence). */
static void set_bool(int *out, const char *key, const char *val, int invert)
{
	if (strcmp(val, "0") == 0 || strcmp(val, "1") == 0)
		*out = (val[0] == '1') != invert;
	else
		rt_warn("CCPROF_OPTIONS: bad %s '%s' (0 or 1)", key, val);
}

static void set(struct rt_config *cfg, const char *key, const char *val)
{
	if (strcmp(key, "clock") == 0) {
		if (strcmp(val, "cpu") == 0)
			cfg->clock = CCP_CLOCK_CPU;
		else if (strcmp(val, "cycles") == 0)
			cfg->clock = CCP_CLOCK_CYCLES;
		else if (strcmp(val, "wall") == 0)
			cfg->clock = CCP_CLOCK_WALL;
		else
			rt_warn("CCPROF_OPTIONS: unknown clock '%s' (cpu, cycles or wall)", val);
	} else if (strcmp(key, "interval") == 0) {
		uint64_t ns = parse_interval(val);

		if (ns)
			cfg->interval_ns = ns;
		else
			rt_warn("CCPROF_OPTIONS: bad interval '%s' (e.g. 1ms, 500us; at most 3600s)", val);
	} else if (strcmp(key, "output") == 0) {
		/* An empty one is a bad value like any other (warned about,
		 * the earlier setting kept), not a silent "the default". */
		if (val[0] == '\0')
			rt_warn("CCPROF_OPTIONS: empty output (a path; %%p is the pid)");
		else if (strlen(val) < sizeof cfg->output)
			strcpy(cfg->output, val);
		else
			rt_warn("CCPROF_OPTIONS: output path too long");
	} else if (strcmp(key, "verbose") == 0) {
		set_bool(&cfg->verbose, key, val, 0);
	} else if (strcmp(key, "crash_stack") == 0) {
		set_bool(&cfg->crash_stack, key, val, 0);
	} else if (strcmp(key, "handle_signals") == 0) {
		set_bool(&cfg->handle_signals, key, val, 0);
	} else if (strcmp(key, "dump_signal") == 0) {
		int sig = ccp_parse_dump_signal(val);

		if (sig) /* a bad one keeps an earlier setting, as for every key */
			cfg->dump_signal = sig;
		else
			rt_warn("CCPROF_OPTIONS: bad dump_signal '%s' (e.g. SIGUSR2; not a crash signal)",
				val);
	} else if (strcmp(key, "max_contexts") == 0) {
		if (ccp_parse_max_contexts(val, &cfg->max_contexts) != 0)
			rt_warn("CCPROF_OPTIONS: bad max_contexts '%s' (a number, at least %d)", val,
				CCP_MIN_MAX_CONTEXTS);
	} else if (strcmp(key, "heap") == 0) {
		set_bool(&cfg->heap, key, val, 0);
	} else if (strcmp(key, "heap_interval") == 0) {
		uint64_t ns = parse_interval(val);

		if (ns)
			cfg->heap_interval_ns = ns;
		else
			rt_warn("CCPROF_OPTIONS: bad heap_interval '%s' (e.g. 10ms, 1s; at most 3600s)",
				val);
	} else if (strcmp(key, "run_start") == 0) {
		if (ccp_parse_count(val, 1, &cfg->run_start_ns) != 0)
			rt_warn("CCPROF_OPTIONS: bad run_start '%s' (nanoseconds since the epoch, "
				"digits only)", val);
	} else if (strcmp(key, "helper") == 0) {
		if (strcmp(val, "clone") == 0)
			cfg->helper = RT_HELPER_CLONE;
		else if (strcmp(val, "pthread") == 0)
			cfg->helper = RT_HELPER_PTHREAD;
		else
			rt_warn("CCPROF_OPTIONS: bad helper '%s' (clone or pthread)", val);
	} else if (strcmp(key, "names") == 0) {
		set_bool(&cfg->names, key, val, 0);
	} else if (strcmp(key, "enabled") == 0) {
		set_bool(&cfg->disabled, key, val, 1);
	} else {
		rt_warn("CCPROF_OPTIONS: unknown option '%s'", key);
	}
}

/*
 * Note [Escapes in CCPROF_OPTIONS]: ':' and ',' separate the pairs, so a
 * path with either (a directory "a,b") could not be given.  A backslash
 * takes the character after it as it is, the separators, '=' and the
 * backslash too; one at the very end stays.  So a backslash in a value is
 * written twice.  `ccprof record` escapes its output=, and so does the
 * runtime the output= it passes to a child's image (dump.c,
 * child_output), with rt_options_escape.  The profile keeps the variable
 * as given, escapes and all.
 */
void rt_options_parse(const char *s, struct rt_config *cfg)
{
	char buf[RT_OPTIONS_MAX];

	if (s == NULL || *s == '\0')
		return;
	if (strlen(s) >= sizeof buf) { /* a cut output= path would write elsewhere */
		rt_warn("CCPROF_OPTIONS: longer than %zu bytes; ignored", sizeof buf - 1);
		return;
	}
	_Static_assert(sizeof cfg->options == sizeof buf, "the profile keeps what is read");
	strcpy(cfg->options, s);
	while (*s) {
		char *value;

		if (ccp_option_next(&s, buf, &value) == 0) /* "a=1::b=2" */
			continue;
		if (value == NULL) {
			rt_warn("CCPROF_OPTIONS: '%s' is not key=value", buf);
			continue;
		}
		set(cfg, buf, value);
	}
}

/* s with a backslash before each ':', ',' and backslash, into out of size
 * bytes (Note [Escapes in CCPROF_OPTIONS]); -1 if it does not fit. */
int rt_options_escape(char *out, size_t size, const char *s)
{
	size_t n = 0;

	for (; *s; s++) {
		if (n + 3 > size)
			return -1;
		if (*s == ':' || *s == ',' || *s == '\\')
			out[n++] = '\\';
		out[n++] = *s;
	}
	if (n >= size)
		return -1;
	out[n] = '\0';
	return 0;
}
