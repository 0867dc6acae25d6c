// SPDX-License-Identifier: GPL-2.0
/* strset: one copy per distinct string, equal strings give equal pointers. */
#include "cmocka_inc.h"
#include "util/strset.h"

static void test_intern(void **state)
{
	struct strset set = {0};
	char buf[16];
	const char *a, *b, *c;

	(void)state;
	a = strset_intern(&set, "libc.so.6");
	strcpy(buf, "libc.so.6");
	b = strset_intern(&set, buf);
	assert_non_null(a);
	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, buf);
	c = strset_intern(&set, "ld.so");
	assert_ptr_not_equal(a, c);
	assert_string_equal(c, "ld.so");
	assert_ptr_equal(strset_internf(&set, "%s.%d", "libc.so", 6), a);
	assert_string_equal(strset_internf(&set, "[%s]+0x%x", "ext4", 0x10), "[ext4]+0x10");
	strset_clear(&set);
	assert_null(set.root);
	strset_clear(&set); /* clearing an empty set is fine */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intern),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
