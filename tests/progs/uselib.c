/* Calls into an instrumented shared library; also has a static function. */
#include <stdio.h>

int lib_entry(int x);

static __attribute__((noinline)) int local_static(int i)
{
	return lib_entry(i);
}

int main(void)
{
	int s = 0;

	for (int i = 0; i < 10; i++)
		s += local_static(i);
	printf("%d\n", s);
	return 0;
}
