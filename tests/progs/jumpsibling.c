/* After a longjmp, the frame that called setjmp (rounds) calls a function
 * whose frame is bigger than the abandoned ones (Note [Longjmp] in
 * src/runtime/longjmp.c): big() must show as rounds' call, not as a call
 * from the frames left by the jump.  argv[1] picks the jump:
 *   longjmp, _longjmp, siglongjmp  called from small(), 3 deep
 *   handler   a SIGUSR1 handler on an alternate stack siglongjmps out of
 *             small() (the handler's own frames are left too)
 *   altabove  the same in a thread whose alternate stack was mapped
 *             before the thread's stack, so lies above it
 *   inlined   longjmp, with small() entered through a function inlined
 *             into rounds (its hooks run in rounds' frame)
 * Built with -D_FORTIFY_SOURCE=2 -O2, longjmp is glibc's __longjmp_chk.
 * Prints the calls it made, for the test to compare. */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ALT_SIZE (64 * 1024)

static jmp_buf env;
static sigjmp_buf senv;
static const char *how;
static void *mapped_alt;
static volatile unsigned long sink;
static unsigned long nsmall, nbig, nleaf, nhandler;

static int is(const char *what)
{
	return strcmp(how, what) == 0;
}

static int by_signal(void)
{
	return is("handler") || is("altabove");
}

__attribute__((noinline)) void leaf(void)
{
	nleaf++;
	sink++;
}

/* A big frame: its hook's stack pointer lies below small()'s. */
__attribute__((noinline)) void big(void)
{
	volatile char buf[4096];

	nbig++;
	memset((char *)buf, 1, sizeof buf);
	for (int i = 0; i < 10; i++)
		leaf();
	sink += buf[100];
}

static void jump(void)
{
	if (is("_longjmp"))
		_longjmp(env, 1);
	if (is("siglongjmp"))
		siglongjmp(senv, 1);
	if (by_signal())
		raise(SIGUSR1);
	longjmp(env, 1);
}

__attribute__((noinline)) void small(int n)
{
	nsmall++;
	if (n == 0)
		jump();
	small(n - 1);
	sink++;
}

static inline __attribute__((always_inline)) void small_inlined(void)
{
	sink++;
	small(3);
}

__attribute__((noinline)) void on_usr1(int sig)
{
	(void)sig;
	nhandler++;
	leaf();
	siglongjmp(senv, 1);
}

static void on_alternate_stack(void *stack)
{
	stack_t ss = { .ss_sp = stack, .ss_size = ALT_SIZE };
	struct sigaction sa;

	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
}

/* Twenty rounds of: small() jumps back here, then big(). */
__attribute__((noinline)) void rounds(void)
{
	volatile int round = 0;
	int jumped;

	if (is("siglongjmp") || by_signal())
		jumped = sigsetjmp(senv, 1);
	else
		jumped = setjmp(env);
	if (jumped)
		big();
	if (round < 20) {
		round++;
		if (is("inlined"))
			small_inlined();
		else
			small(3);
	}
}

__attribute__((noinline)) void *thread_rounds(void *unused)
{
	char here;

	(void)unused;
	on_alternate_stack(mapped_alt);
	printf("alternate stack %s the thread's\n", (char *)mapped_alt > &here ? "above" : "below");
	rounds();
	return NULL;
}

int main(int argc, char **argv)
{
	static char stack[ALT_SIZE];
	pthread_t t;

	how = argc > 1 ? argv[1] : "longjmp";
	if (is("handler"))
		on_alternate_stack(stack);
	if (is("altabove")) {
		/* Mapped before the thread's stack, which mmap puts below it. */
		mapped_alt = mmap(NULL, ALT_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				  -1, 0);
		if (mapped_alt == MAP_FAILED || pthread_create(&t, NULL, thread_rounds, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
	} else {
		rounds();
	}
	printf("calls small %lu\ncalls big %lu\ncalls leaf %lu\n", nsmall, nbig, nleaf);
	if (nhandler)
		printf("calls on_usr1 %lu\n", nhandler);
	return 0;
}
