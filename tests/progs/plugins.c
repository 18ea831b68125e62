/* Two plugins of one file name from two directories (argv[1], argv[2]),
 * each with its own `plug` at the same offset (tests/progs/plug.c built
 * twice): plug of the first is called 20 times, of the second 30.  The
 * report must tell the two apart (Note [Names that collide] in
 * src/output/names.c).  Prints the calls it made. */
#include <dlfcn.h>
#include <stdio.h>

static int call_plug(const char *path, int times)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	int (*plug)(int), s = 0;

	if (h == NULL) {
		printf("dlopen: %s\n", dlerror());
		return -1;
	}
	plug = (int (*)(int))dlsym(h, "plug");
	for (int i = 0; i < times; i++)
		s += plug(i);
	return s;
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
