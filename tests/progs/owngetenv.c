/*
 * owngetenv.c - a program that defines getenv and strtod itself,
 * instrumented, as bash defines getenv (Note [A hook while the runtime
 * starts] in src/runtime/init.c).  The runtime reads CCPROF_OPTIONS as it
 * starts: through the program's getenv, whose hook started the runtime
 * again, inside its own pthread_once, and the program hung before main.
 * strtod stands for any libc function the runtime calls while it starts
 * (for interval=2.5ms) that a program may define.
 *
 * Prints "calls getenv N" for every call of its getenv (the runtime's
 * too, were it to make any) and what it read.
 */
#include <stdio.h>
#include <string.h>

extern char **environ;

static int getenv_calls;

char *getenv(const char *name)
{
	size_t n = strlen(name);

	getenv_calls++;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

/* Digits with at most one point: all the runtime passes it. */
double strtod(const char *s, char **end)
{
	double x = 0, scale = 1;
	int point = 0;

	for (; (*s >= '0' && *s <= '9') || (*s == '.' && !point); s++) {
		if (*s == '.')
			point = 1;
		else if (point)
			x += (*s - '0') * (scale /= 10);
		else
			x = x * 10 + (*s - '0');
	}
	if (end)
		*end = (char *)s;
	return x;
}

int main(void)
{
	const char *home = getenv("OWNGETENV_WORD"), *none = getenv("OWNGETENV_NONE");

	printf("word %s, none %s, %.2f\n", home ? home : "-", none ? none : "-", strtod("2.5", NULL));
	printf("calls getenv %d\ncalls main 1\n", getenv_calls);
	return 0;
}
