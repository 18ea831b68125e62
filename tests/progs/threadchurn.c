/* Many short threads, one after another, under a limit on the address
 * space (robust.py sets RLIMIT_AS): the runtime must not keep each ended
 * thread's shadow stack reserved (2 MiB each: 2,000 threads made 4 GB),
 * or the program's own mappings fail where they succeed bare (Note
 * [Ended threads' reserve] in src/runtime/threads.c).
 *
 *   threadchurn N   start and join N threads, then map 1,000 pages */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static volatile int sink;

__attribute__((noinline)) void leaf(int n)
{
	for (int i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) void *body(void *arg)
{
	leaf(100);
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000, fails = 0, i;

	for (i = 0; i < n; i++) {
		pthread_t t;
		int e = pthread_create(&t, NULL, body, NULL);

		if (e) {
			printf("pthread_create failed at %d: %s\n", i, strerror(e));
			return 1;
		}
		pthread_join(t, NULL);
	}
	for (i = 0; i < 1000; i++) {
		void *p = mmap(NULL, 4096, i % 2 ? PROT_READ : PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		fails += p == MAP_FAILED;
	}
	printf("threads %d, mmap fails %d\n", n, fails);
	printf("calls leaf %d\n", n);
	return 0;
}
