/* A program that execs itself through execl with 3000 arguments: the
 * first image's profile is kept beside the second's, and the list form of
 * exec passes every argument through. */
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
	if (argc > 1 && strcmp(argv[1], "again") == 0) {
		after();
		printf("second image, %d arguments, last %s\n", argc, argv[argc - 1]);
		return 0;
	}
	before();
	before();
	fflush(stdout);
	execl("/proc/self/exe", argv[0], "again", A1000, A1000, A1000, "end", (char *)NULL);
	perror("execl");
	return 1;
}
