/* ctormain.c - linked with tests/progs/ctorlib.c: prints the errno its
 * constructor kept across its first instrumented call ("errno 77"). */
#include <stdio.h>

extern int ctorlib_errno;

int main(void)
{
	printf("errno %d\n", ctorlib_errno);
	return 0;
}
