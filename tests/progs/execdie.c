/* A program that execs itself (with 3000 arguments, so that the first
 * image's META section spans many reads), and the second image dies by
 * SIGTERM: its profile, written from the signal handler, must not replace
 * the first image's, which moves to PATH.pre-exec.1 as at a normal exit
 * (dump.c, Note [Pre-exec profile]).  A shell's `exec prog`, then prog
 * killed. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void before(void) { sink++; }
__attribute__((noinline)) void after(void) { sink++; }

#define A10 "x", "x", "x", "x", "x", "x", "x", "x", "x", "x"
#define A100 A10, A10, A10, A10, A10, A10, A10, A10, A10, A10
#define A1000 A100, A100, A100, A100, A100, A100, A100, A100, A100, A100

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "again") == 0) {
		after();
		after();
		after();
		printf("second image, %d arguments\n", argc);
		fflush(stdout);
		raise(SIGTERM);
		return 1;
	}
	before();
	before();
	fflush(stdout);
	execl("/proc/self/exe", argv[0], "again", A1000, A1000, A1000, (char *)NULL);
	perror("execl");
	return 1;
}
