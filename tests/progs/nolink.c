/* A library preloaded after the runtime whose link(2) fails with EPERM,
 * as on a file system without hard links (vfat), and says so on stderr
 * ("link refused"): the runtime must then put its profile in place by
 * rename, as before (Note [One OUT per run] in src/runtime/dump.c). */
#include <errno.h>
#include <unistd.h>

int link(const char *from, const char *to)
{
	static const char line[] = "link refused\n";
	ssize_t unused = write(2, line, sizeof line - 1);

	(void)unused;
	(void)from;
	(void)to;
	errno = EPERM;
	return -1;
}
