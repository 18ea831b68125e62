/* Short threads, each entering functions that other threads entered
 * too: what a thread costs the runtime for the functions it enters
 * (Note [Numbers read without the lock] in src/runtime/cctable.c, Note
 * [Pages for the next thread] in pagepool.c).
 *
 *   widethreads N           N threads one after another, each calling
 *                           the first 100 functions
 *   widethreads N parallel  N rounds of 4 threads at once, each calling
 *                           all 1,000 from its own starting point: numbers
 *                           read while others are given, the table
 *                           growing meanwhile
 *
 * Prints the calls the profile must show. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define F(i)                                                             \
	static unsigned long n_##i;                                      \
	__attribute__((noinline)) void f##i(void)                        \
	{                                                                \
		__atomic_fetch_add(&n_##i, 1, __ATOMIC_RELAXED);         \
	}
#define E(i) { "f" #i, f##i, &n_##i },

#define X10(M, d) M(d##0) M(d##1) M(d##2) M(d##3) M(d##4) M(d##5) M(d##6) M(d##7) M(d##8) M(d##9)
#define X100(M, d)                                                                         \
	X10(M, d##0) X10(M, d##1) X10(M, d##2) X10(M, d##3) X10(M, d##4) X10(M, d##5)       \
	X10(M, d##6) X10(M, d##7) X10(M, d##8) X10(M, d##9)
#define X1000(M)                                                                           \
	X100(M, 0) X100(M, 1) X100(M, 2) X100(M, 3) X100(M, 4) X100(M, 5) X100(M, 6)         \
	X100(M, 7) X100(M, 8) X100(M, 9)

X1000(F)

static const struct {
	const char *name;
	void (*fn)(void);
	unsigned long *n;
} table[] = { X1000(E) };

#define ALL ((int)(sizeof table / sizeof *table))
#define NARROW 100
#define AT_ONCE 4

static unsigned long nbody;

__attribute__((noinline)) void *narrow(void *arg)
{
	for (int i = 0; i < NARROW; i++)
		table[i].fn();
	__atomic_fetch_add(&nbody, 1, __ATOMIC_RELAXED);
	return arg;
}

__attribute__((noinline)) void *wide(void *arg)
{
	int from = (int)(long)arg * (ALL / AT_ONCE);

	for (int i = 0; i < ALL; i++)
		table[(from + i) % ALL].fn();
	__atomic_fetch_add(&nbody, 1, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	int parallel = argc > 2 && strcmp(argv[2], "parallel") == 0;

	for (int i = 0; i < n; i++) {
		pthread_t t[AT_ONCE];
		int k, started = parallel ? AT_ONCE : 1;

		for (k = 0; k < started; k++)
			if (pthread_create(&t[k], NULL, parallel ? wide : narrow, (void *)(long)k) != 0)
				return 1;
		for (k = 0; k < started; k++)
			pthread_join(t[k], NULL);
	}
	printf("calls %s %lu\n", parallel ? "wide" : "narrow", nbody);
	for (int i = 0; i < ALL; i++)
		if (*table[i].n)
			printf("calls %s %lu\n", table[i].name, *table[i].n);
	return 0;
}
