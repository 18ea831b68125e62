/* One thread runs popen and pclose (argv[1] "popen") or system ("system")
 * in a loop while main reads the environment with getenv, which POSIX
 * lets run beside both (Note [Shell children] in
 * src/runtime/shellspawn.c: a copy of environ, unmapped after the call,
 * crashed the reader).  Prints
 * whether every getenv found the variable the program set, and how many
 * runs of the shell succeeded. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define RUNS 600

static volatile int stop;

__attribute__((noinline)) static int run_shell(int use_system)
{
	if (use_system)
		return system("true") == 0;
	FILE *f = popen("true", "r");
	return f != NULL && pclose(f) == 0;
}

static void *shell(void *use_system)
{
	long ok = 0;

	for (int i = 0; i < RUNS; i++)
		ok += run_shell(use_system != NULL);
	stop = 1;
	return (void *)ok;
}

int main(int argc, char **argv)
{
	int use_system = argc > 1 && strcmp(argv[1], "system") == 0;
	long reads = 0, wrong = 0;
	pthread_t t;
	void *ok;

	setenv("SHELLENV_MARK", "here", 1);
	pthread_create(&t, NULL, shell, use_system ? (void *)1 : NULL);
	while (!stop) {
		const char *v = getenv("SHELLENV_MARK"); /* walks environ up to it */

		wrong += v == NULL || strcmp(v, "here") != 0;
		reads += getenv("SHELLENV_NO_SUCH_VARIABLE") == NULL; /* walks all of it */
	}
	pthread_join(t, &ok);
	printf("%s: %ld of %d runs succeeded, getenv wrong %ld times, read: %s\n",
	       use_system ? "system" : "popen", (long)ok, RUNS, wrong, reads > 0 ? "yes" : "no");
	return 0;
}
