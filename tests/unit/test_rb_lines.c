// SPDX-License-Identifier: GPL-2.0
/*
 * Ruby line numbers: the rank of an instruction position in an iseq's succinct bit vector of
 * line-entry starts. Tables are built here from sets of start positions following the layout
 * (interp/rb_lines.h), and every rank is compared with a plain count; the walker's test
 * (test_rb_walk.c) checks the lines of a live Ruby 3.1's real tables.
 */
#include "cmocka_inc.h"
#include "interp/rb_lines.h"

#define MAX_POS 2200
#define BLOCKS	((MAX_POS - RB_SUCC_IMM_POSITIONS) / RB_SUCC_BLOCK_BITS + 1)

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The table of a set of starts (bits[pos] != 0), from the definition of each part. */
static void build(const uint8_t *bits, uint8_t *t, size_t size)
{
	uint32_t pos, count = 0;

	memset(t, 0, size);
	for (pos = 0; pos < RB_SUCC_IMM_POSITIONS; pos++) {
		uint8_t *w = t + pos / 9 * 8;

		count += bits[pos];
		put64(w, get64(w) | (uint64_t)count << (pos % 9 * 7));
	}
	for (pos = RB_SUCC_IMM_POSITIONS; pos < MAX_POS; pos++) {
		uint32_t rel = pos - RB_SUCC_IMM_POSITIONS, bit = rel % RB_SUCC_BLOCK_BITS;
		uint8_t *b = t + RB_SUCC_PART + rel / RB_SUCC_BLOCK_BITS * RB_SUCC_BLOCK_SIZE;

		if (bit == 0)
			memcpy(b, &count, 4); /* starts before the block */
		if (bit % 64 == 0 && bit) {
			/* starts in the block's words before this one */
			uint32_t in_block = 0, k;

			for (k = pos - bit; k < pos; k++)
				in_block += bits[k];
			put64(b + 8, get64(b + 8) | (uint64_t)in_block << ((bit / 64 - 1) * 9));
		}
		if (bits[pos])
			put64(b + 16 + 8 * (bit / 64),
			      get64(b + 16 + 8 * (bit / 64)) | 1ull << (bit % 64));
		count += bits[pos];
	}
}

static void check(const uint8_t *bits)
{
	static uint8_t t[RB_SUCC_PART + BLOCKS * RB_SUCC_BLOCK_SIZE];
	uint32_t pos, want = 0;

	build(bits, t, sizeof(t));
	for (pos = 0; pos < MAX_POS; pos++) {
		size_t off, len;

		want += bits[pos];
		rb_succ_span(pos, &off, &len);
		assert_true(off + len <= sizeof(t));
		if (rb_succ_rank(pos, t + off, len) != want)
			fail_msg("pos %u: rank %u, want %u", pos, rb_succ_rank(pos, t + off, len),
				 want);
	}
}

static void test_ranks(void **state)
{
	static uint8_t bits[MAX_POS];
	static const uint32_t some[] = {0,   3,	  7,   8,   9,	 52,  53,   54,	  55,  100,
					117, 118, 565, 566, 567, 630, 1077, 1078, 1500};
	uint32_t i, seed = 12345;

	(void)state;
	/* a few starts around every boundary: imm words, the imm part, blocks, words */
	memset(bits, 0, sizeof(bits));
	for (i = 0; i < sizeof(some) / sizeof(some[0]); i++)
		bits[some[i]] = 1;
	check(bits);
	/* dense: every position starts an entry (up to 127 in the imm part: 7 bits) */
	memset(bits, 1, sizeof(bits));
	check(bits);
	/* random */
	for (i = 0; i < MAX_POS; i++) {
		seed = seed * 1103515245u + 12345u;
		bits[i] = (seed >> 16) % 3 == 0;
	}
	bits[0] = 1; /* the first entry starts at 0 */
	check(bits);
}

static void test_short_buffer(void **state)
{
	uint8_t buf[RB_SUCC_BLOCK_SIZE] = {0};
	size_t off, len;

	(void)state;
	rb_succ_span(10, &off, &len);
	assert_int_equal(off, 8);
	assert_int_equal(len, 8);
	rb_succ_span(54 + 512 + 3, &off, &len);
	assert_int_equal(off, RB_SUCC_PART + RB_SUCC_BLOCK_SIZE);
	assert_int_equal(len, RB_SUCC_BLOCK_SIZE);
	assert_int_equal(rb_succ_rank(60, buf, RB_SUCC_BLOCK_SIZE - 1), 0);
	assert_int_equal(rb_succ_rank(5, buf, 7), 0);
	/* pc points past the instruction: position = index - 1, index 0 stays 0 */
	assert_int_equal(rb_insn_pos(0), 0);
	assert_int_equal(rb_insn_pos(1), 0);
	assert_int_equal(rb_insn_pos(7), 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranks),
		cmocka_unit_test(test_short_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
