/* Two plugins of one file name from two directories (argv[1], argv[2]),
 * each with its own `plug` at the same offset (tests/progs/plug.c built
 * twice): plug of the first is called 20 times, of the second 30.  The
 * report must tell the two apart (Note [Names that collide] in
 * src/output/names.c).  Prints the calls it made. */
#include <dlfcn.h>
#include <stdio.h>

static volatile unsigned sink;

static int call_plug(const char *path, int times)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	int (*plug)(int);

	if (h == NULL) {
		printf("dlopen: %s\n", dlerror());
		return -1;
	}
	plug = (int (*)(int))dlsym(h, "plug");
	/* Microseconds of work a call, so that every stack has time in the
	 * folded export (tests/views.py), the runtime's own aside. */
	for (int i = 0; i < times; i++)
		sink += (unsigned)plug(20000 + i);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	if (call_plug(argv[1], 20) < 0 || call_plug(argv[2], 30) < 0)
		return 1;
	printf("calls plug 20 30\n");
	return 0;
}
