/* Manual cost centres: a scoped region inside a function, explicit
 * enter/leave around a loop, nested and recursive regions, and
 * ccprof_dump() during the run. */
#include <stdio.h>
#include <sys/stat.h>

#include "ccprof.h"

static volatile unsigned long sink;

__attribute__((noinline)) void step(int i)
{
	CCPROF_SCOPE("step/body");
	sink += (unsigned long)i;
}

__attribute__((noinline)) void nest(int n)
{
	ccprof_cc_t r = ccprof_cc("nest-region");

	ccprof_enter(r);
	if (n > 0)
		nest(n - 1);
	ccprof_leave(r);
}

int main(int argc, char **argv)
{
	ccprof_cc_t loop = ccprof_cc("main loop");
	struct stat st;
	int i;

	ccprof_enter(loop);
	for (i = 0; i < 100; i++)
		step(i);
	ccprof_leave(loop);
	nest(3);
	if (argc > 1) {
		printf("dump %d\n", ccprof_dump());
		printf("exists %d\n", stat(argv[1], &st) == 0 && st.st_size > 0);
	}
	return 0;
}
