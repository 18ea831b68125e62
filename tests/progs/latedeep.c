/*
 * latedeep.c - threads whose instrumented code runs after the runtime
 * saw them end: a key created after the runtime's has a destructor that
 * recurses DEPTH calls deep and calls 64 distinct functions through a
 * table (more transitions than a thread's first tables hold).  N
 * threads, one after another, or all started together with "together".
 *
 *   latedeep N DEPTH [together]   prints "calls F N" for each function
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long nbody, nrec, nwide;
static int depth;
static volatile unsigned long sink;

__attribute__((noinline)) void rec(int n)
{
	sink++;
	if (n > 1)
		rec(n - 1);
	sink++;
}

#define WIDE(i) \
	__attribute__((noinline)) void wide##i(void) { sink += i; }
#define WIDE8(i) WIDE(i##0) WIDE(i##1) WIDE(i##2) WIDE(i##3) WIDE(i##4) WIDE(i##5) WIDE(i##6) WIDE(i##7)
WIDE8(1) WIDE8(2) WIDE8(3) WIDE8(4) WIDE8(5) WIDE8(6) WIDE8(7) WIDE8(8)
#define REF8(i) wide##i##0, wide##i##1, wide##i##2, wide##i##3, wide##i##4, wide##i##5, wide##i##6, wide##i##7
static void (*const wides[])(void) = { REF8(1), REF8(2), REF8(3), REF8(4),
				       REF8(5), REF8(6), REF8(7), REF8(8) };
#define NWIDE (sizeof wides / sizeof wides[0])

static void after_end(void *arg)
{
	size_t i;

	(void)arg;
	rec(depth);
	for (i = 0; i < NWIDE; i++)
		wides[i]();
	pthread_mutex_lock(&count_lock);
	nrec += (unsigned long)depth;
	nwide += NWIDE;
	pthread_mutex_unlock(&count_lock);
}

static void make_key(void)
{
	pthread_key_create(&key, after_end);
}

__attribute__((noinline)) void *body(void *arg)
{
	(void)arg;
	pthread_once(&once, make_key); /* after the runtime's key: its destructor runs later */
	pthread_setspecific(key, &key);
	pthread_mutex_lock(&count_lock);
	nbody++;
	pthread_mutex_unlock(&count_lock);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20, together = argc > 3 && strcmp(argv[3], "together") == 0;
	pthread_t *t = calloc((size_t)n, sizeof *t);
	int i;

	depth = argc > 2 ? atoi(argv[2]) : 3000;
	if (t == NULL || n <= 0 || depth <= 0)
		return 2;
	for (i = 0; i < n; i++) {
		if (pthread_create(&t[i], NULL, body, NULL) != 0)
			return 1;
		if (!together)
			pthread_join(t[i], NULL);
	}
	for (i = 0; together && i < n; i++)
		pthread_join(t[i], NULL);
	printf("calls body %lu\ncalls rec %lu\ncalls wide10 %lu\n", nbody, nrec, nwide / NWIDE);
	return 0;
}
