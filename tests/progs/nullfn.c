/* Hooks called by hand with a null function, as a broken or hostile
 * program might: the runtime must not crash or change the program's
 * behaviour (empty cache slots must never match such a call). */
#include <stdio.h>

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

__attribute__((noinline)) static int f(int x) { return x + 1; }

int main(void)
{
	int s = 0;

	for (int i = 0; i < 3; i++) {
		__cyg_profile_func_enter(NULL, NULL);
		s += f(i);
		__cyg_profile_func_enter(NULL, NULL);
		s += f(i);
		__cyg_profile_func_exit(NULL, NULL);
		__cyg_profile_func_exit(NULL, NULL);
	}
	printf("sum %d\n", s);
	return 0;
}
