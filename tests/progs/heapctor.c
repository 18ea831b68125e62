/*
 * heapctor.c - a program whose instrumented library has a constructor,
 * for tests/heap.py (Note [Start-up order] in src/runtime/alloc.c): the
 * library's constructor runs the hooks before the preloaded runtime's
 * constructors.  Built twice: with -DHEAPCTOR_LIB as that library, and
 * without as the program, which takes five steps of 100,000 bytes, 30 ms
 * apart.
 */
#include <stdlib.h>
#include <time.h>

int heapctor_ready(void);

#ifdef HEAPCTOR_LIB
static int ready;

__attribute__((constructor)) static void heapctor_init(void)
{
	ready = 1;
}

int heapctor_ready(void)
{
	return ready;
}
#else
static void *volatile sink;

__attribute__((noinline)) void step(void)
{
	sink = malloc(100000);
}

int main(void)
{
	struct timespec ts = { 0, 30000000 };

	for (int k = 0; k < 5; k++) {
		step();
		nanosleep(&ts, NULL);
	}
	return !heapctor_ready();
}
#endif
