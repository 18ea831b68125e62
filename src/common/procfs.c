/*
 * procfs.c - see procfs.h (Note [A /proc of another PID namespace]).
 */
#include <unistd.h>

#include "common/procfs.h"

int ccp_proc_numbers_ours(void)
{
	char link[24];
	ssize_t n = readlink("/proc/self", link, sizeof link);
	unsigned long pid = 0;

	if (n <= 0 || n >= (ssize_t)sizeof link)
		return 0;
	for (ssize_t i = 0; i < n; i++) {
		if (link[i] < '0' || link[i] > '9')
			return 0;
		pid = pid * 10 + (unsigned long)(link[i] - '0');
	}
	return pid == (unsigned long)getpid();
}
