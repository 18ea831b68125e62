// shortnames.cpp - C++ names of every shape --short-names shortens
// (Note [Short names] in src/model/shortnames.c): class and function
// templates, const methods, operators (<, (), <<, [], a conversion),
// a lambda, the anonymous namespace, std:: templates, and names that
// must stay whole because their short forms clash: the overloads
// weigh(int) and weigh(double), std::get<0> and std::get<1>, and the C
// function scale beside the C++ scale(double).
//
// Usage: shortnames N; prints how often it called each function, as
// "calls NAME COUNT" lines, the names as --short-names shows them.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <vector>

static unsigned long n_push, n_top, n_less, n_call, n_shift, n_index, n_conv, n_lambda,
	n_anon, n_twice, n_weigh_i, n_weigh_d, n_scale_c, n_scale_cxx;

template <typename T> struct Stack {
	std::vector<T> items;
	__attribute__((noinline)) void push(const T &x)
	{
		n_push++;
		items.push_back(x);
	}
	__attribute__((noinline)) const T &top() const
	{
		n_top++;
		return items.back();
	}
};

struct Money {
	long cents;
	__attribute__((noinline)) bool operator<(const Money &o) const
	{
		n_less++;
		return cents < o.cents;
	}
	__attribute__((noinline)) long operator()(long k) const
	{
		n_call++;
		return cents * k;
	}
	__attribute__((noinline)) Money &operator<<(long c)
	{
		n_shift++;
		cents += c;
		return *this;
	}
	__attribute__((noinline)) long operator[](int i) const
	{
		n_index++;
		return cents >> i;
	}
	__attribute__((noinline)) explicit operator double() const
	{
		n_conv++;
		return (double)cents / 100;
	}
};

namespace {
__attribute__((noinline)) int hidden(int x)
{
	n_anon++;
	return x + 1;
}
} // namespace

template <typename T> __attribute__((noinline)) T twice(T x)
{
	n_twice++;
	return x + x;
}

__attribute__((noinline)) long weigh(int x)
{
	n_weigh_i++;
	return x;
}

__attribute__((noinline)) long weigh(double x)
{
	n_weigh_d++;
	return (long)x;
}

extern "C" __attribute__((noinline)) long scale(long x)
{
	n_scale_c++;
	return x * 3;
}

__attribute__((noinline)) double scale(double x)
{
	n_scale_cxx++;
	return x * 3;
}

__attribute__((noinline)) void sort_money(std::vector<Money> &v)
{
	std::sort(v.begin(), v.end(), [](const Money &a, const Money &b) {
		n_lambda++;
		return a < b;
	});
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 10;
	Stack<int> s;
	std::vector<Money> v;
	std::tuple<int, long> t(1, 2);
	long sum = 0;
	for (int i = 0; i < n; i++) {
		s.push(i);
		sum += s.top();
		Money m{(long)(i * 37 % 101)};
		m << 5;
		sum += m(2) + m[1] + (long)static_cast<double>(m);
		v.push_back(m);
		sum += hidden(i) + twice(i) + weigh(i) + weigh(i * 0.5);
		sum += scale((long)i) + (long)scale(i * 1.0);
		sum += std::get<0>(t) + std::get<1>(t);
	}
	sort_money(v);
	std::printf("sum %ld\n", sum);
	std::printf("calls Stack::push %lu\ncalls Stack::top %lu\n", n_push, n_top);
	std::printf("calls Money::operator< %lu\ncalls Money::operator() %lu\n", n_less, n_call);
	std::printf("calls Money::operator<< %lu\ncalls Money::operator[] %lu\n", n_shift, n_index);
	std::printf("calls Money::operator double %lu\n", n_conv);
	std::printf("calls sort_money::{lambda#1}::operator() %lu\n", n_lambda);
	std::printf("calls hidden %lu\ncalls twice %lu\n", n_anon, n_twice);
	std::printf("calls weigh(int) %lu\ncalls weigh(double) %lu\n", n_weigh_i, n_weigh_d);
	std::printf("calls scale %lu\ncalls scale(double) %lu\n", n_scale_c, n_scale_cxx);
	return 0;
}
