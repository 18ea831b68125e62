/* clonexec.c - N times: some work, then a child clone() makes on a stack
 * of two pages, without fork's handlers (googletest's "threadsafe" death
 * tests), which execs /bin/true.  A child still there after 5 s is
 * reported and killed, and the program exits 1.  Usage: clonexec N
 * [LIB].  Under a sampling clock the sampler holds the registry lock
 * now and then as a child is made, and the child's exec waited for that
 * lock for ever (Note [The registry in a child without fork's handlers]
 * in src/runtime/threads.c).  With LIB, a thread loads LIB, calls its
 * alpha_dep and unloads it, over and over, and each child first calls a
 * function the process never called: making its cost centre took the
 * cc lock and the dynamic linker's, which that thread held now and then
 * (Note [New cost centres in a child without fork's handlers] in
 * src/runtime/cctable.c). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void work(void)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink += i;
}

__attribute__((noinline)) static void child_first(void)
{
	sink++;
}

static int exec_true(void *arg)
{
	if (arg != NULL)
		child_first();
	execl("/bin/true", "true", (char *)NULL);
	_exit(127);
}

static volatile int stop;

static void *load_unload(void *lib)
{
	while (!stop) {
		void *h = dlopen(lib, RTLD_NOW);
		int (*f)(int) = h ? (int (*)(int))dlsym(h, "alpha_dep") : NULL;

		if (f != NULL)
			sink += (unsigned long)f(1);
		if (h != NULL)
			dlclose(h);
	}
	return NULL;
}

/* 1 if the child ended by itself within 5 s. */
static int reaped(pid_t pid)
{
	struct timespec ms = { 0, 1000000 };
	int status;

	for (int waited = 0; waited < 5000; waited++) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) && WEXITSTATUS(status) == 0;
		if (r < 0)
			return 0;
		nanosleep(&ms, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, stuck = 0;
	size_t size = 2 * 4096;
	pthread_t loader;

	if (argc > 2 && pthread_create(&loader, NULL, load_unload, argv[2]) != 0)
		return 2;

	for (int i = 0; i < n; i++) {
		char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		pid_t pid;

		work();
		if (stack == MAP_FAILED)
			return 2;
		pid = clone(exec_true, stack + size, SIGCHLD, argc > 2 ? argv[2] : NULL);
		if (pid < 0) {
			perror("clone");
			return 2;
		}
		if (!reaped(pid) && stuck++ < 3)
			fprintf(stderr, "child %d stuck\n", i);
		munmap(stack, size);
	}
	stop = 1;
	if (argc > 2)
		pthread_join(loader, NULL);
	printf("%d children, %d stuck\n", n, stuck);
	return stuck != 0;
}
