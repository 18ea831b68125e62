/*
 * dropuser.c - a process that gives up root before it ends, as a
 * server's workers do (nginx's run as nobody): its profile cannot be
 * created where root could, and the runtime's warning says why.
 *
 *   dropuser UID         work(), then setuid(UID), then exit 0
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int work(int x)
{
	return x * 2;
}

int main(int argc, char **argv)
{
	uid_t uid = (uid_t)(argc > 1 ? atol(argv[1]) : 65534);

	if (work(21) != 42 || setuid(uid) != 0) {
		perror("setuid");
		return 1;
	}
	printf("uid %ld\n", (long)getuid());
	return 0;
}
