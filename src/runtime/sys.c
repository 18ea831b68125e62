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
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

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
 * its control characters, C0 and DEL and the C1 ones (U+0080..U+009F,
 * two bytes in UTF-8, some terminals taking U+009B as ESC [) become '?',
 * as the tool's escape_text makes them, so that a value can neither
 * split the line nor drive the terminal.  Returns the new length. */
static int plain_line(char *s, int n)
{
	int out = 0;

	for (int i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9f) {
			i++;
			c = '?';
		} else if (c < 0x20 || c == 0x7f) {
			c = '?';
		}
		s[out++] = (char)c;
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
	n = plain_line(buf, n);
	buf[n++] = '\n';
	if (rt_write_quietly(2, buf, (size_t)n) < 0) {
		/* nothing sensible to do: stderr is gone */
	}
}
