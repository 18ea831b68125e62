/* A million-deep recursion (on a thread with a big enough stack). */
#include <pthread.h>
#include <stdio.h>

static unsigned long calls;

__attribute__((noinline)) unsigned long down(unsigned long n)
{
	calls++;
	return n == 0 ? 0 : 1 + down(n - 1);
}

static void *run(void *arg)
{
	(void)arg;
	printf("depth %lu\n", down(1000000));
	return NULL;
}

int main(void)
{
	pthread_attr_t a;
	pthread_t t;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, (size_t)1 << 30);
	pthread_create(&t, &a, run, NULL);
	pthread_join(t, NULL);
	printf("calls down %lu\n", calls);
	return 0;
}
