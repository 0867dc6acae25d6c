// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>
#include "util/safe_regex.h"

struct re_case {
	const char *pattern;
	int err;
};

static void check(const struct re_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int err = regex_check(c[i].pattern);

		if (err != c[i].err)
			fail_msg("regex_check(\"%s\") = %d, want %d", c[i].pattern, err, c[i].err);
	}
}

static void test_ordinary_patterns(void **state)
{
	static const struct re_case c[] = {
		{"", 0},
		{"^(java|python3?)$", 0},
		{"worker-[0-9]{1,3}", 0},
		{"^ab[]{}]c{2}$", 0},
		{"[[:alpha:]]{1,100}", 0},
		{"a{1,990}", 0},
		{"((((((((a*)*)*)*)*)*)*)*)*", 0},
		{"\\{1,255\\}{1,255}", 0}, /* escaped braces are characters: one bound */
		{"a{", 0},		   /* malformed: regcomp's to refuse */
		{"(a", 0},
		{"a)", 0},
	};

	(void)state;
	check(c, sizeof(c) / sizeof(c[0]));
}

static void test_costly_patterns(void **state)
{
	static const struct re_case c[] = {
		/* the reported one: 24 GB in regcomp */
		{"((((((((a*)*)*)*)*)*)*)*)*{1,255}{1,255}{1,255}", -E2BIG},
		{"(a{1,40}){1,40}", -E2BIG}, /* 1600 nodes */
		{"a{1,1001}", -E2BIG},
		{"a{1001}", -E2BIG},
		{"a{1000,}", -E2BIG},
		{"(ab){1,600}", -E2BIG},
		{"[[:alpha:]]{1,40}{1,40}", -E2BIG},
		{"a{99999999999999999999}", -E2BIG}, /* no overflow of the count */
		{"(a{1,100}){1,100}{1,100}{1,100}{1,100}", -E2BIG},
		{"(a\\1)", -ENOTSUP},
		{"(a)(b)\\2", -ENOTSUP},
	};
	char deep[200], long_re[CP_REGEX_MAX_LEN + 2];

	(void)state;
	check(c, sizeof(c) / sizeof(c[0]));
	memset(deep, '(', 100);
	memset(deep + 100, ')', 99);
	deep[199] = 0;
	assert_int_equal(regex_check(deep), -E2BIG);
	memset(long_re, 'a', sizeof(long_re) - 1);
	long_re[sizeof(long_re) - 1] = 0;
	assert_int_equal(regex_check(long_re), -E2BIG);
}

static void test_safe_regcomp(void **state)
{
	regex_t re;
	char msg[160];

	(void)state;
	assert_int_equal(safe_regcomp(&re, "^wor?ker-[0-9]{1,3}$", REG_NOSUB, msg, sizeof(msg)), 0);
	assert_int_equal(regexec(&re, "worker-12", 0, NULL, 0), 0);
	assert_int_equal(regexec(&re, "worker-1234", 0, NULL, 0), REG_NOMATCH);
	regfree(&re);
	assert_int_equal(safe_regcomp(&re, "((((((((a*)*)*)*)*)*)*)*)*{1,255}{1,255}{1,255}",
				      REG_NOSUB, msg, sizeof(msg)),
			 -E2BIG);
	assert_non_null(strstr(msg, "too complex"));
	assert_int_equal(safe_regcomp(&re, "(a)\\1", REG_NOSUB, msg, sizeof(msg)), -ENOTSUP);
	assert_non_null(strstr(msg, "back-references"));
	assert_int_equal(safe_regcomp(&re, "a{2,1}", REG_NOSUB, msg, sizeof(msg)), -EINVAL);
	assert_true(msg[0] != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ordinary_patterns),
		cmocka_unit_test(test_costly_patterns),
		cmocka_unit_test(test_safe_regcomp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
