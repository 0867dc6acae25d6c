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

/* A message written in place is the bytes pb_message writes, for lengths of 1 to 3 bytes. */
static void test_open_close(void **state)
{
	const size_t sizes[] = {0, 1, 127, 128, 300, 16383, 16384, 70000};

	(void)state;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct pb a = PB_INIT, b = PB_INIT, inner = PB_INIT;
		size_t at;

		pb_uint(&a, 1, 7);
		pb_uint(&b, 1, 7);
		at = pb_open(&a, 5);
		for (size_t i = 0; i < sizes[k]; i++) {
			pb_varint(&a, i & 0x7f);
			pb_varint(&inner, i & 0x7f);
		}
		pb_close(&a, at);
		pb_message(&b, 5, &inner);
		pb_uint(&a, 2, 9);
		pb_uint(&b, 2, 9);
		assert_int_equal(pb_error(&a), 0);
		assert_int_equal(a.len, b.len);
		assert_memory_equal(a.buf, b.buf, a.len);
		pb_free(&a);
		pb_free(&b);
		pb_free(&inner);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varints),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_nested_and_packed),
		cmocka_unit_test(test_open_close),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
