/* A plugin loop whose plugin the loader puts somewhere else each time:
 * dlopen, call, dlclose, then a mapping kept where the plugin was, so
 * that the next load lands elsewhere.  Each load at a new place moves the
 * plugin's functions' keys in the runtime's table of cost centres
 * (rt_cc_rebase_module in src/runtime/cctable.c), which left a written
 * index behind every time (16 KB a reload; helper-137).  Prints the
 * resident memory each reload added and the calls the profile must show.
 * Usage: dlmove PLUGIN.so [N [rss]]: the resident memory with "rss". */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The resident memory, from /proc/self/statm (in pages). */
static long resident_kb(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = -1;

	if (f == NULL)
		return -1;
	if (fscanf(f, "%*d %ld", &pages) != 1)
		pages = -1;
	fclose(f);
	return pages < 0 ? -1 : pages * (sysconf(_SC_PAGESIZE) / 1024);
}

/* One load, call and close; 1 if it loaded somewhere else than `last`. */
static int cycle(const char *path, void **last, int *sum, int *calls)
{
	void *h = dlopen(path, RTLD_NOW);
	int (*entry)(int);
	int moved;

	if (h == NULL) {
		printf("dlopen: %s\n", dlerror());
		exit(1);
	}
	entry = (int (*)(int))dlsym(h, "plugin_entry");
	moved = (void *)entry != *last;
	*last = (void *)entry;
	*sum += entry(*calls);
	(*calls)++;
	dlclose(h);
	/* Where the plugin was, so that the next load goes elsewhere. */
	if (mmap((void *)((unsigned long)entry & ~4095ul), 12288, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) == MAP_FAILED)
		mmap(NULL, 12288, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return moved;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 2000, sum = 0, calls = 0, moved = 0;
	void *last = NULL;
	long before;

	if (argc < 2)
		return 2;
	for (int i = 0; i < 20; i++) /* the runtime's tables settle first */
		moved += cycle(argv[1], &last, &sum, &calls);
	before = resident_kb();
	for (int i = 0; i < n; i++)
		moved += cycle(argv[1], &last, &sum, &calls);
	printf("moved %d of %d\n", moved, calls);
	if (argc > 3 && strcmp(argv[3], "rss") == 0)
		printf("resident per reload %.2f KB\n", (double)(resident_kb() - before) / n);
	printf("calls plugin_entry %d\n", calls);
	printf("sum %d\n", sum);
	return 0;
}
