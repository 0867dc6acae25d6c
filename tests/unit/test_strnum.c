// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include "util/strnum.h"

#define SENTINEL 0xdeadbeefULL

static void test_u64_valid(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(parse_u64("0", 0, 10, &v), 0);
	assert_true(v == 0);
	assert_int_equal(parse_u64("42", 0, 100, &v), 0);
	assert_true(v == 42);
	assert_int_equal(parse_u64("007", 0, 100, &v), 0);
	assert_true(v == 7);
	assert_int_equal(parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	/* both bounds are inclusive */
	assert_int_equal(parse_u64("5", 5, 9, &v), 0);
	assert_true(v == 5);
	assert_int_equal(parse_u64("9", 5, 9, &v), 0);
	assert_true(v == 9);
}

static void test_u64_malformed(void **state)
{
	static const char *const bad[] = {
		"", "10abc", " 5", "5 ", "-1", "+1", "0x10", "1.5", "1e3", "abc", "\t7", "1 2",
	};
	uint64_t v = SENTINEL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse_u64(bad[i], 0, UINT64_MAX, &v) != -EINVAL)
			fail_msg("parse_u64(\"%s\") did not return -EINVAL", bad[i]);
	}
	assert_int_equal(parse_u64(NULL, 0, UINT64_MAX, &v), -EINVAL);
	assert_true(v == SENTINEL); /* untouched on failure */
}

