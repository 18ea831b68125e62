/* A thread whose cancellation request is pending reaches no cancellation
 * point of its own: bare, the request never acts.  The runtime's work on
 * its behalf (the end of the thread, the write before an exec, the
 * sampler's stop for unshare, ccprof_dump, the write at exit) reaches
 * cancellation points (open, write, pthread_join): the request must not
 * act there, holding a lock of the runtime's.
 *
 *   latecancel return   the thread returns (its end: threads.c)
 *   latecancel exec     it calls execl (exec.c, the sampler's stop)
 *   latecancel unshare  it calls unshare(0) (namespaces.c)
 *   latecancel dump     it calls ccprof_dump (dump.c)
 *   latecancel exit     it calls exit (the write at exit)
 *
 * The thread prints nothing itself (printf is a cancellation point). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccprof.h"

static volatile int go, result = -1;
static const char *mode;

__attribute__((noinline)) int work(void) { return 1; }

static void *body(void *arg)
{
	work();
	while (!go)
		; /* no cancellation point */
	if (strcmp(mode, "exec") == 0) {
		execl("/bin/echo", "echo", "exec happened", (char *)0);
		result = 127;
	} else if (strcmp(mode, "unshare") == 0) {
		result = unshare(0);
	} else if (strcmp(mode, "dump") == 0) {
		ccprof_dump();
		result = 0;
	} else if (strcmp(mode, "exit") == 0) {
		exit(3);
	} else {
		result = work();
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	void *ret;

	mode = argc > 1 ? argv[1] : "return";
	work();
	pthread_create(&t, NULL, body, NULL);
	pthread_cancel(t); /* pending: body never reaches a cancellation point */
	go = 1;
	pthread_join(t, &ret);
	printf("%s: cancelled %d, result %d\n", mode, ret == PTHREAD_CANCELED, result);
	work();
	return 0;
}
