/* Threads started in rounds, K at once, each round joined before the
 * next: from the second round on, each new thread takes over the state
 * of an ended one (Note [States reborn] in src/runtime/threads.c), and
 * each ended thread's record must keep what its thread did.  Thread i
 * of round r names itself "r<r>.<i>" before its first instrumented
 * call and calls leaf() (r * K + i) % 7 + 1 times, each through mid()
 * every other time; with "late", it also calls late() from a
 * thread-specific key's destructor, after the runtime saw it end.
 *
 *   threadrounds R K [late]   prints "calls F N" for every function */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long nleaf, nmid, nbody, nlate;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t all_started;
static pthread_key_t late_key;
static int rounds_k, with_late;

__attribute__((noinline)) void leaf(void) { nleaf++; }
__attribute__((noinline)) void mid(void) { nmid++; leaf(); }
__attribute__((noinline)) void late(void) { nlate++; }

static void late_destructor(void *v)
{
	(void)v;
	pthread_mutex_lock(&lock);
	late();
	pthread_mutex_unlock(&lock);
}

__attribute__((noinline)) void body(int n)
{
	nbody++;
	for (int i = 0; i < n; i++) {
		if (i & 1)
			mid();
		else
			leaf();
	}
}

/* Not instrumented: it names the thread before its first hook. */
__attribute__((no_instrument_function)) static void *start(void *arg)
{
	long id = (long)arg;
	char name[16];

	snprintf(name, sizeof name, "r%ld.%ld", id / rounds_k, id % rounds_k);
	pthread_setname_np(pthread_self(), name);
	pthread_barrier_wait(&all_started);
	pthread_mutex_lock(&lock);
	body((int)(id % 7) + 1);
	pthread_mutex_unlock(&lock);
	if (with_late)
		pthread_setspecific(late_key, &late_key);
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	pthread_t *t;

	rounds_k = argc > 2 ? atoi(argv[2]) : 8;
	with_late = argc > 3 && strcmp(argv[3], "late") == 0;
	t = calloc((size_t)rounds_k, sizeof *t);
	if (t == NULL || rounds < 1 || rounds_k < 1)
		return 2;
	pthread_key_create(&late_key, late_destructor);
	for (int r = 0; r < rounds; r++) {
		pthread_barrier_init(&all_started, NULL, (unsigned)rounds_k);
		for (long i = 0; i < rounds_k; i++)
			if (pthread_create(&t[i], NULL, start, (void *)(r * (long)rounds_k + i)) != 0)
				return 1;
		for (int i = 0; i < rounds_k; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&all_started);
	}
	printf("calls body %lu\ncalls mid %lu\ncalls leaf %lu\n", nbody, nmid, nleaf);
	if (with_late)
		printf("calls late %lu\n", nlate);
	free(t);
	return 0;
}
