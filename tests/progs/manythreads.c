/* Many short threads, one after another: what an ended thread keeps
 * (machine.c, rt_release_lookups).  With "late", each thread also runs
 * instrumented code after the runtime has seen it end (a thread-specific
 * key created after the runtime's, whose destructor runs after its).
 * Prints the resident memory each thread added and the calls the profile
 * must show.  Usage: manythreads [N [late]] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long nleaf, nmid, nlate, nbody;
static pthread_key_t late_key;
static pthread_once_t late_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int with_late;

__attribute__((noinline)) void leaf(void) { nleaf++; }
__attribute__((noinline)) void mid(void) { nmid++; leaf(); leaf(); }
__attribute__((noinline)) void late(void) { nlate++; mid(); }

static void late_destructor(void *v)
{
	(void)v;
	late();
}

static void make_late_key(void)
{
	pthread_key_create(&late_key, late_destructor);
}

__attribute__((noinline)) void *body(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	nbody++;
	for (int i = 0; i < 10; i++)
		mid();
	pthread_mutex_unlock(&lock);
	if (!with_late)
		return NULL;
	/* After the first call: the runtime's key exists, so this one's
	 * destructor runs after the runtime's. */
	pthread_once(&late_once, make_late_key);
	pthread_setspecific(late_key, &late_key);
	return NULL;
}

static long resident_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "VmRSS:", 6) == 0)
			kb = atol(line + 6);
	fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	long before;

	with_late = argc > 2 && strcmp(argv[2], "late") == 0;
	before = resident_kb();

	for (int i = 0; i < n; i++) {
		pthread_t t;

		pthread_create(&t, NULL, body, NULL);
		pthread_join(t, NULL);
	}
	printf("resident per thread %.1f KB\n", (double)(resident_kb() - before) / n);
	printf("calls body %lu\ncalls mid %lu\ncalls leaf %lu\ncalls late %lu\n", nbody, nmid,
	       nleaf, nlate);
	return 0;
}
