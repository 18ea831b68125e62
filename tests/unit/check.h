/* check.h - tiny assertion helpers for the C unit tests (TAP-style lines). */
#ifndef CCPROF_TEST_CHECK_H
#define CCPROF_TEST_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

static int check_failures;

/* One line per check: a newline in the text would start a line that
 * tests/run could count as a check of its own, so it is printed as \n. */
__attribute__((format(printf, 3, 4), unused)) static void check_line(int ok, const char *cond,
									const char *fmt, ...)
{
	char text[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	fputs(ok ? "ok - " : "not ok - ", stdout);
	for (const char *c = text; *c; c++)
		if (*c == '\n')
			fputs("\\n", stdout);
		else
			putchar(*c);
	if (!ok)
		printf(" [%s]", cond);
	putchar('\n');
}

/* The condition is evaluated once. */
#define CHECK(cond, ...)                                   \
	do {                                               \
		int ok_ = !!(cond);                        \
		check_failures += !ok_;                    \
		check_line(ok_, #cond, __VA_ARGS__);       \
	} while (0)

#define CHECK_EQ_U(a, b, what)                                              \
	do {                                                                \
		unsigned long long a_ = (a), b_ = (b);                      \
		CHECK(a_ == b_, "%s: %llu == %llu", (what), a_, b_);       \
	} while (0)

#define CHECK_NEAR(a, b, eps, what)                                           \
	do {                                                                  \
		double a_ = (a), b_ = (b);                                    \
		CHECK(fabs(a_ - b_) <= (eps), "%s: %g ~ %g", (what), a_, b_); \
	} while (0)

#endif
