// Names that every export format must carry: C++ templates and operators
// (demangled names hold < > & , ( ) and spaces) and manual regions named
// with spaces, ';', quotes, '<&>', a backslash, non-ASCII, and a trailing
// number (a second count to flamegraph.pl).  Every region calls an
// instrumented function that spins, so each name is on a stack with time
// under any clock (the cycles clock reads the counter at function calls).
#include <ccprof.h>
#include <cstdio>
#include <cstdlib>

static volatile unsigned long sink;

__attribute__((no_instrument_function)) static inline void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

static unsigned long scale = 200000;

template <typename T> struct Box {
	T v;
	__attribute__((noinline)) T get() const
	{
		spin(scale);
		return v;
	}
};

struct Vec {
	int x, y;
};

__attribute__((noinline)) Vec operator+(const Vec &a, const Vec &b)
{
	spin(scale);
	return Vec{a.x + b.x, a.y + b.y};
}

__attribute__((noinline)) bool operator<(const Vec &a, const Vec &b)
{
	spin(scale);
	return a.x < b.x;
}

template <typename T, int N> __attribute__((noinline)) T total(const T (&a)[N])
{
	T s = 0;
	for (int i = 0; i < N; i++)
		s += a[i];
	spin(scale);
	return s;
}

__attribute__((noinline)) void leaf_work()
{
	spin(scale);
}

static void region(const char *name, void (*body)())
{
	ccprof_cc_t r = ccprof_cc(name);
	ccprof_enter(r);
	spin(scale);
	body();
	ccprof_leave(r);
}

__attribute__((noinline)) void templates()
{
	Box<int> b{3};
	Vec p{1, 2}, q{3, 4};
	int a[3] = {1, 2, 3};
	sink += (unsigned long)b.get() + (unsigned long)(p + q).x + (p < q) + (unsigned long)total(a);
}

extern "C" __attribute__((noinline)) void c_regions()
{
	region("name with spaces; <&> \"quotes\" \xc3\xa9", templates);
	region("frame 42", leaf_work);
	region("back\\slash \xf0\x9f\x94\xa5", leaf_work);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		scale = std::strtoul(argv[1], nullptr, 10);
	for (int i = 0; i < 3; i++) {
		c_regions();
		templates();
	}
	std::printf("done\n");
	return 0;
}
