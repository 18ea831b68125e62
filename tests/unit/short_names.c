/*
 * short_names.c - --short-names (Note [Short names] in
 * src/model/shortnames.c): the short form of demangled C++ names at each
 * tier, the shapes left whole, and the rule that no two functions show
 * one text: clashing short names keep more, up to the whole name, the
 * same way in every model shortened together.
 */
#include "model_fixture.h"
#include "model/shortnames.h"

/* short_name(in, tier) is want (NULL: left whole). */
static void expect(const char *in, int tier, const char *want)
{
	char *got = short_name(in, tier);
	CHECK(want ? got && strcmp(got, want) == 0 : got == NULL, "tier %d: %s -> %s (got %s)",
	      tier, in, want ? want : "(whole)", got ? got : "(whole)");
	free(got);
}

static void bare(void)
{
	expect("Stack<int>::push(int const&)", SHORT_BARE, "Stack::push");
	expect("Stack<int>::top() const", SHORT_BARE, "Stack::top");
	expect("int twice<int>(int)", SHORT_BARE, "twice");
	expect("std::tuple_element<0ul, std::tuple<int, long> >::type& std::get<0ul, int, long>"
	       "(std::tuple<int, long>&)",
	       SHORT_BARE, "std::get");
	expect("(anonymous namespace)::hidden(int)", SHORT_BARE, "hidden");
	expect("(anonymous namespace)::Field* const& std::__get_helper<0ul, (anonymous "
	       "namespace)::Field*>(std::_Tuple_impl<0ul, (anonymous namespace)::Field*> const&)",
	       SHORT_BARE, "std::__get_helper");
	expect("f(int) [clone .constprop.0] [clone .cold]", SHORT_BARE, "f");
	expect("std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> "
	       ">::~basic_string()",
	       SHORT_BARE, "std::__cxx11::basic_string::~basic_string");
	expect("foo[abi:cxx11](int)", SHORT_BARE, "foo");
	expect("non-virtual thunk to Derived::f(int)", SHORT_BARE, "non-virtual thunk to Derived::f");
	expect("A::f() const::{lambda(int)#1}::operator()(int) const", SHORT_BARE,
	       "A::f::{lambda#1}::operator()");
	expect("g()::{unnamed type#1}::h()", SHORT_BARE, "g::{unnamed type#1}::h");
	/* found by a review on 90,039 real names (session 54) */
	expect("decltype(auto) std::__do_visit<void, Fn, std::variant<int> >(Fn&&, std::variant<int>&)",
	       SHORT_BARE, "std::__do_visit");
	expect("decltype(auto) f<int>(int)", SHORT_BARE, "f");
	expect("TLS wrapper function for ns::counter", SHORT_BARE, NULL);
	expect("TLS init function for ns::Box<int>::counter", SHORT_BARE,
	       "TLS init function for ns::Box::counter");
	expect("std::enable_if<((12)>=(sizeof (unsigned long)))&&((12)<(16)), void>::type "
	       "google::protobuf::internal::memswap<12>(char*, char*)",
	       SHORT_BARE, "google::protobuf::internal::memswap");
	expect("std::enable_if<((12)>=(sizeof (unsigned long))), void>::type f<12>(char*)",
	       SHORT_OUTER, "f<12>");
	expect("std::function<void (std::vector<int>)>::operator()(std::vector<int>) const",
	       SHORT_OUTER, "std::function<void (std::vector<int>)>::operator()");
	expect("f(int) noexcept", SHORT_BARE, "f");
	expect("f(int) throw()", SHORT_BARE, "f");
	expect("f(int) (.llvm.4711)", SHORT_BARE, "f");
	expect("A::f() const &&", SHORT_BARE, "A::f");
	expect("A::operator std::__cxx11::basic_string<char>[abi:cxx11]() const", SHORT_BARE,
	       "A::operator std::__cxx11::basic_string");
}

