// After a catch, the catching function calls big(), whose frame (an 8 KB
// buffer) is bigger than those the exception unwound (Note [Caught
// exceptions] in src/runtime/catch.c): clang runs no exit hooks while
// unwinding, and big showed under the thrower.  10 rounds of catcher():
// try { small_caller(3) } catch (...) {}, then big(), then small().
#include <cstdio>

static volatile unsigned long sink;
static unsigned long nthrower, nsmall_caller, nbig, nsmall, ncatcher;

__attribute__((noinline)) void thrower(int d)
{
	nthrower++;
	if (d == 0)
		throw 42;
	thrower(d - 1);
	sink++;
}

__attribute__((noinline)) void small_caller(int d)
{
	nsmall_caller++;
	thrower(d);
	sink++;
}

__attribute__((noinline)) void big()
{
	volatile char buf[8192];

	nbig++;
	buf[0] = 1;
	buf[sizeof buf - 1] = buf[0];
	sink += buf[sizeof buf - 1];
}

__attribute__((noinline)) void small() { nsmall++; sink++; }

__attribute__((noinline)) void catcher()
{
	ncatcher++;
	try {
		small_caller(3);
	} catch (...) {
		sink++;
	}
	big();
	small();
}

int main()
{
	for (int i = 0; i < 10; i++)
		catcher();
	std::printf("calls catcher %lu\ncalls small_caller %lu\ncalls thrower %lu\n"
		    "calls big %lu\ncalls small %lu\n",
		    ncatcher, nsmall_caller, nthrower, nbig, nsmall);
	return 0;
}
