/*
 * recordfault.c - preloaded into `ccprof record` itself (and so into the
 * program too, where it does nothing): in a process whose name is
 * "ccprof", a thread that faults 0.3 s after the start (a NULL write),
 * as a bug in record would.  With SIGSEGV ignored by record's parent,
 * record must still die by it at once, as it did before it caught
 * SIGSEGV to pass on (Note [Signals while the program runs] in
 * src/cli/cmd_record.c); it spun at the fault for the whole run.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void *fault_soon(void *arg)
{
	struct timespec ts = {0, 300000000};
	volatile int *nowhere = arg;

	nanosleep(&ts, NULL);
	*nowhere = 1;
	return NULL;
}

__attribute__((constructor)) static void start(void)
{
	char comm[32] = {0};
	FILE *f = fopen("/proc/self/comm", "r");
	pthread_t t;

	if (f == NULL)
		return;
	if (fgets(comm, sizeof comm, f) == NULL)
		comm[0] = '\0';
	fclose(f);
	if (strncmp(comm, "ccprof\n", 7) == 0)
		pthread_create(&t, NULL, fault_soon, NULL);
}
