/* check.h - tiny assertion helpers for the C unit tests (TAP-style lines). */
#ifndef CCPROF_TEST_CHECK_H
#define CCPROF_TEST_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_failures;

/* The condition is evaluated once. */
#define CHECK(cond, ...)                                         \
	do {                                                     \
		int ok_ = !!(cond);                              \
		printf(ok_ ? "ok - " : "not ok - ");             \
		check_failures += !ok_;                          \
		printf(__VA_ARGS__);                             \
		printf("%s\n", ok_ ? "" : " [" #cond "]");       \
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
