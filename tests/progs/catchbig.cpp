// After a catch, the catching function calls big(), whose frame (an 8 KB
// buffer) is bigger than those the exception unwound (Note [Caught
// exceptions] in src/runtime/catch.c): clang runs no exit hooks while
// unwinding, and big showed under the thrower.  10 rounds of catcher():
// try { small_caller(3) } catch (...) {}, then big(), then small(); then
// try { passer() } catch (...) {}, where passer holds a Guard whose
// destructor, run while the exception thrower(0) threw passes through
// passer on its way to catcher (a cleanup, not a catch), calls
// in_cleanup(), also with a big frame: it showed under the thrower with
// clang++ -O2 -finstrument-functions-after-inlining (helper-180; Note
// [Cleanups on the way] in src/runtime/cleanup.c).
#include <cstdio>

static volatile unsigned long sink;
static unsigned long nthrower, nsmall_caller, nbig, nsmall, ncatcher, npasser, nin_cleanup;

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

__attribute__((noinline)) void in_cleanup()
{
	volatile char buf[8192];

	nin_cleanup++;
	buf[0] = 2;
	buf[sizeof buf - 1] = buf[0];
	sink += buf[sizeof buf - 1];
}

struct Guard {
	~Guard() { in_cleanup(); }
};

__attribute__((noinline)) void passer()
{
	Guard g;

	npasser++;
	thrower(0);
	sink++;
}

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
	try {
		passer();
	} catch (...) {
		sink++;
	}
}

int main()
{
	for (int i = 0; i < 10; i++)
		catcher();
	std::printf("calls catcher %lu\ncalls small_caller %lu\ncalls thrower %lu\n"
		    "calls big %lu\ncalls small %lu\ncalls passer %lu\ncalls in_cleanup %lu\n",
		    ncatcher, nsmall_caller, nthrower, nbig, nsmall, npasser, nin_cleanup);
	return 0;
}
