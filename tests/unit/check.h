/* check.h - tiny assertion helpers for the C unit tests (TAP-style lines). */
#ifndef CCPROF_TEST_CHECK_H
#define CCPROF_TEST_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_failures;

#define CHECK(cond, ...)                                         \
	do {                                                     \
		if (cond) {                                      \
			printf("ok - ");                         \
		} else {                                         \
			printf("not ok - ");                     \
			check_failures++;                        \
		}                                                \
		printf(__VA_ARGS__);                             \
		printf("%s\n", (cond) ? "" : " [" #cond "]");    \
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
