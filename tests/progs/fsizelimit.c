/* A program that lowers its file size limit (`ulimit -f`, as a shell
 * script may) and exits normally: the profile written at its exit must
 * not raise SIGXFSZ on it (Note [File size limit] in dump.c).  "0": no
 * file may grow; "1m": a megabyte, which the profile fits in; "grow": no
 * file may grow, and the program writes one, dying by SIGXFSZ as it
 * would bare. */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

static volatile unsigned long sink;

__attribute__((noinline)) void work(void) { sink++; }

int main(int argc, char **argv)
{
	struct rlimit r = { 0, RLIM_INFINITY };
	int grow = argc > 1 && strcmp(argv[1], "grow") == 0;

	if (argc > 1 && strcmp(argv[1], "1m") == 0)
		r.rlim_cur = 1 << 20;
	if (setrlimit(RLIMIT_FSIZE, &r) != 0)
		return 2;
	for (int i = 0; i < 7; i++)
		work();
	if (grow) {
		FILE *f = fopen("grown", "w");

		if (f == NULL)
			return 3;
		fputs("past the limit\n", f);
		fflush(f); /* SIGXFSZ */
		return 4;
	}
	printf("calls work 7\n"); /* flushed at exit, after the profile's write */
	return 0;
}