static void operators(void)
{
	expect("Money::operator<(Money const&) const", SHORT_BARE, "Money::operator<");
	expect("Money::operator()(long) const", SHORT_BARE, "Money::operator()");
	expect("Money::operator<<(long)", SHORT_BARE, "Money::operator<<");
	expect("Money::operator[](int) const", SHORT_BARE, "Money::operator[]");
	expect("Money::operator->() const", SHORT_BARE, "Money::operator->");
	expect("Money::operator double() const", SHORT_BARE, "Money::operator double");
	expect("Money::operator std::vector<int, std::allocator<int> >() const", SHORT_BARE,
	       "Money::operator std::vector");
	expect("operator new(unsigned long, void*)", SHORT_BARE, "operator new");
	expect("operator delete[](void*)", SHORT_BARE, "operator delete[]");
	expect("bool std::operator< <char>(std::basic_string<char> const&, char const*)", SHORT_BARE,
	       "std::operator<");
	expect("bool std::operator< <char>(std::basic_string<char> const&, char const*)", SHORT_OUTER,
	       "std::operator< <char>");
	expect("std::ostream& std::operator<< <std::char_traits<char> >(std::ostream&, char "
	       "const*)",
	       SHORT_BARE, "std::operator<<");
	expect("bool __gnu_cxx::operator!=<int*>(__gnu_cxx::__normal_iterator<int*> const&)",
	       SHORT_BARE, "__gnu_cxx::operator!=");
	expect("units::operator\"\" _km(unsigned long long)", SHORT_BARE, "units::operator\"\" _km");
	expect("my_operator<int>(int)", SHORT_BARE, "my_operator");
}

static void tiers(void)
{
	const char *v = "void std::vector<int, std::allocator<int> >::push_back(int const&)";
	expect(v, SHORT_BARE, "std::vector::push_back");
	expect(v, SHORT_OUTER, "std::vector<int, std::allocator>::push_back");
	expect(v, SHORT_OUTER_PARAMS, "std::vector<int, std::allocator>::push_back(int const&)");
	expect("(anonymous namespace)::Field* const& std::__get_helper<0ul, (anonymous "
	       "namespace)::Field*, std::default_delete<(anonymous namespace)::Field> >"
	       "(std::_Tuple_impl<0ul, (anonymous namespace)::Field*, std::default_delete<(anonymous "
	       "namespace)::Field> > const&)",
	       SHORT_OUTER_PARAMS,
	       "std::__get_helper<0ul, Field*, std::default_delete>(std::_Tuple_impl const&)");
	expect("f(std::vector<int>, g<((1)>(2))>)", SHORT_OUTER_PARAMS, "f(std::vector, g)");
	expect(v, SHORT_ARGS, "std::vector<int, std::allocator<int> >::push_back");
	expect(v, SHORT_PARAMS, "std::vector<int, std::allocator<int> >::push_back(int const&)");
	expect("std::vector<int>::end() const", SHORT_ARGS, "std::vector<int>::end");
	expect("std::vector<int>::end() const", SHORT_PARAMS, NULL); /* the whole name */
	expect("(anonymous namespace)::Box<(anonymous namespace)::Field>::get()", SHORT_ARGS,
	       "Box<Field>::get");
	expect("weigh(int)", SHORT_BARE, "weigh");
	expect("weigh(int)", SHORT_PARAMS, NULL); /* the whole name */
}

static void left_whole(void)
{
	expect("main", SHORT_BARE, NULL);
	expect("std::vector::size", SHORT_BARE, NULL);
	expect("void (*signal_handler(int))(int)", SHORT_BARE, NULL);
	expect("decltype (({parm#1}.size)()) size<v>(v const&)", SHORT_BARE, NULL);
	expect("f<int>(int", SHORT_BARE, NULL);
	expect("f<int)>(int)", SHORT_BARE, NULL);
	expect("::f()", SHORT_BARE, NULL);
	expect("f(int) requires_not_a_qualifier", SHORT_BARE, NULL);
	expect("", SHORT_BARE, NULL);
}

/* A model of the functions `names` (C++ where demangled[i]), each called. */
static void names_model(struct fixture *f, struct model *m, const char *const *names,
			const int *demangled, uint32_t n)
{
	fx_init(f, 1000);
	char hist[64];
	fx_ctx(f, "[main]", 1, 0, 0);
	for (uint32_t i = 0; i < n; i++) {
		snprintf(hist, sizeof hist, "[main] [f%u]", i);
		fx_ctx(f, hist, 1, 0, 1);
	}
	CHECK(fx_build(m, f) == 0, "a model of %u functions builds", n);
	for (uint32_t i = 0; i < n; i++) {
		struct model_fn *fn = &m->fns[fx_cc(f, (snprintf(hist, sizeof hist, "f%u", i), hist))];
		fn->name = names[i];
		fn->demangled = demangled[i];
	}
}

static const char *shown(const struct model *m, struct fixture *f, uint32_t i)
{
	char key[16];
	snprintf(key, sizeof key, "f%u", i);
	return m->fns[fx_cc(f, key)].name;
}

