/* Threads started and ended 8 at a time while another thread asks for
 * the profile with a signal again and again (dump_signal): a write in
 * the handler that cannot have the registry lock walks the registry
 * without it, while states of ended threads are reborn for new ones
 * (Note [States reborn] in src/runtime/threads.c; helper-146's program
 * showed walks that found 5 of 2,237 threads, or some twice).  The
 * asking thread sends the signal every 100 us while the threads run,
 * ROUNDS rounds of 8, and after every third copies the profile as it is then (each write renames its
 * file into place) to COPIES/dump.<i>: every copy must hold each thread
 * once, and as many threads as the copies before it, or nearly (the
 * registry only grows; writes in two threads' handlers may end out of
 * order).
 *
 *   sigchurn PROFILE COPIES ROUNDS SIGNAL   prints "calls F N" */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;
static unsigned long nleaf, nmid, nbody;
static const char *profile, *copies;
static int rounds, sig;

__attribute__((noinline)) void leaf(void) { __atomic_add_fetch(&nleaf, 1, __ATOMIC_RELAXED); }
__attribute__((noinline)) void mid(void) { __atomic_add_fetch(&nmid, 1, __ATOMIC_RELAXED); leaf(); leaf(); }

__attribute__((noinline)) void *body(void *arg)
{
	__atomic_add_fetch(&nbody, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 5; i++)
		mid();
	return arg;
}

__attribute__((no_instrument_function)) static void copy(const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(profile, O_RDONLY), out;

	if (in < 0) /* no write has ended yet (a slow start on a busy machine) */
		return;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	while (out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	close(in);
	if (out >= 0)
		close(out);
}

/* Not instrumented: it makes no state of its own. */
__attribute__((no_instrument_function)) static void *asker(void *arg)
{
	struct timespec pause = { 0, 100000 };
	char to[4096];

	for (int i = 0; !stop; i++) {
		kill(getpid(), sig);
		nanosleep(&pause, NULL);
		if (i % 3 == 2) {
			snprintf(to, sizeof to, "%s/dump.%d", copies, i / 3);
			copy(to);
		}
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[8], a;

	if (argc < 5)
		return 2;
	profile = argv[1];
	copies = argv[2];
	rounds = atoi(argv[3]);
	sig = atoi(argv[4]);
	pthread_create(&a, NULL, asker, NULL);
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < 8; i++)
			pthread_create(&t[i], NULL, body, NULL);
		for (int i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
	}
	stop = 1;
	pthread_join(a, NULL);
	printf("calls body %lu\ncalls mid %lu\ncalls leaf %lu\n", nbody, nmid, nleaf);
	return 0;
}
