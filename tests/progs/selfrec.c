/* Recursive functions that gcc inlines into themselves (-O3; -O2 for
 * some): the inlined copies' hooks run in the outer call's frame with
 * its call site (Note [Self-inlined copies] in src/runtime/machine.c).
 * The program counts its own calls; at every optimisation level the
 * contexts must be those of -O0.  selfrec DEPTH ROUNDS; with
 * -DSELFREC_EARLY, a library whose constructor walks a tree. */
#include <stdio.h>
#include <stdlib.h>

struct node {
	struct node *left, *right;
	int value;
};

static long walks, leaves, builds;
static long sum;

__attribute__((noinline)) void leaf(const struct node *n)
{
	leaves++;
	sum += n->value;
}

/* In order: gcc -O3 inlines the recursive calls into it. */
static void walk(const struct node *n)
{
	walks++;
	if (n == NULL)
		return;
	walk(n->left);
	leaf(n);
	walk(n->right);
}

static struct node *build(int depth)
{
	struct node *n;

	builds++;
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

#ifdef SELFREC_EARLY
/* Built as a library a program is linked with: its constructor runs
 * before the preloaded runtime's own (robust.py self_inlined). */
__attribute__((constructor)) static void early(void)
{
	struct node *tree = build(6);

	for (int i = 0; i < 5; i++)
		walk(tree);
	printf("calls walk %ld\ncalls leaf %ld\ncalls build %ld\n", walks, leaves, builds);
}
#else
int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 10, rounds = argc > 2 ? atoi(argv[2]) : 100;
	struct node *tree = build(depth);

	for (int i = 0; i < rounds; i++)
		walk(tree);
	printf("calls walk %ld\ncalls leaf %ld\ncalls build %ld\nsum %ld\n", walks, leaves, builds,
	       sum);
	return 0;
}
#endif
