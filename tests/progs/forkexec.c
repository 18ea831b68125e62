/* A parent that forks a child which execs a program (itself again): the
 * image must not write over the parent's profile, nor the parent over
 * the image's (Note [Exec in a forked child] in src/runtime/exec.c).
 * argv[1] picks the exec: execl (list form, environ), execvp (through
 * PATH), execve (an environment of its own, without CCPROF_OPTIONS),
 * spawn: posix_spawn, no fork, or vfork: a vfork child that calls execl
 * and nothing instrumented (it runs in the parent's memory), or
 * vforkmany: 100 vfork children that execl /bin/true with 100 arguments
 * each, after which the parent's address space must not have grown (an
 * argument array mapped in a vfork child stays in the parent).
 * Calls: parent_work 3 before the fork and 2 after, child_work once in
 * the child before its exec (not with spawn or vfork), image_work 4 in
 * the image. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) void parent_work(void) { }
__attribute__((noinline)) void child_work(void) { }
__attribute__((noinline)) void image_work(void) { }

static void exec_image(const char *how, const char *self)
{
	char *argv[] = {(char *)self, "image", NULL};

	if (strcmp(how, "execvp") == 0) {
		execvp(self, argv);
	} else if (strcmp(how, "execve") == 0) {
		char preload[4200];
		char *env[] = {preload, NULL};

		snprintf(preload, sizeof preload, "LD_PRELOAD=%s",
			 getenv("LD_PRELOAD") ? getenv("LD_PRELOAD") : "");
		execve("/proc/self/exe", argv, env);
	} else {
		execl("/proc/self/exe", self, "image", (char *)NULL);
	}
	perror("exec");
	_exit(127);
}

/* VmSize of this process in kB, from /proc/self/status. */
static long vm_size_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmSize: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

#define A10 "a", "a", "a", "a", "a", "a", "a", "a", "a", "a"

static void vfork_many(void)
{
	long before = vm_size_kb(), after;
	int status, bad = 0;

	for (int i = 0; i < 100; i++) {
		pid_t pid = vfork();

		if (pid == 0) {
			execl("/bin/true", "true", A10, A10, A10, A10, A10, A10, A10, A10, A10, A10,
			      (char *)NULL);
			_exit(127);
		}
		waitpid(pid, &status, 0);
		bad += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	after = vm_size_kb();
	/* 100 leaked pages would be 400 kB; stdio's buffers are far less. */
	printf("vforkmany: %d failed, address space grew: %s\n", bad,
	       after - before < 128 ? "no" : "yes");
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc > 1 && strcmp(argv[1], "image") == 0) {
		for (int i = 0; i < 4; i++)
			image_work();
		printf("image done\n");
		return 0;
	}
	for (int i = 0; i < 3; i++)
		parent_work();
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "vforkmany") == 0) {
		vfork_many();
		for (int i = 0; i < 2; i++)
			parent_work();
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "spawn") == 0) {
		extern char **environ;
		char *args[] = {argv[0], "image", NULL};
		int rc = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ);

		if (rc != 0) {
			fprintf(stderr, "posix_spawn: %s\n", strerror(rc));
			return 1;
		}
	} else if (argc > 1 && strcmp(argv[1], "vfork") == 0) {
		pid = vfork();
		if (pid == 0) {
			execl("/proc/self/exe", argv[0], "image", (char *)NULL);
			_exit(127);
		}
	} else {
		pid = fork();
	}
	if (pid == 0) {
		child_work();
		exec_image(argc > 1 ? argv[1] : "execl", argv[0]);
	}
	waitpid(pid, &status, 0);
	for (int i = 0; i < 2; i++)
		parent_work();
	printf("parent done, child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
