// SPDX-License-Identifier: GPL-2.0
/* The one rule for foreign text: a table of hostile byte strings and what each becomes. */
#include "cmocka_inc.h"
#include "util/utf8safe.h"

#define FFFD "\xef\xbf\xbd"

struct row {
	const char *in;
	const char *out;  /* utf8safe_dup */
	const char *term; /* utf8safe_term_dup */
};

static const struct row rows[] = {
	/* clean text passes as it is, multi-byte characters too */
	{"", "", ""},
	{"main", "main", "main"},
	{"std::vector<int>::push_back(int const&)", "std::vector<int>::push_back(int const&)",
	 "std::vector<int>::push_back(int const&)"},
	{"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5 \xef\xbf\xbd",
	 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5 \xef\xbf\xbd",
	 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5 \xef\xbf\xbd"},
	/* markup is text: the writers escape it for their format */
	{"<!--<script>", "<!--<script>", "<!--<script>"},
	{"a;b", "a;b", "a;b"},
	/* U+2028, U+2029 are characters (the HTML writer escapes them) */
	{"\xe2\x80\xa8\xe2\x80\xa9", "\xe2\x80\xa8\xe2\x80\xa9", "\xe2\x80\xa8\xe2\x80\xa9"},
	/* the highest characters that are allowed */
	{"\xef\xbf\xbd\xf4\x8f\xbf\xbd", "\xef\xbf\xbd\xf4\x8f\xbf\xbd",
	 "\xef\xbf\xbd\xf4\x8f\xbf\xbd"},
	/* invalid UTF-8: each byte that starts no sequence */
	{"x\xff", "x" FFFD, "x\\xff"},
	{"\x80", FFFD, "\\x80"},
	{"\xc3", FFFD, "\\xc3"},	       /* truncated at the end */
	{"\xc3(", FFFD "(", "\\xc3("},	       /* bad continuation */
	{"\xe2\x82", FFFD FFFD, "\\xe2\\x82"}, /* truncated 3-byte */
	{"\xfe\xfe\xff\xff", FFFD FFFD FFFD FFFD, "\\xfe\\xfe\\xff\\xff"},
	{"\xf5\x80\x80\x80", FFFD FFFD FFFD FFFD, "\\xf5\\x80\\x80\\x80"}, /* F5: above U+10FFFF */
	/* overlong forms */
	{"\xc0\xaf", FFFD FFFD, "\\xc0\\xaf"},
	{"\xc1\xbf", FFFD FFFD, "\\xc1\\xbf"},
	{"\xe0\x80\xaf", FFFD FFFD FFFD, "\\xe0\\x80\\xaf"},
	{"\xf0\x80\x80\xaf", FFFD FFFD FFFD FFFD, "\\xf0\\x80\\x80\\xaf"},
	/* UTF-16 surrogates (CESU-8) */
	{"\xed\xa0\x80", FFFD FFFD FFFD, "\\xed\\xa0\\x80"},
	{"\xed\xbf\xbf", FFFD FFFD FFFD, "\\xed\\xbf\\xbf"},
	{"\xed\xa0\xbd\xed\xb4\xa5", FFFD FFFD FFFD FFFD FFFD FFFD,
	 "\\xed\\xa0\\xbd\\xed\\xb4\\xa5"},
	/* above U+10FFFF */
	{"\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD, "\\xf4\\x90\\x80\\x80"},
	/* noncharacters: one U+FFFD each */
	{"a\xef\xbf\xbe", "a" FFFD, "a\\xef\\xbf\\xbe"},			   /* U+FFFE */
	{"\xef\xbf\xbf", FFFD, "\\xef\\xbf\\xbf"},				   /* U+FFFF */
	{"\xef\xb7\x90\xef\xb7\xaf", FFFD FFFD, "\\xef\\xb7\\x90\\xef\\xb7\\xaf"}, /* FDD0 FDEF */
	{"\xf0\x9f\xbf\xbe", FFFD, "\\xf0\\x9f\\xbf\\xbe"},			   /* U+1FFFE */
	{"\xf4\x8f\xbf\xbf", FFFD, "\\xf4\\x8f\\xbf\\xbf"},			   /* U+10FFFF */
	/* control characters: C0 (tab, newline, CR too), DEL, C1 */
	{"\x1b]0;owned\x07", FFFD "]0;owned" FFFD, "\\x1b]0;owned\\x07"},
	{"\x1b[31mred", FFFD "[31mred", "\\x1b[31mred"},
	{"a\tb\nc\rd", "a" FFFD "b" FFFD "c" FFFD "d", "a\\x09b\\x0ac\\x0dd"},
	{"\x7f", FFFD, "\\x7f"},
	{"\xc2\x80\xc2\x9b[2J\xc2\x9f", FFFD FFFD "[2J" FFFD, "\\xc2\\x80\\xc2\\x9b[2J\\xc2\\x9f"},
	/* the first allowed after C1 */
	{"\xc2\xa0", "\xc2\xa0", "\xc2\xa0"},
};

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *out = utf8safe_dup(rows[i].in), *term = utf8safe_term_dup(rows[i].in);

		assert_non_null(out);
		assert_non_null(term);
		if (strcmp(out, rows[i].out) || strcmp(term, rows[i].term))
			fail_msg("row %zu: '%s' and '%s'", i, out, term);
		assert_int_equal(utf8safe_ok(rows[i].in), strcmp(rows[i].in, rows[i].out) == 0);
		/* what comes out passes the rule as it is */
		assert_true(utf8safe_ok(out));
		assert_true(utf8safe_ok(term));
		free(out);
		free(term);
	}
}

/* Cut at a character, never inside one; the return value is the whole length. */
static void test_copy_cut(void **state)
{
	char buf[8];

	(void)state;
	assert_int_equal(utf8safe_copy(buf, sizeof(buf), "ab\xe2\x82\xac\xe2\x82\xac"), 8);
	assert_string_equal(buf, "ab\xe2\x82\xac");
	assert_int_equal(utf8safe_copy(buf, sizeof(buf), "abcdef\xff"), 9);
	assert_string_equal(buf, "abcdef");
	/* a smaller character after the one that did not fit does not slip in */
	assert_int_equal(utf8safe_copy(buf, 6, "abc\xf0\x9f\x94\xa5z"), 8);
	assert_string_equal(buf, "abc");
	assert_int_equal(utf8safe_term(buf, sizeof(buf), "a\x1b"), 5);
	assert_string_equal(buf, "a\\x1b");
	assert_int_equal(utf8safe_copy(NULL, 0, "x\xff"), 4);
	assert_int_equal(utf8safe_copy(buf, 1, "xyz"), 3);
	assert_string_equal(buf, "");
}

/* Every 1- and 2-byte string: the output passes the rule and is the input when it did. */
static void test_exhaustive(void **state)
{
	char in[3] = {0}, out[16];

	(void)state;
	for (int a = 1; a < 256; a++)
		for (int b = 0; b < 256; b++) {
			in[0] = (char)a;
			in[1] = (char)b;
			utf8safe_copy(out, sizeof(out), in);
			assert_true(utf8safe_ok(out));
			if (utf8safe_ok(in))
				assert_string_equal(out, in);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_copy_cut),
		cmocka_unit_test(test_exhaustive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
