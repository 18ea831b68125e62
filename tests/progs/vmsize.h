/* vmsize.h - mapped_now(): what the process maps (VmSize of
 * /proc/self/status), in bytes, or 0; not instrumented, for the programs
 * that limit their address space to it and a little more. */
#ifndef CCPROF_TEST_VMSIZE_H
#define CCPROF_TEST_VMSIZE_H

#include <stdio.h>

__attribute__((no_instrument_function, noinline)) static unsigned long mapped_now(void)
{
	char line[256];
	unsigned long kb = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "VmSize: %lu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

#endif
