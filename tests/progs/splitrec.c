/* A recursive function split by gcc's ipa-split (-O2 and up): visit's
 * head (the NULL test) is inlined into its callers, main and the clone
 * visit.part.0 alike, and the clone holds the rest, its recursive calls
 * included.  Each head's enter hook passes the return address of the
 * frame it runs in, the clone's exit hook (jumped to) its own: so at
 * every level of the recursion the exit's call site is the one an
 * ancestor's entry has.  The exit ends the entry at its own stack
 * pointer, not that ancestor's (Note [Split functions] in
 * src/runtime/hooks.c): leaf's calls are visit's, and after's main's,
 * at every optimisation level.  (From helper-156's review.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	struct node *left, *right;
	int value;
};

static int acc;
static char buf[4096];
static long leaves, afters; /* visit keeps no count: the head would not be split */

__attribute__((noinline)) void leaf(int i)
{
	leaves++;
	acc += i;
}

__attribute__((noinline)) void after(void)
{
	afters++;
	acc++;
}

void visit(struct node *n)
{
	if (__builtin_expect(n == NULL, 1))
		return;
	size_t len = (size_t)(n->value * 37 + acc) % 1000;
	if (acc % 3 == 0)
		leaf(n->value);
	else if (acc % 5 == 1)
		memset(buf, n->value, len);
	else
		memmove(buf + 1, buf, len);
	visit(n->left);
	for (int i = 0; i < n->value; i++)
		if (buf[i] == i)
			leaf(i);
		else
			acc ^= buf[i * 3] * 31;
	visit(n->right);
	if (acc > 100000)
		acc = (int)strlen(buf);
}

static struct node *build(int depth)
{
	struct node *n;

	if (depth == 0)
		return NULL;
	n = malloc(sizeof *n);
	if (n == NULL)
		abort();
	n->value = depth;
	n->left = build(depth - 1);
	n->right = build(depth - 1);
	return n;
}

int main(void)
{
	struct node *tree = build(8);

	for (int i = 0; i < 50; i++) {
		visit(tree);
		after();
		visit(i & 1 ? tree->left : NULL);
		after();
	}
	printf("calls leaf %ld\ncalls after %ld\nacc %d\n", leaves, afters, acc);
	return 0;
}
