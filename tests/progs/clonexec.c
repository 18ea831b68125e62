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
 * src/runtime/cctable.c).  With "heap" for LIB, a thread allocates and
 * frees over and over, and each child allocates 64 blocks and ends by
 * _exit, with no exec: under heap=1 the block table's stripe lock, which
 * that thread held now and then, left a child spinning for ever
 * (spin_lock in src/runtime/heap.c).  With "seal" after "heap", or for
 * LIB, each child first puts itself under a seccomp filter that kills
 * the process at kcmp, a call the program never makes: the runtime asked
 * it in such a child, which installed its filter unseen, at a block
 * table's lock and at the exec, and the child died by SIGSYS (helper-194;
 * Note [Sandboxed] in src/runtime/sandbox.c). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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

static int seal;

/* A filter that kills the process at kcmp, and lets every other call be. */
static void seal_self(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_kcmp, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof code / sizeof *code, code};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0L, 0L) != 0)
		_exit(3);
}

static int alloc_exit(void *arg)
{
	(void)arg;
	if (seal)
		seal_self();
	for (int i = 0; i < 64; i++)
		sink += (unsigned long)malloc(16 + i);
	_exit(0);
}

static int exec_true(void *arg)
{
	if (seal)
		seal_self();
	else if (arg != NULL)
		child_first();
	execl("/bin/true", "true", (char *)NULL);
	_exit(127);
}

static volatile int stop;

static void *churn(void *arg)
{
	(void)arg;
	while (!stop)
		free(malloc(48));
	return NULL;
}

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
	int heap = argc > 2 && strcmp(argv[2], "heap") == 0;

	seal = argc > 2 && (strcmp(argv[2], "seal") == 0 ||
			    (heap && argc > 3 && strcmp(argv[3], "seal") == 0));
	if (argc > 2 && !(seal && !heap) && pthread_create(&loader, NULL, heap ? churn : load_unload, argv[2]) != 0)
		return 2;

	for (int i = 0; i < n; i++) {
		char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		pid_t pid;

		work();
		if (stack == MAP_FAILED)
			return 2;
		pid = clone(heap ? alloc_exit : exec_true, stack + size, SIGCHLD,
			    argc > 2 ? argv[2] : NULL);
		if (pid < 0) {
			perror("clone");
			return 2;
		}
		if (!reaped(pid) && stuck++ < 3)
			fprintf(stderr, "child %d stuck, or ended otherwise than by exit 0\n", i);
		munmap(stack, size);
	}
	stop = 1;
	if (argc > 2 && !(seal && !heap))
		pthread_join(loader, NULL);
	printf("%d children, %d stuck\n", n, stuck);
	return stuck != 0;
}
