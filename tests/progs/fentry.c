/*
 * fentry.c - a program for gcc's -pg -mfentry -minstrument-return=call
 * (tests/fentry.py): it keeps its own call counts ("calls NAME N") and
 * checks that every value passed to or returned from a hooked function
 * survives the hooks (Note [Fentry registers] in src/runtime/fentry.c):
 * integer, SSE, x87, AVX and AVX-512 arguments and results, varargs, a
 * static chain, and a sibling call whose arguments are loaded when
 * __return__ runs.  Then a longjmp out of hooked frames, a signal
 * handler that calls hooked functions, and threads.
 *
 * Usage: fentry ROUNDS
 */
#include <immintrin.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define NOINLINE __attribute__((noinline, noclone))

static long n_leaf, n_fib, n_is_even, n_is_odd, n_op_add, n_op_mul, n_op_xor, n_many_ints,
	n_many_doubles, n_varsum, n_ld_triple, n_pair_of, n_dpair_of, n_vec_add, n_avx_add,
	n_avx512_add, n_six_ints, n_tail, n_outer, n_dive, n_handler_leaf, n_worker_step;
static int bad;
/* Read after a recursive call, so that gcc cannot turn it into a loop
 * (the program counts calls the hooks see). */
static volatile long one = 1;

static void expect(int ok, const char *what)
{
	if (!ok) {
		printf("BAD %s\n", what);
		bad++;
	}
}

NOINLINE long leaf(long x)
{
	n_leaf++;
	return x * 3 + 1;
}

NOINLINE long fib(int n)
{
	n_fib++;
	return n < 2 ? n : (fib(n - 1) + fib(n - 2)) * one;
}

NOINLINE int is_odd(unsigned n);

NOINLINE int is_even(unsigned n)
{
	n_is_even++;
	return n == 0 ? 1 : is_odd(n - 1);
}

NOINLINE int is_odd(unsigned n)
{
	n_is_odd++;
	return n == 0 ? 0 : is_even(n - 1);
}

NOINLINE long op_add(long a, long b)
{
	n_op_add++;
	return a + b;
}

NOINLINE long op_mul(long a, long b)
{
	n_op_mul++;
	return a * b;
}

NOINLINE long op_xor(long a, long b)
{
	n_op_xor++;
	return a ^ b;
}

/* All six integer argument registers and two on the stack. */
NOINLINE long many_ints(long a, long b, long c, long d, long e, long f, long g, long h)
{
	n_many_ints++;
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h;
}

/* All eight SSE argument registers, and an integer one. */
NOINLINE double many_doubles(double a, double b, double c, double d, double e, double f,
			     double g, double h, int i)
{
	n_many_doubles++;
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + i;
}

/* Varargs: al says how many vector registers hold arguments. */
NOINLINE double varsum(int n, ...)
{
	va_list ap;
	double s = 0;

	n_varsum++;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, double) * (i + 1);
	va_end(ap);
	return s;
}

/* Returned in st(0). */
NOINLINE long double ld_triple(long double x)
{
	n_ld_triple++;
	return x * 3;
}

struct pair {
	long a, b;
};

/* Returned in rax:rdx. */
NOINLINE struct pair pair_of(long x)
{
	n_pair_of++;
	return (struct pair){ x + 1, x * 7 };
}

struct dpair {
	double a, b;
};

/* Returned in xmm0:xmm1. */
NOINLINE struct dpair dpair_of(double x)
{
	n_dpair_of++;
	return (struct dpair){ x / 2, x * 5 };
}

NOINLINE __m128d vec_add(__m128d a, __m128d b)
{
	n_vec_add++;
	return _mm_add_pd(a, b);
}

__attribute__((target("avx"))) NOINLINE __m256d avx_add(__m256d a, __m256d b)
{
	n_avx_add++;
	return _mm256_add_pd(a, b);
}

__attribute__((target("avx"))) static int avx_check(long r)
{
	__m256d a = _mm256_set_pd(r, r + 1, r + 2, r + 3), b = _mm256_set_pd(4, 3, 2, 1);
	double out[4];

	_mm256_storeu_pd(out, avx_add(a, b));
	return out[0] == r + 4 && out[1] == r + 4 && out[2] == r + 4 && out[3] == r + 4;
}

