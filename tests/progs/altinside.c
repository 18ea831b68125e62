/* A signal handler on an alternate stack that lies inside the thread's
 * own stack (a buffer in an outer frame, as a program may set one up in
 * main), above the frames it interrupts, returns to them: they are not
 * gone (Note [An alternate stack on the thread's stack] in
 * src/runtime/signals.c).  argv[1] says where the alternate stack is:
 *   main     a buffer in main's frame
 *   thread   a buffer in a thread's start function's frame
 *   static   static memory, outside every thread's stack
 * Twenty rounds of: dive(5), whose deepest call raises SIGUSR1, whose
 * handler calls noted(); then that call calls after(), which calls
 * leaf() ten times.  With argv[2] "jump", the handler siglongjmps back
 * to the round (rounds' frame) instead, which calls after().  Prints
 * the calls it made. */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define ALT_SIZE (64 * 1024)

static volatile unsigned long sink;
static unsigned long ndive, nafter, nleaf, nnoted, nhandler;
static int jumping;
static sigjmp_buf back;

__attribute__((noinline)) void leaf(void)
{
	nleaf++;
	sink++;
}

__attribute__((noinline)) void noted(void)
{
	nnoted++;
	sink++;
}

__attribute__((noinline)) void on_usr1(int sig)
{
	(void)sig;
	nhandler++;
	noted();
	if (jumping)
		siglongjmp(back, 1);
}

__attribute__((noinline)) void after(void)
{
	nafter++;
	for (int i = 0; i < 10; i++)
		leaf();
}

__attribute__((noinline)) void dive(int n)
{
	ndive++;
	if (n == 0) {
		raise(SIGUSR1);
		if (!jumping)
			after();
	} else {
		dive(n - 1);
	}
	sink++;
}

static int on_alternate_stack(void *stack)
{
	stack_t ss = { .ss_sp = stack, .ss_size = ALT_SIZE };
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	return sigaltstack(&ss, NULL) == 0 && sigaction(SIGUSR1, &sa, NULL) == 0;
}

__attribute__((noinline)) void rounds(void)
{
	for (volatile int i = 0; i < 20; i++) {
		if (jumping && sigsetjmp(back, 1)) {
			after();
			continue;
		}
		dive(5);
	}
}

static void *thread_rounds(void *unused)
{
	char stack[ALT_SIZE];

	(void)unused;
	if (on_alternate_stack(stack))
		rounds();
	return NULL;
}

int main(int argc, char **argv)
{
	static char static_stack[ALT_SIZE];
	char stack[ALT_SIZE];
	const char *where = argc > 1 ? argv[1] : "main";
	pthread_t t;

	jumping = argc > 2 && strcmp(argv[2], "jump") == 0;
	if (strcmp(where, "thread") == 0) {
		if (pthread_create(&t, NULL, thread_rounds, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
	} else if (on_alternate_stack(strcmp(where, "static") == 0 ? static_stack : stack)) {
		rounds();
	}
	printf("calls dive %lu\ncalls after %lu\ncalls leaf %lu\ncalls noted %lu\ncalls on_usr1 %lu\n",
	       ndive, nafter, nleaf, nnoted, nhandler);
	return 0;
}
