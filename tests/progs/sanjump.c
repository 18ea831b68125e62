/* Jumps and switches under a sanitizer, with libccprof.a linked in:
 * clang puts the sanitizer's runtime in the program, where its
 * interceptors of longjmp and swapcontext are weak, as libccprof.a's are
 * (the Makefile's STATIC_WEAK), so the sanitizer's come first and see
 * every jump (ThreadSanitizer crashed when the runtime's were strong).
 * Prints what it did, for the test to compare with the build without
 * the runtime. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

static jmp_buf env;
static ucontext_t main_ctx, co_ctx;
static char co_stack[64 * 1024];
static volatile long yields;

__attribute__((noinline)) void inner(void)
{
	longjmp(env, 1);
}

__attribute__((noinline)) void outer(void)
{
	inner();
}

__attribute__((noinline)) void co_body(void)
{
	for (;;) {
		yields++;
		swapcontext(&co_ctx, &main_ctx);
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, jumped = 0;

	for (long i = 0; i < n; i++) {
		if (setjmp(env) == 0)
			outer();
		else
			jumped++;
	}
	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = co_stack;
	co_ctx.uc_stack.ss_size = sizeof co_stack;
	makecontext(&co_ctx, co_body, 0);
	for (long i = 0; i < 1000; i++)
		swapcontext(&main_ctx, &co_ctx);
	printf("jumped %ld\nyields %ld\n", jumped, (long)yields);
	return 0;
}
