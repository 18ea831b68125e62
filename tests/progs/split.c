/* gcc -O2's partial inlining (ipa-split): join's head (the n == 1 test)
 * is inlined into run, the rest becomes join.part.0, whose exit hook
 * passes its own return address, an address inside run, as call site
 * (Note [Split functions] in src/runtime/hooks.c).  Lua 5.4's luaV_concat
 * is split so without help; here __builtin_expect makes the split
 * certain.  join is also called through a pointer, where the head is
 * not inlined and calls (or jumps to) its clone.  The clone jumps to the
 * exit hook, or with -fno-optimize-sibling-calls calls it.  after() and
 * tail() are run's, not join's, at every optimisation level. */
#include <stdio.h>
#include <string.h>

static int acc;
static char buf[4096];

__attribute__((noinline)) void leaf(int i)
{
	acc += i;
}

__attribute__((noinline)) void after(void)
{
	acc++;
}

__attribute__((noinline)) void tail(void)
{
	acc--;
}

void join(int n)
{
	if (__builtin_expect(n == 1, 1))
		return;
	do {
		size_t l = (size_t)(n * 37 + acc) % 1000;
		if (acc % 3 == 0)
			leaf(n);
		else if (acc % 5 == 1)
			memset(buf, n, l);
		else
			memmove(buf + 1, buf, l);
		for (int i = 0; i < n; i++)
			if (buf[i] == i)
				leaf(i);
			else
				acc ^= buf[i * 3] * 31;
		if (acc > 100000)
			acc = (int)strlen(buf);
		n--;
	} while (n > 1);
}

void (*volatile join_ptr)(int) = join;

__attribute__((noinline)) void run(int n)
{
	for (int i = 0; i < n; i++) {
		join(1 + (i & 3));
		after();
		tail();
		join_ptr(1 + (i & 3));
		after();
	}
}

int main(void)
{
	run(1000); /* no atoi: clang hooks libc's inline copy */
	printf("%d\n", acc);
	return 0;
}
