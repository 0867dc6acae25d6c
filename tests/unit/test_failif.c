// SPDX-License-Identifier: GPL-2.0
/* --fail-if expressions: what parses, what is refused and why, and what holds on a diff. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmocka_inc.h"
#include "output/failif.h"

static struct failif parse_ok(const char *s)
{
	struct failif f;
	char why[160];

	if (failif_parse(s, &f, why, sizeof(why)))
		fail_msg("'%s' refused: %s", s, why);
	return f;
}

static void refused(const char *s, const char *why_part)
{
	struct failif f;
	char why[160] = "";

	if (failif_parse(s, &f, why, sizeof(why)) != -EINVAL)
		fail_msg("'%s' accepted", s);
	if (!strstr(why, why_part))
		fail_msg("'%s': reason '%s' lacks '%s'", s, why, why_part);
}

static void test_parse(void **state)
{
	struct failif f;

	(void)state;
	f = parse_ok("total(parse_*) > +5%");
	assert_int_equal(f.metric, FAILIF_TOTAL);
	assert_int_equal(f.op, FAILIF_GT);
	assert_string_equal(f.glob, "parse_*");
	assert_true(f.value == 5.0);
	assert_string_equal(f.text, "total(parse_*) > +5%");
	f = parse_ok("self(any)>=+10.5%");
	assert_int_equal(f.metric, FAILIF_SELF);
	assert_int_equal(f.op, FAILIF_GE);
	assert_string_equal(f.glob, "*");
	assert_true(f.value == 10.5);
	f = parse_ok("  total( std::vector<int>::push_back ) < -2% ");
	assert_string_equal(f.glob, "std::vector<int>::push_back");
	assert_int_equal(f.op, FAILIF_LT);
	assert_true(f.value == -2.0);
	f = parse_ok("total(x) <= 3%");
	assert_int_equal(f.op, FAILIF_LE);
	f = parse_ok("samples < 100");
	assert_int_equal(f.metric, FAILIF_SAMPLES);
	assert_true(f.value == 100.0);
}

static void test_refused(void **state)
{
	(void)state;
	refused("", "expected total(GLOB)");
	refused("totals(x) > 5%", "expected '('");
	refused("total x > 5%", "expected '('");
	refused("total(x > 5%", "missing ')'");
	refused("total() > 5%", "empty function pattern");
	refused("total(x) = 5%", "comparison");
	refused("total(x) >> 5%", "change in points");
	refused("total(x) >", "missing the value");
	refused("total(x) > 5", "needs a '%'");
	refused("total(x) > +five%", "not a number");
	refused("total(x) > 500%", "within -100% and +100%");
	refused("total(x) > 5% and more", "unexpected text");
	refused("samples < 1.5", "whole number");
	refused("samples < -3", "whole number");
	refused("cpu(x) > 5%", "expected total(GLOB)");
}

static void test_eval(void **state)
{
	struct top base = {0}, new = {0};
	struct top_row b[] = {{(char *)"parse_json", 10, 30}, {(char *)"render", 20, 50}};
	struct top_row n[] = {{(char *)"parse_json", 30, 60}, {(char *)"render", 10, 30}};
	struct failif f;
	struct diff d;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	base.rows = b;
	base.n = 2;
	base.samples = 100;
	new.rows = n;
	new.n = 2;
	new.samples = 100;
	assert_int_equal(diff_compute(&base, &new, &d), 0);
	assert_string_equal(d.rows[0].key, "parse_json");
	assert_true(diff_total_change(&d, &d.rows[0]) == 30.0);
	f = parse_ok("total(parse_*) > +10%");
	assert_int_equal(failif_eval(&f, &d, "a", "b", out), 1);
	f = parse_ok("total(render) > +10%");
	assert_int_equal(failif_eval(&f, &d, "a", "b", out), 0);
	f = parse_ok("total(any) < -10%");
	assert_int_equal(failif_eval(&f, &d, "a", "b", out), 1);
	f = parse_ok("self(any) > +10%");
	assert_int_equal(failif_eval(&f, &d, "a", "b", out), 1);
	f = parse_ok("total(parse_json) > +30%");
	assert_int_equal(failif_eval(&f, &d, "a", "b", out), 0);
	f = parse_ok("total(parse_json) >= +30%");
	assert_int_equal(failif_eval(&f, &d, "a", "b", out), 1);
	f = parse_ok("samples < 100");
	assert_int_equal(failif_eval(&f, &d, "a", "b", out), 0);
	f = parse_ok("samples < 101");
	assert_int_equal(failif_eval(&f, &d, "a", "b", out), 2);
	fclose(out);
	assert_non_null(strstr(buf, "fail-if 'total(parse_*) > +10%': parse_json total 30.00% -> "
				    "60.00% (+30.00 points)\n"));
	assert_non_null(strstr(buf, "fail-if 'samples < 101': a has 100 samples\n"));
	free(buf);
	diff_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_eval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
