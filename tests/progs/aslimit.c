/*
 * aslimit.c - a program under an address-space limit (`ulimit -v`) too
 * tight for the profiler's state of a thread (Note [No memory for a
 * thread's state] in src/runtime/threads.c).  main, not instrumented,
 * sets RLIMIT_AS to what the process maps now and 1 MB more, then calls
 * work() a million times and prints "calls work 1000000".  Exit status 0.
 *   aslimit size   prints what the process maps, "vmsize BYTES", only
 *   aslimit work   sets no limit of its own (its caller did), and works
 *   aslimit fill   works, then sets RLIMIT_AS to what the process maps
 *                  and 64 MB more, fills it with malloc (1 MB blocks,
 *                  then 64 bytes) until malloc fails, prints "calls work
 *                  1000000" and "filled N blocks" and exits 2, as a
 *                  program out of memory does (gawk, helper-134)
 *   aslimit fill abort   the same, then abort() (xmalloc's way)
 *   aslimit errno KB     sets RLIMIT_AS to what the process maps and KB
 *                  more, then makes its first call with errno 0 and
 *                  prints "errno N", what errno is after it (a hook must
 *                  leave it alone even when its mappings fail)
 *   aslimit threaderrno KB   works in main first; then the same in a
 *                  second thread (whose alternate stack is lent at its
 *                  first call)
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "vmsize.h"

static volatile unsigned long sink;

__attribute__((noinline)) void work(unsigned long i)
{
	sink += i;
}

static void *kept;
static unsigned long room;
static int after;

/* RLIMIT_AS: what the process maps now and `room` bytes more. */
__attribute__((no_instrument_function)) static int limit_to_room(void);

/* errno after the calling thread's first call, errno 0 before it. */
__attribute__((no_instrument_function)) static void *first_call_errno(void *arg)
{
	if (limit_to_room() != 0)
		return arg;
	errno = 0;
	work(1);
	after = errno;
	printf("errno %d\n", after);
	return arg;
}

/* malloc blocks of `size` until it fails; how many it gave. */
__attribute__((noinline)) unsigned long fill(size_t size)
{
	unsigned long n = 0;
	void **p;

	while ((p = malloc(size)) != NULL) {
		*p = kept;
		kept = p;
		n++;
	}
	return n;
}

__attribute__((no_instrument_function)) static int limit_to_room(void)
{
	struct rlimit lim;

	lim.rlim_cur = lim.rlim_max = mapped_now() + room;
	if (setrlimit(RLIMIT_AS, &lim) != 0) {
		perror("aslimit: setrlimit");
		return 1;
	}
	return 0;
}

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	unsigned long now = mapped_now(), n = 1000000;
	struct rlimit lim;

	setvbuf(stdout, NULL, _IONBF, 0); /* no buffer to map later */
	if (now == 0) {
		fprintf(stderr, "aslimit: no VmSize in /proc/self/status\n");
		return 1;
	}
	if (strcmp(mode, "size") == 0) {
		printf("vmsize %lu\n", now);
		return 0;
	}
	if ((strcmp(mode, "errno") == 0 || strcmp(mode, "threaderrno") == 0) && argc > 2) {
		pthread_attr_t attr;
		pthread_t t;

		room = strtoul(argv[2], NULL, 10) * 1024;
		if (mode[0] == 'e') {
			first_call_errno(NULL);
			return 0;
		}
		work(0); /* main's state, the kept room and the sampler's stack first */
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 1ul << 20);
		if (pthread_create(&t, &attr, first_call_errno, NULL) != 0) {
			perror("aslimit: pthread_create");
			return 1;
		}
		pthread_join(t, NULL);
		return 0;
	}
	if (strcmp(mode, "fill") == 0) {
		unsigned long blocks;

		for (unsigned long i = 0; i < n; i++)
			work(i);
		printf("calls work %lu\n", n);
		lim.rlim_cur = lim.rlim_max = mapped_now() + (64ul << 20);
		if (setrlimit(RLIMIT_AS, &lim) != 0) {
			perror("aslimit: setrlimit");
			return 1;
		}
		blocks = fill(1ul << 20);
		blocks += fill(64);
		printf("filled %lu blocks\n", blocks);
		if (argc > 2 && strcmp(argv[2], "abort") == 0)
			abort();
		return 2;
	}
	lim.rlim_cur = lim.rlim_max = now + (1ul << 20);
	if (strcmp(mode, "work") != 0 && setrlimit(RLIMIT_AS, &lim) != 0) {
		perror("aslimit: setrlimit");
		return 1;
	}
	for (unsigned long i = 0; i < n; i++)
		work(i);
	printf("calls work %lu\n", n);
	return 0;
}
