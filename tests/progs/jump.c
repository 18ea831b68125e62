/* longjmp out of deep recursion, 50 times: descend() recurses 100 deep and
 * jumps back to main; after each jump main calls after_jump().  The calls
 * of after_jump must be attributed to main, not to the abandoned frames. */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
static volatile unsigned long sink;
static unsigned long ndescend;

__attribute__((noinline)) void descend(int n)
{
	ndescend++;
	if (n == 0)
		longjmp(env, 1);
	descend(n - 1);
	sink++;
}

__attribute__((noinline)) void after_jump(void) { sink++; }

int main(void)
{
	volatile int round = 0;

	setjmp(env);
	if (round < 50) {
		round++;
		descend(100);
	}
	after_jump();
	printf("calls descend %lu\ncalls after_jump 1\n", ndescend);
	return 0;
}
