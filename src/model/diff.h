/*
 * diff.h - the difference between two profiles (`ccprof diff A B`), per
 * function and per compressed stack.
 *
 * Functions are matched by display name (ids differ between runs; two
 * functions of one name in a profile are added together), stacks by the
 * names along them.  Times are in seconds, as doubles: the two profiles
 * may have different tick rates, and with normalisation B's times are
 * scaled by total(A) / total(B), so the comparison is of shares of the
 * run.  Calls are never scaled, nor are bytes allocated: when both
 * profiles counted allocations (alloc), each row also has the bytes
 * allocated on each side (functions: self; stacks: individual), and when
 * both followed the heap (live), the bytes live at the end likewise, from
 * each side's heap model (model/heap.h: its functions and nodes are
 * numbered as the view's).  Rows
 * present on one side only are kept, with zeros on the other.  Rows come
 * largest change first: |Δ self|, then |Δ inherited|, then |Δ calls|,
 * then |Δ bytes|, then |Δ live|, then name.
 */
#ifndef CCPROF_MODEL_DIFF_H
#define CCPROF_MODEL_DIFF_H

#include <stdint.h>

#include "model/model.h"

enum { DIFF_BOTH = 0, DIFF_ONLY_A = 1, DIFF_ONLY_B = 2 };

struct diff_row {
	const char *name;         /* function; NULL for a stack row */
	const char *const *stack; /* stack rows: names from the bottom */
	uint32_t depth;           /* of the stack */
	int only;                 /* DIFF_BOTH, DIFF_ONLY_A or DIFF_ONLY_B */
	double self[2];           /* A, B (B scaled when normalised) */
	double inherited[2];      /* functions only */
	uint64_t calls[2];
	uint64_t alloc[2];        /* bytes allocated: self (stacks: individual);
				   * 0 unless diff.alloc */
	uint64_t live[2];         /* bytes live at the end, the same way; 0
				   * unless diff.live */
};

struct diff {
	double total[2];          /* seconds, as recorded */
	uint64_t total_calls[2];
	double scale;             /* applied to B's times (1 unless normalised) */
	int alloc;                /* both profiles counted allocations */
	int live;                 /* both followed the heap */
	uint32_t nfns, nstacks;
	struct diff_row *fns, *stacks;
	struct ccp_arena *arena;
};

/* a and b need MODEL_FLAT and MODEL_TREE. */
void diff_build(struct diff *d, const struct model *a, const struct model *b, int normalize);
/* The same with the live heap at the end of each side under its view
 * (heap_view_build of a, of b, with MODEL_FLAT and MODEL_TREE), or NULL
 * for a side without: the live bytes only when both have them. */
void diff_build_live(struct diff *d, const struct model *a, const struct model *b,
		     const struct model *live_a, const struct model *live_b, int normalize);
void diff_free(struct diff *d);

/* (b - a) / a, or NaN when a is 0 (no relative change from nothing). */
double diff_rel(double a, double b);

#endif
