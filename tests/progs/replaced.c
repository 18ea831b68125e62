/* A program whose file is replaced while it runs (tests/robust.py,
 * replaced()).  Built twice: -DOTHER puts other functions where alpha
 * and beta are, so that names read from the new file would be wrong.
 * Calls alpha and beta, tells the test (argv[1] is created), waits until
 * argv[2] exists, then calls gamma; with argv[3] = "term", ends by SIGTERM
 * (a profile written from a signal handler), with "abort"
 * aborts in beta (the crash handler prints the cost-centre stack). */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int sink;

#ifdef OTHER
__attribute__((noinline)) int zzz_pad0(int x) { sink += x * 3; return sink; }
__attribute__((noinline)) int zzz_pad1(int x) { sink += x * 5; return sink; }
__attribute__((noinline)) int zzz_pad2(int x) { sink += x * 7; return sink; }
#endif
__attribute__((noinline)) int alpha(int x) { sink += x; return sink; }
__attribute__((noinline)) int beta(int x)
{
	if (x < 0)
		abort();
	sink += 2 * x;
	return sink;
}
__attribute__((noinline)) int gamma_(int x) { sink += 3 * x; return sink; }

int main(int argc, char **argv)
{
	int i;

	if (argc < 3)
		return 2;
	for (i = 0; i < 3; i++)
		alpha(i);
	beta(1);
	close(open(argv[1], O_WRONLY | O_CREAT, 0644));
	while (access(argv[2], F_OK) != 0)
		usleep(2000);
	gamma_(1);
	printf("calls alpha 3\ncalls beta 1\ncalls gamma_ 1\n");
	fflush(stdout);
	if (argc > 3 && strcmp(argv[3], "term") == 0)
		raise(SIGTERM);
	if (argc > 3 && strcmp(argv[3], "abort") == 0)
		beta(-1);
	return 0;
}
