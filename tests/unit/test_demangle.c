// SPDX-License-Identifier: GPL-2.0
/*
 * libiberty through demangle.c: C++, Rust legacy and v0 as c++filt/rustfilt print them; names
 * that ask for too much text or work keep their mangled form.
 */
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

/* the n-th substitution: S_, S0_, S1_ ... S9_, SA_ ... (base 36) */
static int sub(char *b, unsigned k)
{
	static const char d[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char t[8];
	int n = 0;

	if (!k)
		return sprintf(b, "S_");
	k--;
	do
		t[n++] = d[k % 36];
	while ((k /= 36));
	b[0] = 'S';
	for (int i = 0; i < n; i++)
		b[1 + i] = t[n - 1 - i];
	b[1 + n] = '_';
	b[2 + n] = '\0';
	return n + 2;
}

/*
 * The text bomb of issue 23: f(A<int, int>, A<A<int, int>, A<int, int> >, ...), each step a
 * template of the one before twice (S_ = A, S0_ = A<int, int>): steps doublings, 2^steps
 * times the first argument's text.
 */
static void text_bomb(char *b, unsigned steps)
{
	int n = sprintf(b, "_Z1f1AIiiE");

	for (unsigned i = 1; i < steps; i++) {
		n += sprintf(b + n, "S_I");
		n += sub(b + n, i);
		n += sub(b + n, i);
		n += sprintf(b + n, "E");
	}
}

/*
 * The work bomb: void f<>(), whose one parameter is the expansion of an empty pack (T_ = the
 * pack J E) with B<A<int, int>, A<A<..>>, ..., T_> as pattern. The demangler looks for the
 * pack through the whole pattern (2^steps nodes) and prints nothing of it: counting the text
 * does not stop it (24 steps: 0.5 s; 40 steps: a day).
 */
static void work_bomb(char *b, unsigned steps)
{
	int n = sprintf(b, "_Z1fIJEEvDp1BI1AIiiE");

	for (unsigned i = 0; i < steps; i++) {
		n += sub(b + n, 2); /* A */
		n += sprintf(b + n, "I");
		n += sub(b + n, 3 + i);
		n += sub(b + n, 3 + i);
		n += sprintf(b + n, "E");
	}
	sprintf(b + n, "T_E");
}

/* A bomb keeps its mangled form, and is over as soon as the cap is reached, whatever steps. */
static void test_bombs(void **state)
{
	char b[1024], *s;

	(void)state;
	/* few steps: a normal name */
	text_bomb(b, 3);
	s = demangle(b);
	assert_non_null(s);
	assert_string_equal(s, "f(A<int, int>, A<A<int, int>, A<int, int> >, "
			       "A<A<A<int, int>, A<int, int> >, A<A<int, int>, A<int, int> > >)");
	free(s);
	/* 24 steps: 1.1 GB of text without the cap; 30 steps: 64 times that */
	text_bomb(b, 24);
	assert_null(demangle(b));
	assert_int_equal(errno, E2BIG);
	text_bomb(b, 30);
	assert_null(demangle(b));
	assert_int_equal(errno, E2BIG);
	/* the work bomb: the text is short, the time is what stops it */
	work_bomb(b, 4);
	s = demangle(b);
	assert_non_null(s);
	assert_string_equal(s, "void f<>()");
	free(s);
	work_bomb(b, 40);
	assert_null(demangle(b));
	assert_int_equal(errno, E2BIG);
	/* and the cache hands out the mangled name */
	{
		struct demangle_cache *dc = demangle_cache__new();

		assert_non_null(dc);
		text_bomb(b, 30);
		assert_ptr_equal(demangle_cache__get(dc, b), b);
		assert_string_equal(demangle_cache__get(dc, "_ZN3foo3barIiEEvT_"),
				    "void foo::bar<int>(int)");
		demangle_cache__free(dc);
	}
}

/* a Rust v0 back-reference: B, then the offset (after "_R") in base 62 minus 1, or "_" for 0 */
static int backref(char *b, unsigned x)
{
	static const char d[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char t[8];
	int n = 0;

	if (!x)
		return sprintf(b, "B_");
	x--;
	do
		t[n++] = d[x % 62];
	while ((x /= 62));
	b[0] = 'B';
	for (int i = 0; i < n; i++)
		b[1 + i] = t[n - 1 - i];
	b[1 + n] = '_';
	b[2 + n] = '\0';
	return n + 2;
}

/* Rust v0 back-references double too: a::f::<(i32, i32), ((i32, i32), (i32, i32)), ...>. */
static void test_rust_bomb(void **state)
{
	char b[1024], *s;
	int n = sprintf(b, "_RINvC1a1fTllE"), prev = 8; /* the first tuple, after "_R" */

	(void)state;
	for (int i = 0; i < 40; i++) {
		int cur = n - 2;

		n += sprintf(b + n, "T");
		n += backref(b + n, (unsigned)prev);
		n += backref(b + n, (unsigned)prev);
		n += sprintf(b + n, "E");
		prev = cur;
		if (i == 1) {
			strcpy(b + n, "E");
			s = demangle(b);
			assert_non_null(s);
			assert_string_equal(
				s, "a::f::<(i32, i32), ((i32, i32), (i32, i32)), "
				   "(((i32, i32), (i32, i32)), ((i32, i32), (i32, i32)))>");
			free(s);
		}
	}
	strcpy(b + n, "E");
	assert_null(demangle(b));
	assert_int_equal(errno, E2BIG);
}

/* Names of up to the caps are demangled; a longer mangled name is not even tried. */
static void test_long(void **state)
{
	size_t len = DEMANGLE_MAX_MANGLED + 1;
	char *b = malloc(len + 1), *s;
	int n;

	(void)state;
	assert_non_null(b);
	/* _Z + <length> + that many letters: one source name */
	snprintf(b, len + 1, "_Z%zu", len - 2 - 4);
	memset(b + 6, 'x', len - 6);
	b[len] = '\0';
	assert_null(demangle(b));
	assert_int_equal(errno, E2BIG);
	/* a long name of a deep namespace: demangled */
	n = sprintf(b, "_ZN");
	for (int i = 0; i < 100; i++)
		n += sprintf(b + n, "9abcdefghi");
	strcpy(b + n, "E");
	s = demangle(b);
	assert_non_null(s);
	assert_int_equal(strlen(s), 100 * 9 + 99 * 2);
	assert_memory_equal(s, "abcdefghi::abcdefghi::", 22);
	free(s);
	free(b);
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
		cmocka_unit_test(test_names),	  cmocka_unit_test(test_not_mangled),
		cmocka_unit_test(test_cache),	  cmocka_unit_test(test_bombs),
		cmocka_unit_test(test_rust_bomb), cmocka_unit_test(test_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
