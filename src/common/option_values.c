/*
 * option_values.c - see option_values.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/handled_signals.h"
#include "common/option_values.h"

static int is_crash_signal(int sig)
{
	static const int crash[] = { CCP_CRASH_SIGNALS };

	for (size_t i = 0; i < sizeof crash / sizeof *crash; i++)
		if (crash[i] == sig)
			return 1;
	return 0;
}

int ccp_parse_dump_signal(const char *v)
{
	static const struct { const char *name; int sig; } names[] = {
		{ "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "HUP", SIGHUP },
		{ "QUIT", SIGQUIT }, { "PROF", SIGPROF }, { "WINCH", SIGWINCH },
		{ "INT", SIGINT }, { "TERM", SIGTERM }, { "ALRM", SIGALRM },
	};
	size_t i;
	char *end;
	long n;

	if (strncmp(v, "SIG", 3) == 0)
		v += 3;
	for (i = 0; i < sizeof names / sizeof *names; i++)
		if (strcmp(v, names[i].name) == 0)
			return names[i].sig;
	if (*v < '0' || *v > '9') /* strtol also takes blanks and a sign */
		return 0;
	n = strtol(v, &end, 10);
	if (*end)
		return 0;
	/* Not one that cannot be caught, nor glibc's own (32, 33), nor a crash
	 * signal: a fault re-executes after the handler returns, so "write the
	 * profile and go on" would loop for ever, and signals.c takes those
	 * for itself (taken twice, on_fatal would chain to itself). */
	if (n <= 0 || n > 64 || n == SIGKILL || n == SIGSTOP || (n >= 32 && n < SIGRTMIN) ||
	    is_crash_signal((int)n))
		return 0;
	return (int)n;
}

int ccp_parse_count(const char *v, uint64_t min, uint64_t *n)
{
	char *end = NULL;
	unsigned long long x = 0;

	/* Digits only (strtoull takes " -1" as 2^64 - 1), and no more than
	 * fit: out of range, strtoull gives its maximum. */
	errno = 0;
	if (v[0] >= '0' && v[0] <= '9')
		x = strtoull(v, &end, 10);
	if (x < min || x == 0 || *end != '\0' || errno != 0)
		return -1;
	*n = (uint64_t)x;
	return 0;
}

int ccp_parse_max_contexts(const char *v, uint64_t *n)
{
	return ccp_parse_count(v, CCP_MIN_MAX_CONTEXTS, n);
}

size_t ccp_option_next(const char **s, char *buf, char **value)
{
	const char *p = *s;
	size_t n = 0;

	*value = NULL;
	for (; *p && *p != ':' && *p != ','; p++) {
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '=' && *value == NULL)
			*value = buf + n;
		buf[n++] = *p;
	}
	buf[n] = '\0';
	*s = *p ? p + 1 : p;
	if (*value != NULL)
		*(*value)++ = '\0';
	return n;
}
