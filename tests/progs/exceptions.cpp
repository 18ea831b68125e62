// C++ exceptions thrown through instrumented frames, 40 times from 30
// deep; after each catch, after_catch() is called from main.  Also a
// template and a class method, for demangled names.
#include <cstdio>
#include <stdexcept>

static volatile unsigned long sink;
static unsigned long nthrow_deep;

template <typename T> struct Box {
	T v;
	__attribute__((noinline)) T get() const { return v; }
};

__attribute__((noinline)) void throw_deep(int n)
{
	nthrow_deep++;
	if (n == 0)
		throw std::runtime_error("deep");
	throw_deep(n - 1);
	sink++;
}

__attribute__((noinline)) void after_catch() { sink++; }

int main()
{
	Box<int> b{7};
	int caught = 0;

	for (int i = 0; i < 40; i++) {
		try {
			throw_deep(30);
		} catch (const std::exception &) {
			caught++;
		}
		after_catch();
	}
	std::printf("calls throw_deep %lu\ncalls after_catch 40\ncaught %d %d\n", nthrow_deep,
		    caught, b.get());
	return 0;
}
