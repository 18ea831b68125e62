/* argv[1] threads and main each call work() once, meet at a barrier, and
 * then all end the process at once: the threads with exit(3), main by
 * returning 3 (Note [Concurrent exit] in src/runtime/exitgate.c: the
 * thread that reached _exit first cut the profile's write short).  The
 * profile must show work called argv[1] + 1 times, every run. */
#include <pthread.h>
#include <stdlib.h>

static pthread_barrier_t barrier;
static volatile long sink;

__attribute__((noinline)) void work(void)
{
	for (int i = 0; i < 100000; i++)
		sink += i;
}

static void *worker(void *unused)
{
	(void)unused;
	work();
	pthread_barrier_wait(&barrier);
	exit(3);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	pthread_t t;

	pthread_barrier_init(&barrier, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		pthread_create(&t, NULL, worker, NULL);
	work();
	pthread_barrier_wait(&barrier);
	return 3;
}
