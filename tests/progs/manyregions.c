/* Many named regions (Note [Region names] in src/runtime/manual.c):
 * argv[1] names, "region-I", region I entered I % 3 + 1 times; each name
 * asked for twice must give the same handle.  Then a name longer than the
 * runtime's pool chunks, entered 2 times.  Prints "same handles 1" and
 * "calls NAME N" for some of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccprof.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000, same = 1;
	static char longname[100000];
	char name[64];

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "region-%d", i);
		ccprof_cc_t c = ccprof_cc(name);
		for (int k = 0; k <= i % 3; k++) {
			ccprof_enter(c);
			ccprof_leave(c);
		}
	}
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "region-%d", i);
		ccprof_cc_t a = ccprof_cc(name), b = ccprof_cc(name);
		same &= a == b && a != NULL;
	}
	memset(longname, 'x', sizeof longname - 1);
	ccprof_cc_t l = ccprof_cc(longname);
	same &= l != NULL && l == ccprof_cc(longname) && l != ccprof_cc("region-0");
	for (int k = 0; k < 2; k++) {
		ccprof_enter(l);
		ccprof_leave(l);
	}
	printf("same handles %d\n", same);
	return 0;
}
