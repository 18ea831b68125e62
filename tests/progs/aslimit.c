/*
 * aslimit.c - a program under an address-space limit (`ulimit -v`) too
 * tight for the profiler's state of a thread (Note [No memory for a
 * thread's state] in src/runtime/threads.c).  main, not instrumented,
 * sets RLIMIT_AS to what the process maps now and 1 MB more, then calls
 * work() a million times and prints "calls work 1000000".  Exit status 0.
 *   aslimit size   prints what the process maps, "vmsize BYTES", only
 *   aslimit work   sets no limit of its own (its caller did), and works
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

static volatile unsigned long sink;

__attribute__((noinline)) void work(unsigned long i)
{
	sink += i;
}

/* VmSize of /proc/self/status, in bytes, or 0. */
__attribute__((no_instrument_function)) static unsigned long mapped_now(void)
{
	char line[256];
	unsigned long kb = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "VmSize: %lu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
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
