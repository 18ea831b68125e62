/* A program whose library's constructor runs before the runtime's and
 * takes its time: a signal record passes on meanwhile reaches a program
 * with no handler for it (Note [Passed on before a handler] in
 * src/cli/cmd_record.c).
 *
 * Built twice: with -DSLOWSTART_LIB -shared -fPIC as libslowstart.so,
 * whose constructor creates the file $SLOWSTART_MARK and then sleeps 5 s;
 * and as the program, linked with it, which calls into it and exits 0. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifdef SLOWSTART_LIB
__attribute__((constructor)) static void slow_start(void)
{
	const char *mark = getenv("SLOWSTART_MARK");
	struct timespec t = {5, 0};
	if (mark != NULL)
		close(open(mark, O_WRONLY | O_CREAT, 0644));
	nanosleep(&t, NULL);
}

int slowstart_value(void)
{
	return 1;
}
#else
int slowstart_value(void);

static int add(int s)
{
	return s + slowstart_value();
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 100; i++)
		s = add(s);
	printf("%d\n", s);
	return s == 100 ? 0 : 1;
}
#endif
