/*
 * runtime/execsys.c against glibc: each case runs glibc's execvpe and
 * rt_sys_execvpe, each in a forked child, and prints "same CASE" when
 * both children print the same and end the same, or both outcomes.
 * Built with src/runtime/execsys.c and, where the compiler has it,
 * -fsanitize=address.  Run in a directory the test prepared:
 *   script         a shell script without an interpreter line, which
 *                  prints "cwd" and its arguments (empty PATH entries)
 *   bin/script     the same, printing "bin"
 *   bin/denied     a file that may not be run
 *   denied/script  likewise
 *   prog/script    a link to echo
 * Run where /bin/sh cannot be run (robust.py mounts an empty file on it),
 * the scripts fail, and glibc goes on along PATH.
 * argv[1], if given, names the only case to run; "cases N" ends the
 * output.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int rt_sys_execvpe(const char *file, char *const argv[], char *const envp[]);

extern char **environ;

typedef int (*execvpe_fn)(const char *, char *const[], char *const[]);

struct exec_case {
	const char *name;
	const char *file;
	const char *path; /* PATH for it, NULL: unset; "long", "longer": 100 KB (below) */
	int no_args;      /* argv = { NULL } */
	int small_stack;  /* the exec from a thread with a 64 KB stack */
};

static const struct exec_case cases[] = {
	{ "script", "script", "bin", 0, 0 },
	{ "script without arguments", "script", "bin", 1, 0 },
	{ "missing", "nowhere", "bin:/nonexistent", 0, 0 },
	{ "denied", "denied", "bin", 0, 0 },
	{ "denied, then found", "script", "denied:bin", 0, 0 },
	{ "script, then a program", "script", "bin:prog", 0, 0 },
	{ "empty name", "", "bin", 0, 0 },
	{ "with a slash", "bin/script", "/nonexistent", 0, 0 },
	{ "empty PATH entry", "script", "/nonexistent::/nonexistent", 0, 0 },
	{ "empty PATH", "script", "", 0, 0 },
	{ "PATH unset", "true", NULL, 0, 0 },
	{ "long name", "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"
		       "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"
		       "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn",
	  "bin", 0, 0 },
	{ "entry longer than PATH_MAX", "script", "longer", 0, 0 },
	{ "long PATH, small stack", "script", "long", 0, 1 },
};

static const struct exec_case *current;
static execvpe_fn current_fn;

/* Run the case's exec; print errno if it returns. */
static void *exec_it(void *arg)
{
	char *args[] = { (char *)current->file, "one", "two", NULL };
	char *none[] = { NULL };

	current_fn(current->file, current->no_args ? none : args, environ);
	printf("errno %s\n", strerrorname_np(errno));
	fflush(stdout);
	return arg;
}

/* /nonexistent entries for 100 KB (an environment string may have 128),
 * then bin; longer: with an entry PATH_MAX long before bin, which glibc
 * skips, and takes the current directory instead. */
static char *long_path(int longer)
{
	size_t n = 100000, i;
	char *p = malloc(n + PATH_MAX + 16);

	for (i = 0; i + 13 < n; i += 13)
		memcpy(p + i, "/nonexistent:", 13);
	if (longer) {
		memset(p + i, 'x', PATH_MAX);
		i += PATH_MAX;
		p[i++] = ':';
	}
	strcpy(p + i, "bin");
	return p;
}

/* The child's output and how it ended. */
static char *outcome(const struct exec_case *c, execvpe_fn fn)
{
	static char buf[2][4096];
	static int which;
	char *out = buf[which ^= 1];
	size_t len = 0;
	ssize_t n;
	int fd[2], status;
	pid_t pid;

	current = c;
	current_fn = fn;
	if (pipe(fd) != 0)
		return "pipe failed";
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		close(fd[0]);
		if (c->path == NULL)
			unsetenv("PATH");
		else if (strncmp(c->path, "long", 4) == 0)
			setenv("PATH", long_path(strcmp(c->path, "longer") == 0), 1);
		else
			setenv("PATH", c->path, 1);
		if (c->small_stack) {
			pthread_attr_t a;
			pthread_t t;

			pthread_attr_init(&a);
			pthread_attr_setstacksize(&a, 64 * 1024);
			pthread_create(&t, &a, exec_it, NULL);
			pthread_join(t, NULL);
		} else {
			exec_it(NULL);
		}
		_exit(127);
	}
	close(fd[1]);
	while (len < sizeof buf[0] - 64 && (n = read(fd[0], out + len, sizeof buf[0] - 64 - len)) > 0)
		len += (size_t)n;
	close(fd[0]);
	for (n = 0; n < (ssize_t)len; n++) /* one line */
		if (out[n] == '\n')
			out[n] = '|';
	waitpid(pid, &status, 0);
	snprintf(out + len, 64, "[%s %d]", WIFEXITED(status) ? "exit" : "signal",
		 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return out;
}

int main(int argc, char **argv)
{
	size_t i, n = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *theirs, *ours;

		if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
			continue;
		n++;
		theirs = outcome(&cases[i], execvpe);
		ours = outcome(&cases[i], rt_sys_execvpe);
		if (strcmp(theirs, ours) == 0)
			printf("same %s\n", cases[i].name);
		else
			printf("differs %s: glibc %.150s; ours %.150s\n", cases[i].name, theirs, ours);
	}
	printf("cases %zu\n", n);
	return 0;
}
