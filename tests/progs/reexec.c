/* A program that execs itself through execl with 3000 arguments: the
 * first image's profile is kept beside the second's, and the list form of
 * exec passes every argument through.  With "die", the second image dies
 * by SIGTERM: its profile, written from the signal handler, must not
 * replace the first image's either, which moves to PATH.pre-exec.1 as at
 * a normal exit (dump.c, Note [Pre-exec profile]): a shell's `exec prog`,
 * then prog killed. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) void before(void) { }
__attribute__((noinline)) void after(void) { }

#define A10 "x", "x", "x", "x", "x", "x", "x", "x", "x", "x"
#define A100 A10, A10, A10, A10, A10, A10, A10, A10, A10, A10
#define A1000 A100, A100, A100, A100, A100, A100, A100, A100, A100, A100

int main(int argc, char **argv)
{
	int die = argc > 1 && strcmp(argv[1], "die") == 0;

	if (argc > 1 && strncmp(argv[1], "again", 5) == 0) {
		after();
		printf("second image, %d arguments, last %s\n", argc, argv[argc - 1]);
		if (strcmp(argv[1], "again-die") == 0) {
			after();
			after();
			fflush(stdout);
			raise(SIGTERM);
			return 1;
		}
		return 0;
	}
	before();
	before();
	fflush(stdout);
	execl("/proc/self/exe", argv[0], die ? "again-die" : "again", A1000, A1000, A1000, "end",
	      (char *)NULL);
	perror("execl");
	return 1;
}
