/*
 * lateload.c - a program whose code calls the runtime only once it has
 * loaded a library that does (Note [A helper for code that calls the
 * hooks] in src/runtime/instrumented.c).  It prints how many threads the
 * process has at start (from a constructor, which runs after the
 * preloaded runtime's), before it loads the library, and after its first
 * call into it, which spins for 200 ms of CPU time:
 *
 *     lateload LIB    "threads at start N", "threads before the call N",
 *                     "threads after the call N"
 *     lateload LIB filter
 *                     the same, with a seccomp filter that allows every
 *                     call installed before the library is loaded: the
 *                     helper, made by the thread of that first call,
 *                     would be under it, and is not made (Note [A helper
 *                     for code that calls the hooks])
 *
 * Built without -finstrument-functions, nothing in it calls the hooks:
 * the runtime's sampling helper is made at that first call, not at
 * start-up.  Built with it, main's own hooks call the runtime, and the
 * helper is there from the start.  Built with -DLATELOAD_LIB
 * -finstrument-functions -shared: the library, late_spin.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "cpuspin.h"

#ifdef LATELOAD_LIB

__attribute__((noinline)) void late_spin(long ms)
{
	spin_cpu(ms * 1000000L);
}

#else

static __attribute__((no_instrument_function)) int threads(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	if (d == NULL)
		return -1;
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n - 2; /* . and .. */
}

/* A filter that allows everything: the process is filtered, nothing is
 * refused. */
static __attribute__((no_instrument_function)) int allow_all(void)
{
	struct sock_filter code[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
	struct sock_fprog prog = { sizeof code / sizeof *code, code };

	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	       prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) == 0;
}

__attribute__((constructor, no_instrument_function)) static void at_start(void)
{
	printf("threads at start %d\n", threads());
}

int main(int argc, char **argv)
{
	void (*late_spin)(long);
	void *h;

	if (argc < 2)
		return 2;
	if (argc > 2 && strcmp(argv[2], "filter") == 0 && !allow_all()) {
		perror("seccomp");
		return 1;
	}
	printf("threads before the call %d\n", threads());
	if ((h = dlopen(argv[1], RTLD_NOW)) == NULL) {
		printf("dlopen: %s\n", dlerror());
		return 1;
	}
	*(void **)&late_spin = dlsym(h, "late_spin");
	late_spin(200);
	printf("threads after the call %d\n", threads());
	return 0;
}

#endif