__attribute__((target("avx512f"))) NOINLINE __m512d avx512_add(__m512d a, __m512d b)
{
	n_avx512_add++;
	return _mm512_add_pd(a, b);
}

__attribute__((target("avx512f"))) static int avx512_check(long r)
{
	__m512d a = _mm512_set_pd(r, r + 1, r + 2, r + 3, r + 4, r + 5, r + 6, r + 7);
	__m512d b = _mm512_set_pd(8, 7, 6, 5, 4, 3, 2, 1);
	double out[8];

	_mm512_storeu_pd(out, avx512_add(a, b));
	for (int i = 0; i < 8; i++)
		if (out[i] != r + 8)
			return 0;
	return 1;
}

NOINLINE long six_ints(long a, long b, long c, long d, long e, long f)
{
	n_six_ints++;
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f;
}

/* A sibling call: gcc calls __return__ with six_ints' arguments loaded,
 * then jumps to it. */
NOINLINE long tail(long a, long b)
{
	n_tail++;
	return six_ints(a, b, a + 1, b + 1, a + 2, b + 2);
}

/* A nested function gets its static chain in r10. */
NOINLINE long outer(long x)
{
	NOINLINE long inner(long y)
	{
		return x * 100 + y;
	}
	n_outer++;
	return inner(1) + inner(2);
}

static void registers(long r)
{
	char what[64];
	long double ld;
	struct pair p;
	struct dpair dp;
	double v[2];

	snprintf(what, sizeof what, "many_ints round %ld", r);
	expect(many_ints(r, 1, 2, 3, 4, 5, 6, 7) == r + 2 + 6 + 12 + 20 + 30 + 42 + 56, what);
	expect(many_doubles(r, 1, 2, 3, 4, 5, 6, 7, 9) == r + 2 + 6 + 12 + 20 + 30 + 42 + 56 + 9,
	       "many_doubles");
	expect(varsum(4, (double)r, 1.0, 2.0, 3.0) == r + 2 + 6 + 12, "varsum");
	ld = ld_triple((long double)r + 0.25L);
	expect(ld == ((long double)r + 0.25L) * 3, "ld_triple");
	p = pair_of(r);
	expect(p.a == r + 1 && p.b == r * 7, "pair_of");
	dp = dpair_of((double)r);
	expect(dp.a == r / 2.0 && dp.b == r * 5.0, "dpair_of");
	_mm_storeu_pd(v, vec_add(_mm_set_pd(r, 2), _mm_set_pd(3, r)));
	expect(v[0] == r + 2 && v[1] == r + 3, "vec_add");
	if (__builtin_cpu_supports("avx"))
		expect(avx_check(r), "avx_add");
	if (__builtin_cpu_supports("avx512f"))
		expect(avx512_check(r), "avx512_add");
	expect(tail(r, 2) == r + 4 + 3 * (r + 1) + 4 * 3 + 5 * (r + 2) + 6 * 4, "tail");
	expect(outer(r) == 200 * r + 3, "outer");
}

static long (*const ops[])(long, long) = { op_add, op_mul, op_xor };

/* 1,024 functions called in turn from one context: more transitions than
 * the caches hold, so most of these calls miss them and take the light
 * path (Note [Fentry light path]) with AVX arguments live. */
