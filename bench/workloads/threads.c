/*
 * threads.c - four threads, each doing call-heavy work of its own: a
 * binary search tree built, searched and summed by recursive functions,
 * and a small recursive hash.  On a two-core machine the four threads
 * share two cores.
 *
 * Usage: threads [UNITS]; prints a checksum, and "calls N" on stderr.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4
#define NODES 4096
#define NOINLINE __attribute__((noinline))

struct node {
	unsigned key;
	struct node *l, *r;
};

struct work {
	unsigned id;
	unsigned units;
	struct node pool[NODES];
	unsigned used;
	unsigned long calls;
	unsigned long sum;
};

NOINLINE static struct node *insert(struct work *w, struct node *t, unsigned key)
{
	w->calls++;
	if (t == NULL) {
		t = &w->pool[w->used++];
		t->key = key;
		t->l = t->r = NULL;
		return t;
	}
	if (key < t->key)
		t->l = insert(w, t->l, key);
	else
		t->r = insert(w, t->r, key);
	return t;
}

NOINLINE static int find(struct work *w, const struct node *t, unsigned key)
{
	w->calls++;
	if (t == NULL)
		return 0;
	if (key == t->key)
		return 1;
	return find(w, key < t->key ? t->l : t->r, key);
}

NOINLINE static unsigned long sum_tree(struct work *w, const struct node *t)
{
	w->calls++;
	if (t == NULL)
		return 0;
	return t->key + sum_tree(w, t->l) + sum_tree(w, t->r);
}

NOINLINE static unsigned hash(struct work *w, unsigned x, int rounds)
{
	w->calls++;
	if (rounds == 0)
		return x;
	return hash(w, (x ^ (x >> 15)) * 0x2c1b3c6du, rounds - 1) + 1;
}

static void *thread_main(void *arg)
{
	struct work *w = arg;
	unsigned seed = 17 + w->id;

	w->calls++;
	for (unsigned u = 0; u < w->units; u++) {
		struct node *root = NULL;

		w->used = 0;
		for (unsigned i = 0; i < NODES; i++) {
			seed = seed * 1103515245u + 12345u;
			root = insert(w, root, seed >> 8);
		}
		for (unsigned i = 0; i < NODES; i++)
			w->sum += (unsigned long)find(w, root, hash(w, i, 8) >> 8);
		w->sum += sum_tree(w, root);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned units = argc > 1 ? (unsigned)atoi(argv[1]) : 100;
	static struct work w[NTHREADS];
	pthread_t th[NTHREADS];
	unsigned long calls = 1, sum = 0;

	for (int i = 0; i < NTHREADS; i++) {
		w[i].id = (unsigned)i;
		w[i].units = units / NTHREADS + ((unsigned)i < units % NTHREADS);
		if (pthread_create(&th[i], NULL, thread_main, &w[i]) != 0) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		calls += w[i].calls;
		sum += w[i].sum;
	}
	printf("threads: units %u checksum %lu\n", units, sum);
	fprintf(stderr, "calls %lu\n", calls);
	return 0;
}
