/*
 * sigtwice.c - handlers for SIGINT and SIGTERM that say which ran, put
 * the default action back and raise the signal again (git's sigchain
 * does so, to clean up and then die by the signal).  main raises SIGINT;
 * tests/progs/renamekill.c, preloaded before the runtime, sends SIGTERM
 * while the runtime writes the profile (Note [One signal to die by] in
 * src/runtime/signals.c).  Bare, or with the fix: "handler 2", death by
 * SIGINT.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

static void handler(int sig)
{
	char line[] = "handler 00\n";

	line[8] = (char)('0' + sig / 10);
	line[9] = (char)('0' + sig % 10);
	if (write(1, line, sizeof line - 1) < 0)
		_exit(3);
	signal(sig, SIG_DFL);
	raise(sig);
}

__attribute__((noinline)) static int work(int n)
{
	return n < 2 ? n : work(n - 1) + work(n - 2);
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (work(15) != 610)
		return 1;
	raise(SIGINT);
	return 4;
}
