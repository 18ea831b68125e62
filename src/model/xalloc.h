/*
 * xalloc.h - the tool's one allocation wrapper.
 *
 * Out of memory in an analysis tool is not recoverable in any useful way,
 * so every allocation goes through these: on failure they print one line
 * naming the function that asked and exit with status 1.  Sizes are
 * checked for overflow (xnmalloc), so a corrupt count in a profile turns
 * into that message instead of a short buffer.
 *
 * Belongs in src/common/ eventually; it lives here until that exists.
 */
#ifndef CCPROF_XALLOC_H
#define CCPROF_XALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *xmalloc_at(size_t n, const char *who);
void *xcalloc_at(size_t n, size_t size, const char *who);
void *xrealloc_at(void *p, size_t n, size_t size, const char *who);
char *xstrdup_at(const char *s, const char *who);
_Noreturn void xalloc_die(size_t n, const char *who);
/* The message fmt formats, of any length, allocated: free it. */
char *xvformat(const char *fmt, va_list ap);
__attribute__((format(printf, 1, 2))) char *xformat(const char *fmt, ...);

#define xmalloc(n) xmalloc_at((n), __func__)
#define xcalloc(n, size) xcalloc_at((n), (size), __func__)
/* Array of n elements of `size` bytes; both multiplied with a check. */
#define xnmalloc(n, size) xrealloc_at(NULL, (n), (size), __func__)
#define xrealloc(p, n, size) xrealloc_at((p), (n), (size), __func__)
#define xstrdup(s) xstrdup_at((s), __func__)

#endif
