// Functions defined inside namespaces, which clang's DWARF nests under
// DW_TAG_namespace (tests/sources.py): plain, nested, anonymous, a class
// member defined out of class, a template, and functions of a header.
#include <cstdio>

#include "spaces.h"

namespace geo {
__attribute__((noinline)) int area(int w, int h)
{
	return w * h;
}

namespace detail {
__attribute__((noinline)) int twice(int x)
{
	return x + x;
}
}

struct Shape {
	int side;
	Shape(int s);
	int perimeter() const;
};

Shape::Shape(int s) : side(s)
{
}

int Shape::perimeter() const
{
	return 4 * side;
}

template <typename T> __attribute__((noinline)) T largest(T x, T y)
{
	return x < y ? y : x;
}
}

namespace {
__attribute__((noinline)) int hidden(int x)
{
	return x - 1;
}
}

int main()
{
	geo::Shape s(3);
	geo::Pair<long> p{2, 5};
	int n = geo::area(2, 3) + geo::detail::twice(4) + s.perimeter() + geo::largest(7, 9) +
		hidden(5) + (int)p.sum();
	std::printf("%d\n", n);
	return 0;
}
