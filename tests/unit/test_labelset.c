// SPDX-License-Identifier: GPL-2.0
/*
 * util/labelset: a sample's labels as one string (sorted, escaped), read back label by label,
 * and trace and span IDs from their hex and W3C traceparent forms.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>
#include "util/labelset.h"

/* Sorted by key, then value; separators as themselves, the escaped bytes as %XX. */
static void test_encode(void **state)
{
	struct label v[] = {
		{"trace_id", "abc"}, {"k,1", "a=b;c%d"}, {"b", ""}, {"b", "\n"}, {"z", "é ok"},
	};
	char out[256];

	(void)state;
	assert_int_equal(labelset_encode(v, 5, out, sizeof(out)), 0);
	assert_string_equal(out, "b=,b=%0A,k%2C1=a%3Db%3Bc%25d,trace_id=abc,z=é ok");
	assert_int_equal(labelset_encode(v, 0, out, sizeof(out)), 0);
	assert_string_equal(out, "");
	/* too small: "" and -ENOSPC, never a cut set */
	assert_int_equal(labelset_encode(v, 5, out, 20), -ENOSPC);
	assert_string_equal(out, "");
	/* an empty key is no label */
	v[0].key = "";
	assert_int_equal(labelset_encode(v, 1, out, sizeof(out)), -EINVAL);
}

/* What encode wrote reads back key by key, value by value. */
static void test_next_get(void **state)
{
	struct label v[] = {{"span_id", "00f067aa0ba902b7"}, {"k,=;%", "v,=;%\x01"}};
	char set[256], k[64], val[64], small[4];
	const char *pos = set;

	(void)state;
	assert_int_equal(labelset_encode(v, 2, set, sizeof(set)), 0);
	assert_true(labelset_next(&pos, k, sizeof(k), val, sizeof(val)));
	assert_string_equal(k, "k,=;%");
	assert_string_equal(val, "v,=;%\x01");
	assert_true(labelset_next(&pos, k, sizeof(k), val, sizeof(val)));
	assert_string_equal(k, "span_id");
	assert_string_equal(val, "00f067aa0ba902b7");
	assert_false(labelset_next(&pos, k, sizeof(k), val, sizeof(val)));
	assert_true(labelset_get(set, "span_id", val, sizeof(val)));
	assert_string_equal(val, "00f067aa0ba902b7");
	assert_false(labelset_get(set, "span", val, sizeof(val)));
	assert_false(labelset_get("", "span_id", val, sizeof(val)));
	/* cut to the buffer */
	assert_true(labelset_get(set, "span_id", small, sizeof(small)));
	assert_string_equal(small, "00f");
}

/* A set from another hand: reordered and escaped as encode would. */
static void test_canon(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(labelset_canon("z=1,a=%3b,m=", out, sizeof(out)), 0);
	assert_string_equal(out, "a=%3B,m=,z=1");
	assert_int_equal(labelset_canon("", out, sizeof(out)), 0);
	assert_string_equal(out, "");
	assert_int_equal(labelset_canon("=v", out, sizeof(out)), -EINVAL);
}

static void test_ids(void **state)
{
	static const uint8_t trace[16] = {0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6,
					  0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36};
	static const uint8_t span[8] = {0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7};
	const char *tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
	uint8_t id[16];

	(void)state;
	assert_int_equal(labelset_id("4bf92f3577b34da6a3ce929d0e0e4736", id, 16), 0);
	assert_memory_equal(id, trace, 16);
	assert_int_equal(labelset_id("4BF92F3577B34DA6A3CE929D0E0E4736", id, 16), 0);
	assert_memory_equal(id, trace, 16);
	assert_int_equal(labelset_id("00f067aa0ba902b7", id, 8), 0);
	assert_memory_equal(id, span, 8);
	/* W3C traceparent: its trace ID, its parent (span) ID */
	assert_int_equal(labelset_id(tp, id, 16), 0);
	assert_memory_equal(id, trace, 16);
	assert_int_equal(labelset_id(tp, id, 8), 0);
	assert_memory_equal(id, span, 8);
	/* wrong length, not hex, all zeros (no ID), another size */
	assert_int_equal(labelset_id("4bf92f3577b34da6a3ce929d0e0e473", id, 16), -EINVAL);
	assert_int_equal(labelset_id("4bf92f3577b34da6a3ce929d0e0e473g", id, 16), -EINVAL);
	assert_int_equal(labelset_id("00000000000000000000000000000000", id, 16), -EINVAL);
	assert_int_equal(labelset_id("00f067aa0ba902b7", id, 16), -EINVAL);
	assert_int_equal(labelset_id("00f067aa", id, 4), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_next_get),
		cmocka_unit_test(test_canon),
		cmocka_unit_test(test_ids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
