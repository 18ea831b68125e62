/* Coroutines by swapcontext: a driver resumes a producer coroutine 1,000
 * times on a stack of its own, and the producer yields back after each
 * item.  The calls no longer nest on one stack, which is what ccprof's
 * shadow stack follows; the counts must stay exact whichever way the two
 * stacks lie.  argv[1]: "below", the coroutine's stack in static memory
 * (below the thread's stack, as a malloc'd one usually is), or "above",
 * on the main thread's stack while a thread below it drives. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#define ITEMS 1000
#define STACK (1 << 16)

static ucontext_t driver_ctx, co_ctx;
static unsigned long produced, nleaf, nproduce, nconsume, nresume;
static char *co_stack;

__attribute__((noinline)) int leaf(int x)
{
	nleaf++;
	return x * 2;
}

__attribute__((noinline)) void produce(int i)
{
	nproduce++;
	produced += (unsigned long)leaf(i);
	swapcontext(&co_ctx, &driver_ctx);
}

__attribute__((noinline)) void coroutine(void)
{
	for (int i = 0; i < ITEMS; i++)
		produce(i);
}

__attribute__((noinline)) void consume(void)
{
	nconsume++;
	leaf(1);
}

__attribute__((noinline)) void resume(void)
{
	nresume++;
	swapcontext(&driver_ctx, &co_ctx);
	consume();
}

__attribute__((noinline)) void *drive(void *arg)
{
	(void)arg;
	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = co_stack;
	co_ctx.uc_stack.ss_size = STACK;
	co_ctx.uc_link = &driver_ctx;
	makecontext(&co_ctx, coroutine, 0);
	for (int i = 0; i < ITEMS; i++)
		resume();
	return NULL;
}

int main(int argc, char **argv)
{
	static char static_stack[STACK];
	char local_stack[STACK];
	pthread_t t;

	if (argc > 1 && strcmp(argv[1], "above") == 0) {
		co_stack = local_stack;
		pthread_create(&t, NULL, drive, NULL);
		pthread_join(t, NULL);
	} else {
		co_stack = static_stack;
		drive(NULL);
	}
	printf("produced %lu\n", produced);
	printf("calls leaf %lu\ncalls produce %lu\ncalls consume %lu\ncalls resume %lu\n"
	       "calls coroutine 1\ncalls drive 1\ncalls main 1\n",
	       nleaf, nproduce, nconsume, nresume);
	return 0;
}