static long n_spread;
#define SPREAD1(n) \
	__attribute__((target("avx"))) NOINLINE __m256d spread_##n(__m256d a, double k) \
	{ \
		__atomic_add_fetch(&n_spread, 1, __ATOMIC_RELAXED); \
		return _mm256_add_pd(a, _mm256_set1_pd(k + 0##n)); \
	}
#define SPREAD4(n) SPREAD1(n##0) SPREAD1(n##1) SPREAD1(n##2) SPREAD1(n##3)
#define SPREAD16(n) SPREAD4(n##0) SPREAD4(n##1) SPREAD4(n##2) SPREAD4(n##3)
#define SPREAD64(n) SPREAD16(n##0) SPREAD16(n##1) SPREAD16(n##2) SPREAD16(n##3)
#define SPREAD256(n) SPREAD64(n##0) SPREAD64(n##1) SPREAD64(n##2) SPREAD64(n##3)
SPREAD256(10) SPREAD256(11) SPREAD256(12) SPREAD256(13)
#define NAME1(n) spread_##n,
#define NAME4(n) NAME1(n##0) NAME1(n##1) NAME1(n##2) NAME1(n##3)
#define NAME16(n) NAME4(n##0) NAME4(n##1) NAME4(n##2) NAME4(n##3)
#define NAME64(n) NAME16(n##0) NAME16(n##1) NAME16(n##2) NAME16(n##3)
#define NAME256(n) NAME64(n##0) NAME64(n##1) NAME64(n##2) NAME64(n##3)
static __m256d (*const spread[])(__m256d, double) = {
	NAME256(10) NAME256(11) NAME256(12) NAME256(13)
};

/* The digits of spread_N's name, base 4, as spread_N adds them. */
static double spread_adds(int i)
{
	long octal = 0, place = 1;

	for (int d = 0; d < 5; d++, place *= 8, i /= 4)
		octal += (i % 4) * place; /* 0##n reads the digits as octal */
	return (double)(octal + 8 * 8 * 8 * 8 * 8);
}

__attribute__((target("avx"))) static int spread_check(long r)
{
	double out[4];

	for (int i = 0; i < (int)(sizeof spread / sizeof *spread); i++) {
		__m256d a = _mm256_set_pd(r, r + 1, r + 2, r + 3);

		_mm256_storeu_pd(out, spread[i](a, 0.5));
		for (int j = 0; j < 4; j++)
			if (out[j] != r + (3 - j) + 0.5 + spread_adds(i))
				return 0;
	}
	return 1;
}

static jmp_buf back;

/* Hooked frames a longjmp leaves without their __return__. */
NOINLINE void dive(int depth)
{
	n_dive++;
	if (depth == 0)
		longjmp(back, 1);
	dive(depth - 1);
	one = 1;
}

NOINLINE void handler_leaf(void)
{
	n_handler_leaf++;
}

static volatile sig_atomic_t ticks;

static void on_alarm(int sig)
{
	(void)sig;
	handler_leaf();
	ticks++; /* after the call: no sibling call, on_alarm stays its caller */
}

NOINLINE long worker_step(long x)
{
	__atomic_add_fetch(&n_worker_step, 1, __ATOMIC_RELAXED);
	return x * 31 + 7;
}

static void *worker(void *arg)
{
	long x = (long)arg;

	for (int i = 0; i < 20000; i++)
		x = worker_step(x);
	return (void *)x;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100, sum = 0;
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	pthread_t th[3];
	int depth = 0;

	for (long r = 0; r < rounds; r++) {
		sum += leaf(r) + fib(12) + is_even((unsigned)(r % 50));
		sum += ops[r % 3](sum, r);
		registers(r);
		if (r < 20 && __builtin_cpu_supports("avx"))
			expect(spread_check(r), "spread");
	}
	/* longjmp out of 5 frames of dive, 20 times, then more calls */
	for (int i = 0; i < 20; i++) {
		if (setjmp(back) == 0)
			dive(4);
		else
			depth++;
	}
	sum += leaf(depth);
	/* a timer whose handler calls a hooked function */
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
	while (ticks < 20) /* calls that vary from run to run: not in sum */
		leaf(fib(10));
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, worker, (void *)(long)i);
	for (int i = 0; i < 3; i++) {
		void *ret;

		pthread_join(th[i], &ret);
		sum += (long)ret;
	}
	printf("sum %ld bad %d\n", sum & 0xffff, bad);
#define SAY(f) printf("calls %s %ld\n", #f, n_##f)
	SAY(leaf);
	SAY(fib);
	SAY(is_even);
	SAY(is_odd);
	SAY(op_add);
	SAY(op_mul);
	SAY(op_xor);
	SAY(many_ints);
	SAY(many_doubles);
	SAY(varsum);
	SAY(ld_triple);
	SAY(pair_of);
	SAY(dpair_of);
	SAY(vec_add);
	SAY(avx_add);
	SAY(avx512_add);
	SAY(six_ints);
	SAY(tail);
	SAY(outer);
	SAY(dive);
	SAY(handler_leaf);
	SAY(worker_step);
	return bad ? 1 : 0;
}
