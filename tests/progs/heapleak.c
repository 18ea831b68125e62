/* heapleak.c - a known live heap for the heap views (tests/heap_views.py):
 * store() keeps 3 blocks of 100 bytes until exit, temp() frees its 4096
 * bytes, churn() allocates and frees 16 bytes N times.  Nothing prints, so
 * stdio allocates nothing. */
#include <stdlib.h>
#include <string.h>

static void *kept[3];

__attribute__((noinline)) void store(int i)
{
	kept[i] = malloc(100);
	memset(kept[i], i, 100);
}

__attribute__((noinline)) void temp(void)
{
	char *p = malloc(4096);
	memset(p, 1, 4096);
	free(p);
}

__attribute__((noinline)) void churn(int n)
{
	for (int i = 0; i < n; i++) {
		volatile char *p = malloc(16);
		p[0] = 1;
		free((void *)p);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	for (int i = 0; i < 3; i++) {
		store(i);
		temp();
	}
	churn(n);
	return kept[0] == NULL;
}
