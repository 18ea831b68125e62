/*
 * helper_thread.c - a thread that sleeps for good, started as the library
 * loads: linked with dummy_hooks.c into floor_thread.so, it measures what
 * a profiler's helper thread costs by merely existing.  Once a process
 * has a second thread, glibc locks a stdio stream at every call that
 * writes to it, which it skips in a single-threaded process: objdump -d,
 * which prints through stdio, took 7 % longer with empty hooks and this
 * thread than with the empty hooks alone, and no longer with stdout
 * locked by its caller (docs/performance.md, session 44).  ccprof's
 * sampler was such a thread until session 45, and is one still with
 * CCPROF_OPTIONS=helper=pthread; by default it is a thread glibc does
 * not count (src/runtime/rawthread.c), which costs this nothing.
 */
#include <pthread.h>
#include <unistd.h>

__attribute__((no_instrument_function)) static void *sleep_for_good(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

__attribute__((constructor, no_instrument_function)) static void start_helper(void)
{
	pthread_t helper;

	if (pthread_create(&helper, NULL, sleep_for_good, NULL) == 0)
		pthread_detach(helper);
}
