// SPDX-License-Identifier: GPL-2.0
/* The protobuf writer against bytes computed by hand from the wire-format rules. */
#include "cmocka_inc.h"
#include "output/pb.h"

#define BYTES(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

static void check(const struct pb *b, const uint8_t *want, size_t n)
{
	assert_int_equal(pb_error(b), 0);
	assert_int_equal(b->len, n);
	assert_memory_equal(b->buf, want, n);
}

static void test_varints(void **state)
{
	struct pb b = PB_INIT;

	(void)state;
	pb_varint(&b, 0);
	check(&b, BYTES(0x00));
	pb_reset(&b);
	pb_varint(&b, 1);
	pb_varint(&b, 127);
	check(&b, BYTES(0x01, 0x7f));
	pb_reset(&b);
	pb_varint(&b, 128);
	pb_varint(&b, 300);
	check(&b, BYTES(0x80, 0x01, 0xac, 0x02));
	pb_reset(&b);
	pb_varint(&b, UINT64_MAX);
	check(&b, BYTES(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01));
	pb_reset(&b);
	/* int64 -1 is ten bytes, two's complement, not zigzag */
	pb_int(&b, 1, -1);
	check(&b, BYTES(0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01));
	pb_free(&b);
}

static void test_fields(void **state)
{
	struct pb b = PB_INIT;

	(void)state;
	/* key = field << 3 | wire type */
	pb_uint(&b, 1, 150);
	check(&b, BYTES(0x08, 0x96, 0x01));
	pb_reset(&b);
	pb_uint(&b, 3, 0); /* a zero is the default: omitted */
	pb_bool(&b, 7, 0);
	check(&b, NULL, 0);
	pb_uint_always(&b, 3, 0);
	pb_bool(&b, 7, 1);
	check(&b, BYTES(0x18, 0x00, 0x38, 0x01));
	pb_reset(&b);
	/* field 16 needs a two-byte key */
	pb_uint(&b, 16, 1);
	check(&b, BYTES(0x80, 0x01, 0x01));
	pb_reset(&b);
	pb_string(&b, 2, "testing");
	check(&b, BYTES(0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g'));
	pb_reset(&b);
	pb_string(&b, 6, "");
	check(&b, BYTES(0x32, 0x00));
	pb_free(&b);
}

static void test_nested_and_packed(void **state)
{
	struct pb outer = PB_INIT, inner = PB_INIT;
	uint64_t v[] = {3, 270, 86942};

	(void)state;
	pb_uint(&inner, 1, 150);
	pb_message(&outer, 3, &inner);
	check(&outer, BYTES(0x1a, 0x03, 0x08, 0x96, 0x01));
	pb_reset(&outer);
	/* the protobuf guide's packed example: 22 06 03 8E 02 9E A7 05 (field 4) */
	pb_packed(&outer, 4, v, 3);
	check(&outer, BYTES(0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05));
	pb_reset(&outer);
	pb_packed(&outer, 4, v, 0);
	check(&outer, NULL, 0);
	pb_append(&outer, &inner);
	check(&outer, BYTES(0x08, 0x96, 0x01));
	pb_free(&outer);
	pb_free(&inner);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varints),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_nested_and_packed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
