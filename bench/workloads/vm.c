/*
 * vm.c - an interpreter loop: a small stack-based bytecode VM whose opcode
 * handlers and stack helpers are tiny static functions (gcc inlines them
 * into the loop; -finstrument-functions still instruments each inlined
 * copy, clang's -finstrument-functions-after-inlining does not).  CALL
 * recurses natively into exec(), so the bytecode's recursion is the C
 * stack's recursion.
 *
 * The program: recursive fib in bytecode, and a counting loop.
 * Usage: vm [UNITS]; prints a checksum, and "calls N" on stderr.
 */
#include <stdio.h>
#include <stdlib.h>

enum { PUSH, LOAD, STORE, ADD, SUB, MUL, LT, JZ, JMP, CALL, RET, NOPS };

/* Instrumented calls each opcode makes (handler + helpers; see below). */
static const unsigned calls_of_op[NOPS] = {
	[PUSH] = 2, [LOAD] = 2, [STORE] = 2, [ADD] = 4, [SUB] = 4, [MUL] = 4,
	[LT] = 4, [JZ] = 2, [JMP] = 0, [CALL] = 0 /* counted apart */, [RET] = 1,
};

struct vm {
	long stack[1 << 16];
	int sp;
	unsigned long count[NOPS];
	unsigned long call_calls;
};

static void push(struct vm *vm, long v) { vm->stack[vm->sp++] = v; }
static long pop(struct vm *vm) { return vm->stack[--vm->sp]; }

static void op_push(struct vm *vm, long k) { push(vm, k); }
static void op_load(struct vm *vm, const long *loc, int i) { push(vm, loc[i]); }
static void op_store(struct vm *vm, long *loc, int i) { loc[i] = pop(vm); }
static void op_add(struct vm *vm) { long b = pop(vm), a = pop(vm); push(vm, a + b); }
static void op_sub(struct vm *vm) { long b = pop(vm), a = pop(vm); push(vm, a - b); }
static void op_mul(struct vm *vm) { long b = pop(vm), a = pop(vm); push(vm, a * b); }
static void op_lt(struct vm *vm) { long b = pop(vm), a = pop(vm); push(vm, a < b); }
static int op_jz(struct vm *vm) { return pop(vm) == 0; }

static const int *prog;

static long exec(struct vm *vm, int entry, const long *args, int nargs)
{
	long loc[4] = { 0, 0, 0, 0 };
	int pc = entry;

	for (int i = 0; i < nargs; i++)
		loc[i] = args[i];
	for (;;) {
		int op = prog[pc];

		vm->count[op]++;
		switch (op) {
		case PUSH: op_push(vm, prog[pc + 1]); pc += 2; break;
		case LOAD: op_load(vm, loc, prog[pc + 1]); pc += 2; break;
		case STORE: op_store(vm, loc, prog[pc + 1]); pc += 2; break;
		case ADD: op_add(vm); pc++; break;
		case SUB: op_sub(vm); pc++; break;
		case MUL: op_mul(vm); pc++; break;
		case LT: op_lt(vm); pc++; break;
		case JZ: pc = op_jz(vm) ? prog[pc + 1] : pc + 2; break;
		case JMP: pc = prog[pc + 1]; break;
		case CALL: {
			int target = prog[pc + 1], n = prog[pc + 2];
			long a[4];

			for (int i = n - 1; i >= 0; i--)
				a[i] = pop(vm);
			push(vm, exec(vm, target, a, n));
			vm->call_calls += (unsigned long)n + 2; /* pops, push, exec */
			pc += 3;
			break;
		}
		case RET: return pop(vm);
		default: abort();
		}
	}
}

/* fib at 0, loop at 26 */
static const int program[] = {
	/* fib(n): n < 2 ? n : fib(n-1) + fib(n-2) */
	LOAD, 0, PUSH, 2, LT, JZ, 10, LOAD, 0, RET,
	/* 10 */ LOAD, 0, PUSH, 1, SUB, CALL, 0, 1,
	/* 18 */ LOAD, 0, PUSH, 2, SUB, CALL, 0, 1, ADD, RET,
	/* 28: loop(n): acc = 0; while (n) { acc = acc + n * n; n = n - 1; } */
	PUSH, 0, STORE, 1,
	/* 32 */ LOAD, 0, JZ, 55,
	/* 36 */ LOAD, 1, LOAD, 0, LOAD, 0, MUL, ADD, STORE, 1,
	/* 46 */ LOAD, 0, PUSH, 1, SUB, STORE, 0, JMP, 32,
	/* 55 */ LOAD, 1, RET,
};

int main(int argc, char **argv)
{
	unsigned units = argc > 1 ? (unsigned)atoi(argv[1]) : 100;
	static struct vm vm;
	unsigned long long calls = 1; /* main */
	long sum = 0;

	prog = program;
	for (unsigned u = 0; u < units; u++) {
		long a = 18 + u % 3, b = 20000;

		sum += exec(&vm, 0, &a, 1);
		sum += exec(&vm, 28, &b, 1);
		calls += 2;
	}
	for (int op = 0; op < NOPS; op++)
		calls += vm.count[op] * calls_of_op[op];
	calls += vm.call_calls;
	printf("vm: units %u checksum %ld steps %lu\n", units, sum,
	       vm.count[PUSH] + vm.count[LOAD] + vm.count[STORE] + vm.count[ADD] +
		       vm.count[SUB] + vm.count[MUL] + vm.count[LT] + vm.count[JZ] +
		       vm.count[JMP] + vm.count[CALL] + vm.count[RET]);
	fprintf(stderr, "calls %llu\n", calls);
	return 0;
}