static const char *whole(const struct model *m, struct fixture *f, uint32_t i)
{
	char key[16];
	snprintf(key, sizeof key, "f%u", i);
	const struct model_fn *fn = &m->fns[fx_cc(f, key)];
	return fn->full ? fn->full : fn->name;
}

static void clashes(void)
{
	static const char *const names[] = {
		"weigh(int)",
		"weigh(double)",
		"scale",
		"scale(double)",
		"void std::vector<int, std::allocator<int> >::push_back(int const&)",
		"void std::vector<long, std::allocator<long> >::push_back(long const&)",
		"std::vector<int, std::allocator<int> >::end()",
		"std::vector<int, std::allocator<int> >::end() const",
		"Stack<int>::push(int const&)",
		"A<B<int> >::f()",
		"A<B<long> >::f()",
		"(anonymous namespace)::hidden(int)",
		"(anonymous namespace)::hidden(int)",
	};
	static const int cxx[] = {1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
	static const char *const want[] = {
		"weigh(int)",
		"weigh(double)",
		"scale",
		"scale(double)",
		"std::vector<int, std::allocator>::push_back",
		"std::vector<long, std::allocator>::push_back",
		"std::vector<int, std::allocator>::end()",
		"std::vector<int, std::allocator>::end() const",
		"Stack::push",
		"A<B<int> >::f",
		"A<B<long> >::f",
		"hidden",
		"hidden",
	};
	uint32_t n = sizeof names / sizeof *names;
	static struct fixture f;
	struct model m;
	names_model(&f, &m, names, cxx, n);
	model_short_names((struct model *[]){&m}, 1);
	for (uint32_t i = 0; i < n; i++) {
		CHECK(strcmp(shown(&m, &f, i), want[i]) == 0, "%s shows as %s (got %s)", names[i],
		      want[i], shown(&m, &f, i));
		CHECK(strcmp(whole(&m, &f, i), names[i]) == 0, "%s keeps its whole name", names[i]);
	}
	CHECK(m.fns[fx_cc(&f, "main")].full == NULL, "main, a C name, is not shortened");
	uint32_t stack = fx_cc(&f, "f8"), weigh = fx_cc(&f, "f0");
	CHECK(model_fn_matches(&m, stack, "Stack::push") &&
		      model_fn_matches(&m, stack, "Stack<int>::push") &&
		      model_fn_matches(&m, stack, "Stack<int>::push(int const&)") &&
		      model_fn_matches(&m, stack, "St*::push"),
	      "patterns match Stack<int>::push(int const&) by its short name and its whole one");
	CHECK(model_fn_matches(&m, weigh, "weigh") && !model_fn_matches(&m, stack, "weigh"),
	      "weigh(int), shown whole, matches weigh as before");
	model_free(&m);
}

/* diff's two sides: one whole name, one short name on both, even where
 * only one side has the function it would clash with. */
static void together(void)
{
	static const char *const a_names[] = {"weigh(int)", "Stack<int>::push(int const&)"};
	static const char *const b_names[] = {"weigh(int)", "weigh(double)",
					      "Stack<int>::push(int const&)"};
	static const int cxx[] = {1, 1, 1};
	static struct fixture fa, fb;
	struct model a, b;
	names_model(&fa, &a, a_names, cxx, 2);
	names_model(&fb, &b, b_names, cxx, 3);
	model_short_names((struct model *[]){&a, &b}, 2);
	CHECK(strcmp(shown(&a, &fa, 0), "weigh(int)") == 0 &&
		      strcmp(shown(&b, &fb, 0), "weigh(int)") == 0,
	      "weigh(int), alone in A, shows as in B, where weigh(double) is: %s, %s",
	      shown(&a, &fa, 0), shown(&b, &fb, 0));
	CHECK(strcmp(shown(&a, &fa, 1), "Stack::push") == 0 &&
		      strcmp(shown(&b, &fb, 2), "Stack::push") == 0,
	      "Stack::push on both sides");
	model_free(&a);
	model_free(&b);
	names_model(&fa, &a, a_names, cxx, 2);
	model_short_names((struct model *[]){&a}, 1);
	CHECK(strcmp(shown(&a, &fa, 0), "weigh") == 0, "alone, weigh(int) is weigh: %s",
	      shown(&a, &fa, 0));
	model_free(&a);
}

int main(void)
{
	bare();
	operators();
	tiers();
	left_whole();
	clashes();
	together();
	return check_failures != 0;
}
