// The C++ library tests/progs/plugcatch.c opens with RTLD_LOCAL: it
// throws and catches n times, and counts the catches.
#include <stdexcept>

__attribute__((noinline)) static void thrower(int i)
{
	if (i >= 0)
		throw std::runtime_error("plug");
}

__attribute__((noinline)) static long after_catch(long n)
{
	return n + 1;
}

extern "C" long plug_run(int n)
{
	long caught = 0;

	for (int i = 0; i < n; i++) {
		try {
			thrower(i);
		} catch (const std::exception &) {
			caught = after_catch(caught);
		}
	}
	return caught;
}