static void test_u64_range(void **state)
{
	uint64_t v = SENTINEL;

	(void)state;
	assert_int_equal(parse_u64("99999999999999999999", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(parse_u64("18446744073709551616", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(parse_u64("4", 5, 9, &v), -ERANGE);
	assert_int_equal(parse_u64("10", 5, 9, &v), -ERANGE);
	assert_int_equal(parse_u64("0", 1, 9, &v), -ERANGE);
	assert_true(v == SENTINEL);
}

struct dur_case {
	const char *s;
	int err;
	uint64_t ms;
};

static void check_durations(const struct dur_case *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t ms = SENTINEL;
		int err = parse_duration_ms(c[i].s, &ms);

		if (err != c[i].err)
			fail_msg("parse_duration_ms(\"%s\") = %d, want %d", c[i].s, err, c[i].err);
		if (!err && ms != c[i].ms)
			fail_msg("parse_duration_ms(\"%s\") gave %llu ms, want %llu", c[i].s,
				 (unsigned long long)ms, (unsigned long long)c[i].ms);
		if (err && ms != SENTINEL)
			fail_msg("parse_duration_ms(\"%s\") wrote its output on failure", c[i].s);
	}
}

static void test_duration_units(void **state)
{
	static const struct dur_case c[] = {
		{"500ms", 0, 500},   {"1ms", 0, 1},    {"30s", 0, 30000}, {"2m", 0, 120000},
		{"1h", 0, 3600000},  {"30", 0, 30000}, /* bare number: seconds */
		{"0030s", 0, 30000},
	};

	(void)state;
	check_durations(c, sizeof(c) / sizeof(c[0]));
}

static void test_duration_fractions(void **state)
{
	static const struct dur_case c[] = {
		{"1.5s", 0, 1500},    {"1.5", 0, 1500},	   {"0.25m", 0, 15000},
		{"0.5h", 0, 1800000}, {"2.5ms", 0, 3}, /* half rounds up */
		{"2.49ms", 0, 2},     {"0.0015s", 0, 2},   {"0.0014999s", 0, 1},
		{"0.001s", 0, 1},     {"1.000s", 0, 1000},
	};
	/* rounding is exact, however many fraction digits are given */
	static const struct dur_case exact[] = {
		/* 0.0000166667 * 60000 = 1.000002 ms */
		{"0.0000166667m", 0, 1},
		/* 0.333...3 (30 digits) * 60000 = 19999.99... */
		{"0.333333333333333333333333333333m", 0, 20000},
		{"1.000000000000000000000000000001s", 0, 1000},
		{"1.49999999999999999999999999ms", 0, 1},
	};

	(void)state;
	check_durations(c, sizeof(c) / sizeof(c[0]));
	check_durations(exact, sizeof(exact) / sizeof(exact[0]));
}

static void test_duration_range(void **state)
{
	static const struct dur_case c[] = {
		{"0ms", -ERANGE, 0},
		{"0", -ERANGE, 0},
		{"0.4ms", -ERANGE, 0},
		/* below 1 ms even though it rounds to 1 */
		{"0.5ms", -ERANGE, 0},
		{"0.0005s", -ERANGE, 0},
		{"0.99999999999999999999999999ms", -ERANGE, 0},
		/* 0.0000083334 * 60000 = 0.500004 ms */
		{"0.0000083334m", -ERANGE, 0},
		{"0.0004s", -ERANGE, 0},
		/* 0.0000083333 * 60000 = 0.499998 ms: rounds to 0 */
		{"0.0000083333m", -ERANGE, 0},
		{"8784h", 0, 31622400000ULL}, /* 366 days */
		{"527040m", 0, 31622400000ULL},
		{"31622400s", 0, 31622400000ULL},
		{"31622400.001s", -ERANGE, 0},
		{"8785h", -ERANGE, 0},
		{"99999999999999999999", -ERANGE, 0},
		{"99999999999999999999ms", -ERANGE, 0},
		{"18446744073709551615ms", -ERANGE, 0},
	};

	(void)state;
	check_durations(c, sizeof(c) / sizeof(c[0]));
}

static void test_duration_malformed(void **state)
{
	static const struct dur_case c[] = {
		{"", -EINVAL, 0},     {"10abc", -EINVAL, 0},  {" 5", -EINVAL, 0},
		{"5 ", -EINVAL, 0},   {"-1", -EINVAL, 0},     {"-1s", -EINVAL, 0},
		{"+1s", -EINVAL, 0},  {"1 s", -EINVAL, 0},    {"s", -EINVAL, 0},
		{"ms", -EINVAL, 0},   {".5s", -EINVAL, 0},    {"1.s", -EINVAL, 0},
		{"1.", -EINVAL, 0},   {"1.5.5s", -EINVAL, 0}, {"1S", -EINVAL, 0},
		{"1sec", -EINVAL, 0}, {"1d", -EINVAL, 0},     {"1mss", -EINVAL, 0},
		{"1,5s", -EINVAL, 0}, {"1e3ms", -EINVAL, 0},  {"1.-5s", -EINVAL, 0},
	};
	uint64_t ms = SENTINEL;

	(void)state;
	check_durations(c, sizeof(c) / sizeof(c[0]));
	assert_int_equal(parse_duration_ms(NULL, &ms), -EINVAL);
}

static void test_pid_list_valid(void **state)
{
	pid_t *pids = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(parse_pid_list("1,2,3", &pids, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(pids[0], 1);
	assert_int_equal(pids[1], 2);
	assert_int_equal(pids[2], 3);
	free(pids);

	assert_int_equal(parse_pid_list("4242", &pids, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(pids[0], 4242);
	free(pids);

	assert_int_equal(parse_pid_list("1,22,333,2147483647", &pids, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(pids[0], 1);
	assert_int_equal(pids[1], 22);
	assert_int_equal(pids[2], 333);
	assert_int_equal(pids[3], INT32_MAX);
	free(pids);

	/* duplicates are kept as given; deduplication is the caller's business */
	assert_int_equal(parse_pid_list("7,7", &pids, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(pids[0], 7);
	assert_int_equal(pids[1], 7);
	free(pids);
}

static void test_pid_list_invalid(void **state)
{
	static const struct {
		const char *s;
		int err;
	} c[] = {
		{"", -EINVAL},
		{"1,,2", -EINVAL},
		{"1,", -EINVAL},
		{",1", -EINVAL},
		{",", -EINVAL},
		{"abc", -EINVAL},
		{"1,abc", -EINVAL},
		{"1, 2", -EINVAL},
		{" 1", -EINVAL},
		{"1 ", -EINVAL},
		{"1;2", -EINVAL},
		{"-1", -EINVAL},
		{"1,-2", -EINVAL},
		{"0", -ERANGE},
		{"1,0,3", -ERANGE},
		{"2147483648", -ERANGE},
		{"99999999999999999999", -ERANGE},
	};
	pid_t sentinel_pid = 99;
	pid_t *pids = &sentinel_pid;
	size_t n = 12345, i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int err = parse_pid_list(c[i].s, &pids, &n);

		if (err != c[i].err)
			fail_msg("parse_pid_list(\"%s\") = %d, want %d", c[i].s, err, c[i].err);
	}
	assert_int_equal(parse_pid_list(NULL, &pids, &n), -EINVAL);
	/* outputs untouched on failure */
	assert_ptr_equal(pids, &sentinel_pid);
	assert_int_equal(n, 12345);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64_valid),	   cmocka_unit_test(test_u64_malformed),
		cmocka_unit_test(test_u64_range),	   cmocka_unit_test(test_duration_units),
		cmocka_unit_test(test_duration_fractions), cmocka_unit_test(test_duration_range),
		cmocka_unit_test(test_duration_malformed), cmocka_unit_test(test_pid_list_valid),
		cmocka_unit_test(test_pid_list_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
