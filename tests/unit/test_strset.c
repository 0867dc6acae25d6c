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
	assert_int_equal(set.n, 3);
	assert_int_equal(set.bytes,
			 strlen("libc.so.6") + strlen("ld.so") + strlen("[ext4]+0x10") + 3);
	strset_clear(&set);
	assert_null(set.slots);
	assert_int_equal(set.n, 0);
	strset_clear(&set); /* clearing an empty set is fine */
}

/*
 * Many strings (the table grows, blocks fill up), and strings longer than a block, which get
 * blocks of their own: every one is found again, at the same address, and reads the same.
 */
static void test_many(void **state)
{
	struct strset set = {0};
	static const char *ptrs[50000];
	char buf[64], *big = malloc(200000);

	(void)state;
	assert_non_null(big);
	memset(big, 'y', 199999);
	big[199999] = '\0';
	for (int i = 0; i < 50000; i++) {
		snprintf(buf, sizeof(buf), "[unknown]+0x%x", i * 16);
		ptrs[i] = strset_intern(&set, buf);
		assert_non_null(ptrs[i]);
		if (i == 100) {
			const char *b = strset_intern(&set, big);

			assert_non_null(b);
			assert_string_equal(b, big);
			assert_ptr_equal(strset_intern(&set, big), b);
		}
	}
	assert_int_equal(set.n, 50001);
	for (int i = 0; i < 50000; i++) {
		snprintf(buf, sizeof(buf), "[unknown]+0x%x", i * 16);
		assert_ptr_equal(strset_intern(&set, buf), ptrs[i]);
		assert_string_equal(ptrs[i], buf);
	}
	assert_string_equal(strset_intern(&set, ""), "");
	assert_ptr_equal(strset_intern(&set, ""), strset_intern(&set, ""));
	strset_clear(&set);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intern),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
