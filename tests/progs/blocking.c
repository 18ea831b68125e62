/* A program that blocks: sleeper() sleeps 150 ms, burner() computes for
 * about 150 ms of CPU.  Under clock=wall both are charged; under clock=cpu
 * the sleeper costs next to nothing. */
#include <stdio.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void sleeper(void)
{
	struct timespec ts = { 0, 150000000 };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) void burner(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 150000000L);
}

int main(void)
{
	sleeper();
	burner();
	printf("done\n");
	return 0;
}
