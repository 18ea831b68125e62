/*
 * peakrss.c - run a command and say how much memory it held at its
 * peak, for the tests that bound a command's memory (tests/views.py
 * many_threads).
 *
 * Usage: peakrss COMMAND ARG...  The command's standard streams are
 * peakrss's; when it has ended, peakrss writes "peakrss: KB" on standard
 * error, the command's peak resident set in KB (its ru_maxrss by wait4),
 * and exits with the command's status (128 + the signal if killed).
 *
 * Why not the test's own wait4 of the command: Linux carries over into
 * ru_maxrss, at exec, the peak of the memory the process had before it,
 * a copy of its parent's; a command started by the Python test would
 * report at least the test's own peak.  Started from this small program
 * it reports its own.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: peakrss COMMAND ARG...\n");
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("peakrss: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("peakrss: exec");
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) != pid) {
		perror("peakrss: wait4");
		return 2;
	}
	fprintf(stderr, "peakrss: %ld\n", ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
