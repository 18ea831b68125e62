/*
 * sys.c - memory and messages straight from the kernel, and the
 * environment straight from environ.  The runtime's slow paths may run
 * inside malloc or a signal handler, so they take memory from mmap and
 * print with write(2).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/utf8.h"
#include "runtime.h"

/* getenv, not the program's: a program may define its own, instrumented
 * (bash does), and the runtime reads CCPROF_OPTIONS as it starts, where
 * that function's hook would start it again (Note [A hook while the
 * runtime starts] in init.c).  From environ, as glibc's exec family
 * reads PATH; no libc call, since the program may define those too. */
const char *rt_getenv(const char *name)
{
	for (char **e = environ; e != NULL && *e != NULL; e++) {
		const char *v = *e, *n = name;

		while (*n != '\0' && *v == *n)
			v++, n++;
		if (*n == '\0' && *v == '=')
			return v + 1;
	}
	return NULL;
}

void *rt_map(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * Note [Pages written first]: a fresh anonymous page that is first read
 * is mapped to the kernel's shared zero page, and the write that follows
 * replaces that mapping, which makes the kernel flush the TLB of every
 * CPU the process has run on (an interrupt to each; on a VM, an exit to
 * the hypervisor).  A thread's lookups are such memory: a hash table
 * probed before it is filled, the thread cache read before it is
 * written: 8 of the 14 flushes a thread that called 100 functions made
 * (perf's tlb:tlb_flush events; docs/performance.md, session 29).  So
 * memory that will be read first is written first, a word a page: the
 * write fault maps a page of its own, with no flush.
 */
void rt_touch_pages(void *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i += 4096)
		((volatile char *)p)[i] = 0;
}

void *rt_map_written(size_t n)
{
	void *p = rt_map(n);

	if (p != NULL)
		rt_touch_pages(p, n);
	return p;
}

void rt_unmap(void *p, size_t n)
{
	if (p)
		munmap(p, n);
}

/*
 * write(2) that puts no SIGPIPE into the program: stderr or a profile FIFO
 * whose reader has gone gives EPIPE, and the SIGPIPE that comes with it
 * would end the program by SIGPIPE (its default action, or our handler)
 * where without ccprof it ends otherwise: a crash by SIGSEGV (the crash
 * stack goes to stderr), an exit with its status.  SIGPIPE is blocked for
 * the write, and one that the write itself raised (it goes to this
 * thread, and none was pending before) taken back.  Async-signal-safe.
 */
ssize_t rt_write_quietly(int fd, const void *buf, size_t len)
{
	struct timespec now = { 0, 0 };
	sigset_t pipe_set, saved, pending;
	int was_pending, e;
	ssize_t n;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &saved);
	was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
	n = write(fd, buf, len);
	e = errno;
	if (n < 0 && e == EPIPE && !was_pending)
		sigtimedwait(&pipe_set, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	errno = e;
	return n;
}

/* A warning quotes what the user gave (CCPROF_OPTIONS' values, paths):
 * as the tool's escape_text does, its control characters (C0, DEL, and
 * C1, U+0080..U+009F, some terminals taking U+009B as ESC [) become '?',
 * and so does each byte of what is not UTF-8 (a lone 0x9B is CSI to a
 * terminal in an 8-bit locale), so that a value can neither split the
 * line nor drive the terminal.  In place; returns the new length. */
static size_t plain_line(char *line, size_t n)
{
	unsigned char *s = (unsigned char *)line;
	size_t out = 0;

	for (size_t i = 0; i < n;) {
		size_t len = utf8_len(s + i, n - i);

		if (len == 0 || utf8_is_c1(s + i, len) || (len == 1 && (s[i] < 0x20 || s[i] == 0x7f))) {
			s[out++] = '?';
			i += len ? len : 1;
		} else {
			memmove(s + out, s + i, len);
			out += len;
			i += len;
		}
	}
	return out;
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
	n = (int)plain_line(buf, (size_t)n);
	buf[n++] = '\n';
	if (rt_write_quietly(2, buf, (size_t)n) < 0) {
		/* nothing sensible to do: stderr is gone */
	}
}
