/* A generator made with makecontext, resumed by swapcontext from two
 * places in turn: first_half() resumes it N times, then second_half()
 * N + 1 times, the last letting numbers() end.  Each step() yields, and
 * after it is resumed calls tally(), and in the second half burn(), about
 * 1 ms of CPU.  ccprof should show the generator's frames under whoever
 * resumed it while they ran (Note [One shadow stack a stack] in
 * src/runtime/stacks.c): burn()'s time under second_half alone.
 *
 * argv[1]:
 *   two      as above, on the main thread; numbers() ends by returning to
 *            its uc_link
 *   set      the same, but numbers() ends by setcontext
 *   inside   the same, the generator's stack a buffer in main's frame,
 *            inside the main thread's own stack
 *   threads  first_half on one thread, second_half on another, after the
 *            first ended: the generator moves between threads
 *   many     GENS generators alive at once, each resumed ROUNDS times in
 *            turn by many_rounds(), then each let finish
 * Then main calls after_end(), which must be main's own call. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define N 200
#define GENS 300
#define ROUNDS 20
#define STACK (64 * 1024)

struct gen {
	ucontext_t ctx, caller;
	int value, finished;
	char *stack;
};

static struct gen one;
static int in_second, end_by_set;
static volatile unsigned long sink;
static unsigned long n_first, n_second, n_resume, n_numbers, n_step, n_yield, n_tally, n_burn,
	n_after, n_many;
static __thread struct gen *running; /* the generator this thread resumed */

__attribute__((noinline)) void burn(void)
{
	n_burn++;
	for (unsigned long i = 0; i < 3200000; i++)
		sink += i * i;
}

__attribute__((noinline)) void tally(void)
{
	n_tally++;
}

__attribute__((noinline)) void yield_value(struct gen *g, int v)
{
	n_yield++;
	g->value = v;
	swapcontext(&g->ctx, &g->caller);
}

__attribute__((noinline)) void step(struct gen *g, int i)
{
	n_step++;
	yield_value(g, i);
	tally();
	if (in_second)
		burn();
}

__attribute__((noinline)) void numbers(void)
{
	struct gen *g = running;
	int count = g == &one ? 2 * N : ROUNDS;

	n_numbers++;
	for (int i = 0; i < count; i++)
		step(running, i); /* `running`: the thread resuming it now */
	running->finished = 1;
	if (end_by_set)
		setcontext(&running->caller);
}

__attribute__((noinline)) int resume_gen(struct gen *g)
{
	n_resume++;
	running = g;
	swapcontext(&g->caller, &g->ctx);
	return g->value;
}

static void gen_init(struct gen *g, char *stack)
{
	g->stack = stack != NULL ? stack : malloc(STACK);
	if (g->stack == NULL || getcontext(&g->ctx) != 0)
		exit(2);
	g->ctx.uc_stack.ss_sp = g->stack;
	g->ctx.uc_stack.ss_size = STACK;
	g->ctx.uc_link = &g->caller;
	makecontext(&g->ctx, numbers, 0);
}

__attribute__((noinline)) void first_half(void)
{
	n_first++;
	for (int i = 0; i < N; i++)
		resume_gen(&one);
}

__attribute__((noinline)) void second_half(void)
{
	n_second++;
	in_second = 1;
	while (!one.finished)
		resume_gen(&one);
}

__attribute__((noinline)) void after_end(void)
{
	n_after++;
}

static void *first_thread(void *arg)
{
	(void)arg;
	first_half();
	return NULL;
}

static void *second_thread(void *arg)
{
	(void)arg;
	second_half();
	return NULL;
}

__attribute__((noinline)) void many_rounds(struct gen *gens)
{
	n_many++;
	for (int r = 0; r <= ROUNDS; r++)
		for (int k = 0; k < GENS; k++)
			if (!gens[k].finished)
				resume_gen(&gens[k]);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "two";
	char inside[STACK];
	pthread_t t;

	if (strcmp(mode, "many") == 0) {
		static struct gen gens[GENS];

		for (int k = 0; k < GENS; k++)
			gen_init(&gens[k], NULL);
		many_rounds(gens);
		printf("calls many_rounds %lu\n", n_many);
	} else {
		end_by_set = strcmp(mode, "set") == 0;
		gen_init(&one, strcmp(mode, "inside") == 0 ? inside : NULL);
		if (strcmp(mode, "threads") == 0) {
			pthread_create(&t, NULL, first_thread, NULL);
			pthread_join(t, NULL);
			pthread_create(&t, NULL, second_thread, NULL);
			pthread_join(t, NULL);
		} else {
			first_half();
			second_half();
		}
		printf("calls first_half %lu\ncalls second_half %lu\ncalls burn %lu\n", n_first,
		       n_second, n_burn);
	}
	after_end();
	printf("calls resume_gen %lu\ncalls numbers %lu\ncalls step %lu\ncalls yield_value %lu\n"
	       "calls tally %lu\ncalls after_end %lu\n",
	       n_resume, n_numbers, n_step, n_yield, n_tally, n_after);
	return 0;
}
