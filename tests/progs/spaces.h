// spaces.h - functions defined in a header: their file is this one.
#ifndef SPACES_H
#define SPACES_H

static inline int header_static(int x)
{
	return x * 3 + 1;
}

namespace geo {
template <typename T> struct Pair {
	T a, b;
	__attribute__((noinline)) T sum() const
	{
		return a + b + (T)header_static((int)a);
	}
};
}

#endif
