// SPDX-License-Identifier: GPL-2.0
/* libiberty through demangle.c: C++, Rust legacy and v0 as c++filt/rustfilt print them. */
#include "cmocka_inc.h"
#include "symbol/demangle.h"

static void expect(const char *mangled, const char *want)
{
	char *s = demangle(mangled);

	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

static void test_names(void **state)
{
	(void)state;
	expect("_ZNSt6vectorIiSaIiEE9push_backERKi",
	       "std::vector<int, std::allocator<int> >::push_back(int const&)");
	expect("_ZN12_GLOBAL__N_13fooEv", "(anonymous namespace)::foo()");
	expect("_ZN3foo3barIiEEvT_", "void foo::bar<int>(int)");
	/* Rust legacy: the hash goes, as rustfilt prints it */
	expect("_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write");
	expect("_ZN5alloc3vec12Vec$LT$T$GT$4push17h0123456789abcdefE", "alloc::vec::Vec<T>::push");
	/* Rust v0 (what __cxa_demangle cannot do) */
	expect("_RNvNtCs1234_7mycrate3foo3bar", "mycrate::foo::bar");
	expect("_RNvCsbmNqQUJIY6D_4core3foo", "core::foo");
}

static void test_not_mangled(void **state)
{
	(void)state;
	assert_null(demangle("main"));
	assert_int_equal(errno, ENOENT);
	assert_null(demangle("_Zjunk"));
	assert_null(demangle(NULL));
}

static void test_cache(void **state)
{
	struct demangle_cache *dc = demangle_cache__new();
	static const char plain[] = "cp_plain";
	char names[600][32];
	const char *a;

	(void)state;
	assert_non_null(dc);
	a = demangle_cache__get(dc, "_ZN3foo3barIiEEvT_");
	assert_string_equal(a, "void foo::bar<int>(int)");
	/* keyed by pointer: the same answer, the same string */
	assert_ptr_equal(demangle_cache__get(dc, "_ZN3foo3barIiEEvT_"), a);
	assert_ptr_equal(demangle_cache__get(dc, plain), plain);
	/* many names: the table grows and keeps every answer */
	for (int i = 0; i < 600; i++)
		snprintf(names[i], sizeof(names[i]), "_Z4f%03dv", i);
	for (int i = 0; i < 600; i++)
		assert_true(strncmp(demangle_cache__get(dc, names[i]), "f", 1) == 0);
	assert_string_equal(demangle_cache__get(dc, names[123]), "f123()");
	assert_null(demangle_cache__get(dc, NULL));
	demangle_cache__free(dc);
	demangle_cache__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_not_mangled),
		cmocka_unit_test(test_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
