/* After a longjmp, the frame that called setjmp calls a function whose
 * frame is bigger than the abandoned ones (Note [Longjmp] in
 * src/runtime/longjmp.c): big() must show as main's call, not as a call
 * from the small frames left by the jump.  argv[1] picks the jump:
 *   longjmp, _longjmp, siglongjmp  called from small(), 3 deep
 *   handler  a SIGUSR1 handler on an alternate stack siglongjmps out of
 *            small() (the handler's own frames are left too)
 * Built with -D_FORTIFY_SOURCE=2 -O2, longjmp is glibc's __longjmp_chk.
 * Prints the calls it made, for the test to compare. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf env;
static sigjmp_buf senv;
static const char *how;
static volatile unsigned long sink;
static unsigned long nsmall, nbig, nleaf, nhandler;

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
	if (strcmp(how, "_longjmp") == 0)
		_longjmp(env, 1);
	if (strcmp(how, "siglongjmp") == 0)
		siglongjmp(senv, 1);
	if (strcmp(how, "handler") == 0)
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

__attribute__((noinline)) void on_usr1(int sig)
{
	(void)sig;
	nhandler++;
	leaf();
	siglongjmp(senv, 1);
}

static void on_alternate_stack(void)
{
	static char stack[64 * 1024];
	stack_t ss = { .ss_sp = stack, .ss_size = sizeof stack };
	struct sigaction sa;

	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
}

int main(int argc, char **argv)
{
	volatile int round = 0;
	int jumped;

	how = argc > 1 ? argv[1] : "longjmp";
	if (strcmp(how, "handler") == 0)
		on_alternate_stack();
	if (strcmp(how, "siglongjmp") == 0 || strcmp(how, "handler") == 0)
		jumped = sigsetjmp(senv, 1);
	else
		jumped = setjmp(env);
	if (jumped)
		big();
	if (round < 20) {
		round++;
		small(3);
	}
	printf("calls small %lu\ncalls big %lu\ncalls leaf %lu\n", nsmall, nbig, nleaf);
	if (nhandler)
		printf("calls on_usr1 %lu\n", nhandler);
	return 0;
}
