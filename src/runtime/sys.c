/*
 * sys.c - memory and messages straight from the kernel.  The runtime's
 * slow paths may run inside malloc or a signal handler, so they take memory
 * from mmap and print with write(2).
 */
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime.h"

void *rt_map(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void rt_unmap(void *p, size_t n)
{
	if (p)
		munmap(p, n);
}

void rt_warn(const char *fmt, ...)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf, "ccprof: ");
	va_list ap;

	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof buf - 2)
		n = (int)sizeof buf - 2;
	buf[n++] = '\n';
	if (write(2, buf, (size_t)n) < 0) {
		/* nothing sensible to do: stderr is gone */
	}
}
