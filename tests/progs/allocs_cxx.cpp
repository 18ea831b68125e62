// allocs_cxx.cpp - C++'s new, through malloc, counted where it is called
// (tests/alloc.py): new int[10] is 40 bytes, vector<long>::reserve(100)
// 800, an aligned new 64; each prints what it allocated on stderr.
#include <cstdio>
#include <new>
#include <vector>

struct alignas(64) Line {
	char bytes[64];
};

static void *volatile sink;

__attribute__((noinline)) void make_array()
{
	int *p = new int[10];
	sink = p;
	delete[] p;
}

__attribute__((noinline)) void reserve(std::vector<long> &v)
{
	v.reserve(100);
}

__attribute__((noinline)) void aligned_new()
{
	Line *l = new Line;
	sink = l;
	delete l;
}

int main()
{
	std::vector<long> v;

	make_array();
	reserve(v);
	aligned_new();
	std::fprintf(stderr, "alloc make_array 40 1\nalloc reserve 800 1\nalloc aligned_new 64 1\n");
	return 0;
}
