/*
 * shortnames.h - C++ names as a reader says them: without template
 * arguments, parameter lists, return types and clone suffixes, where
 * that still tells the functions apart (report, convert and diff
 * --short-names; Note [Short names] in shortnames.c).
 */
#ifndef CCPROF_MODEL_SHORTNAMES_H
#define CCPROF_MODEL_SHORTNAMES_H

#include <stdint.h>

#include "model/model.h"

/* How much of a name its short form keeps (Note [Short names]), the
 * tiers in the order a clash climbs them: SHORT_BARE neither template
 * arguments nor parameters; SHORT_OUTER the template arguments, each
 * without its own; SHORT_OUTER_PARAMS those and the parameters, with
 * their qualifiers (const), each without template arguments;
 * SHORT_ARGS the template arguments whole, no parameters; SHORT_PARAMS
 * both whole.  None keeps the anonymous namespace. */
enum { SHORT_BARE = 1, SHORT_OUTER, SHORT_OUTER_PARAMS, SHORT_ARGS, SHORT_PARAMS };

/*
 * The short form of a demangled C++ name at a tier, malloc'd:
 * "void std::vector<int, std::allocator<int> >::push_back(int const&)"
 * is "std::vector::push_back" bare, "std::vector<int,
 * std::allocator>::push_back" with the outer arguments, that with
 * "(int const&)" with the parameters too, "std::vector<int,
 * std::allocator<int> >::push_back" with all the arguments, and that
 * with "(int const&)" with the parameters.  NULL when it would
 * be the name itself, or when the name has a shape the rules do not
 * cover (a function type in a return type, an unbalanced bracket): then
 * the name stays whole.
 */
char *short_name(const char *demangled, int tier);

/*
 * Give the functions of models ms[0..n) their short names where no other
 * function of any of them would show the same text (Note [Short names]):
 * fns[].name becomes the short name and fns[].full keeps the whole one.
 * Several models (diff's two sides) are shortened together, so that one
 * whole name has one short name in all of them.  Call before building
 * views: they borrow the names.
 */
void model_short_names(struct model *const *ms, uint32_t n);

#endif
