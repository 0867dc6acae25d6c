// SPDX-License-Identifier: GPL-2.0
/*
 * libiberty through demangle.c: C++, Rust legacy and v0 as c++filt/rustfilt print them; names
 * that ask for too much text or work keep their mangled form.
 */
#include <time.h>
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
static int work_bomb_named(char *b, unsigned steps, unsigned id)
{
	/* id names the function (f000 ... f999): as many distinct bombs, the same structure */
	int n = sprintf(b, "_Z4f%03uIJEEvDp1BI1AIiiE", id % 1000);

	for (unsigned i = 0; i < steps; i++) {
		n += sub(b + n, 2); /* A */
		n += sprintf(b + n, "I");
		n += sub(b + n, 3 + i);
		n += sub(b + n, 3 + i);
		n += sprintf(b + n, "E");
	}
	return n + sprintf(b + n, "T_E");
}

static void work_bomb(char *b, unsigned steps)
{
	work_bomb_named(b, steps, 0);
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
	assert_string_equal(s, "void f000<>()");
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

static double thread_cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* An ordinary C++ and Rust name come out demangled. */
static void ordinary_names(void)
{
	char *s = demangle("_ZNSt6vectorIiSaIiEE9push_backERKi");

	assert_non_null(s);
	assert_string_equal(s, "std::vector<int, std::allocator<int> >::push_back(int const&)");
	free(s);
	s = demangle("_RNvNtCs1234_7mycrate3foo3bar");
	assert_non_null(s);
	assert_string_equal(s, "mycrate::foo::bar");
	free(s);
}

/*
 * Many distinct work bombs (a binary can hold thousands): the first ones cost the per-name cap
 * until DEMANGLE_BUDGET_MS is counted, the next ones the short cap, and past both budgets none
 * is tried; ordinary names are still demangled after the first budget. Asserted on the
 * counters (the CPU time the demangler's thread clock measured), never on a clock read here.
 * Runs last: the budgets are the process's.
 */
static void test_budget(void **state)
{
	const unsigned long long first = DEMANGLE_BUDGET_MS * 1000000ull,
				 both = (DEMANGLE_BUDGET_MS + DEMANGLE_LATE_BUDGET_MS) * 1000000ull,
				 full_ns = DEMANGLE_MAX_CPU_MS * 1000000ull -
					   DEMANGLE_FREE_US * 1000ull,
				 late_ns = DEMANGLE_LATE_CPU_US * 1000ull -
					   DEMANGLE_FREE_US * 1000ull;
	struct demangle_stats st0, st;
	char b[1024];
	unsigned id = 1, n_full;
	double t0 = thread_cpu();

	(void)state;
	demangle_stats(&st0);
	assert_true(st0.spent_ns < first); /* the tests before left most of it */
	/* bombs until the first budget is spent: each counts at least full_ns (the timer fires
	 * after the cap, never before), so that takes at most (first - spent) / full_ns + 1 */
	n_full = (unsigned)((first - st0.spent_ns) / full_ns + 1);
	for (st = st0; st.spent_ns < first; id++) {
		assert_true(id <= n_full);
		work_bomb_named(b, 40, id);
		assert_null(demangle(b));
		assert_int_equal(errno, E2BIG);
		demangle_stats(&st);
	}
	assert_true(st.over_cpu - st0.over_cpu == id - 1);
	assert_int_equal(st.over_late_cpu, st0.over_late_cpu);
	ordinary_names();
	/* then the short cap: up to 200 bombs in all, ordinary names still demangled between */
	for (; id <= 200 && st.spent_ns < both; id++) {
		work_bomb_named(b, 40, id);
		assert_null(demangle(b));
		assert_int_equal(errno, E2BIG);
		demangle_stats(&st);
		if (id % 50 == 0 && st.spent_ns < both)
			ordinary_names();
	}
	assert_true(st.over_late_cpu > st0.over_late_cpu);
	/* and on until names are refused, within the second budget's worth of short caps */
	for (unsigned late = 0; st.refused == st0.refused; id++, late++) {
		assert_true(late <= both / late_ns + 1);
		work_bomb_named(b, 40, id);
		assert_null(demangle(b));
		demangle_stats(&st);
	}
	assert_true(st.spent_ns >= both);
	/* the counted CPU: the two budgets plus one name (one thread: one cap and one tick) */
	assert_true(st.spent_ns < both + 2 * DEMANGLE_MAX_CPU_MS * 1000000ull);
	/* from now on nothing is tried: not the bombs, not the ordinary names */
	for (unsigned i = 0; i < 100; i++) {
		work_bomb_named(b, 40, id + i);
		assert_null(demangle(b));
		assert_int_equal(errno, E2BIG);
	}
	assert_null(demangle("_ZN3foo3barIiEEvT_"));
	assert_int_equal(errno, E2BIG);
	demangle_stats(&st0);
	assert_int_equal(st0.refused, st.refused + 101);
	assert_int_equal(st0.spent_ns, st.spent_ns);
	print_message("budget: %llu names at the full cap, %llu at the short cap, %llu refused, "
		      "%.3f s counted, %.3f s of thread CPU in this test\n",
		      st0.over_cpu, st0.over_late_cpu, st0.refused, (double)st0.spent_ns / 1e9,
		      thread_cpu() - t0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),	  cmocka_unit_test(test_not_mangled),
		cmocka_unit_test(test_cache),	  cmocka_unit_test(test_bombs),
		cmocka_unit_test(test_rust_bomb), cmocka_unit_test(test_long),
		cmocka_unit_test(test_budget), /* last: it spends the process's budgets */
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
