/* An instrumented shared library with a static function. */
static int helper(int x)
{
	return x * 3;
}

int lib_entry(int x)
{
	return helper(x) + 1;
}
