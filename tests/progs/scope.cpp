// The C++ scoped region: entered on construction, left on destruction,
// also when an exception unwinds through it.
#include <ccprof.h>
#include <cstdio>
#include <stdexcept>

static volatile unsigned long sink;

__attribute__((noinline)) void inner(int i)
{
	ccprof::scope s("inner scope");
	sink += i;
	if (i % 2)
		throw std::runtime_error("odd");
}

__attribute__((noinline)) void after() { sink++; }

int main()
{
	for (int i = 0; i < 10; i++) {
		try {
			inner(i);
		} catch (const std::exception &) {
		}
		after();
	}
	std::printf("done\n");
	return 0;
}
