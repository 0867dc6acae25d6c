// SPDX-License-Identifier: GPL-2.0
/*
 * cfi_eval on hand-made CFA programs: the rows a sane program reports, and hostile operands
 * (offsets whose factored value does not fit 64 bits, a location going backwards) rejected as
 * malformed instead of overflowing or reporting rows out of order. Run under UBSan
 * (make SANITIZE=1), an overflow here is a failure of its own.
 */
#include <string.h>
#include "cmocka_inc.h"
#include "unwind/cfi_eval.h"

#define MAX_ROWS 8

struct rows {
	size_t n;
	uint64_t pc[MAX_ROWS];
	int64_t cfa_off[MAX_ROWS];
	int64_t ra_off[MAX_ROWS];
};

static int on_row(void *arg, uint64_t pc, const struct cfi_state *s)
{
	struct rows *r = arg;

	if (r->n == MAX_ROWS)
		return -E2BIG;
	r->pc[r->n] = pc;
	r->cfa_off[r->n] = s->cfa_off;
	r->ra_off[r->n] = s->ra.off;
	r->n++;
	return 0;
}

/* gcc's CIE: code factor 1, data factor -8, absolute 8-byte set_loc operands */
static const struct cfi_section sec = {NULL, 0};
static const struct cfi_frame frame = {.caf = 1, .daf = -8, .enc = 0x04 /* udata8 */, .sec = &sec};

/* Run prog as the FDE of [0x1000, 0x1100) from CFA rsp+8. */
static int run(const uint8_t *prog, size_t len, struct rows *r)
{
	struct cfi_state s = {.cfa_reg = CFI_REG_RSP, .cfa_off = 8};

	memset(r, 0, sizeof(*r));
	return cfi_eval(&frame, prog, prog + len, &s, 0x1000, 0x1100, on_row, r);
}

static void test_rows(void **state)
{
	/* advance 1; CFA rsp+16; rbp at CFA-16; advance 3; CFA rsp+8; return address at CFA-8 */
	static const uint8_t prog[] = {0x41, 0x0e, 0x10, 0x86, 0x02, 0x43, 0x0e, 0x08, 0x90, 0x01};
	struct rows r;

	(void)state;
	assert_int_equal(run(prog, sizeof(prog), &r), 0);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.pc[0], 0x1000);
	assert_int_equal(r.cfa_off[0], 8);
	assert_int_equal(r.pc[1], 0x1001);
	assert_int_equal(r.cfa_off[1], 16);
	assert_int_equal(r.pc[2], 0x1004);
	assert_int_equal(r.cfa_off[2], 8);
	assert_int_equal(r.ra_off[2], -8);
}

/* LEB128 operands at the edges of 64 bits */
#define ULEB_INT64_MAX 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f
#define ULEB_2_63      0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01
#define SLEB_INT64_MIN 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f

static void expect_malformed(const uint8_t *prog, size_t len, const char *what)
{
	struct rows r;
	int err = run(prog, len, &r);

	if (err != -EINVAL)
		fail_msg("%s: %d, not -EINVAL", what, err);
	/* what came before the bad operand stands, in order */
	for (size_t i = 1; i < r.n; i++)
		assert_true(r.pc[i] > r.pc[i - 1]);
}

#define MALFORMED(...)                                        \
	do {                                                  \
		static const uint8_t p[] = {__VA_ARGS__};     \
		expect_malformed(p, sizeof(p), #__VA_ARGS__); \
	} while (0)

static void test_offset_overflow(void **state)
{
	(void)state;
	MALFORMED(0x90, ULEB_INT64_MAX);       /* DW_CFA_offset r16 */
	MALFORMED(0x90, ULEB_2_63);	       /* beyond int64_t */
	MALFORMED(0x05, 0x10, ULEB_INT64_MAX); /* DW_CFA_offset_extended */
	MALFORMED(0x11, 0x10, SLEB_INT64_MIN); /* DW_CFA_offset_extended_sf */
	MALFORMED(0x2f, 0x10, ULEB_2_63);      /* DW_CFA_GNU_negative_offset_extended */
	MALFORMED(0x2f, 0x10, ULEB_INT64_MAX);
	MALFORMED(0x14, 0x10, ULEB_INT64_MAX); /* DW_CFA_val_offset */
	MALFORMED(0x15, 0x10, SLEB_INT64_MIN); /* DW_CFA_val_offset_sf */
	MALFORMED(0x12, 0x07, SLEB_INT64_MIN); /* DW_CFA_def_cfa_sf */
	MALFORMED(0x13, SLEB_INT64_MIN);       /* DW_CFA_def_cfa_offset_sf */
	MALFORMED(0x0c, 0x07, ULEB_2_63);      /* DW_CFA_def_cfa */
	MALFORMED(0x0e, ULEB_2_63);	       /* DW_CFA_def_cfa_offset */
}

/* The largest offsets that do fit are still taken. */
static void test_offset_limits(void **state)
{
	static const uint8_t prog[] = {0x0e, ULEB_INT64_MAX, 0x41, 0x13, 0x01};
	struct rows r;

	(void)state;
	assert_int_equal(run(prog, sizeof(prog), &r), 0);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.cfa_off[0], INT64_MAX);
	assert_int_equal(r.cfa_off[1], -8);
}

/* A location that goes back (set_loc, or an advance that wraps) is malformed. */
static void test_location_backwards(void **state)
{
	static const uint8_t set_loc[] = {0x54, 0x0e, 0x10, 0x01, 0x00, 0x10, 0, 0, 0, 0, 0, 0};
	static const uint8_t wrap[] = {0x54, 0x04, 0xff, 0xff, 0xff, 0xff};
	struct rows r;

	(void)state;
	assert_int_equal(run(set_loc, sizeof(set_loc), &r), -EINVAL);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.pc[0], 0x1000);
	assert_int_equal(r.pc[1], 0x1014);
	/* an advance_loc4 by 0xffffffff with a code factor of 2^32: pc wraps back */
	{
		struct cfi_frame f = frame;
		struct cfi_state s = {.cfa_reg = CFI_REG_RSP, .cfa_off = 8};

		f.caf = 1ull << 32;
		memset(&r, 0, sizeof(r));
		assert_int_equal(
			cfi_eval(&f, wrap, wrap + sizeof(wrap), &s, 0x1000, 0x1100, on_row, &r),
			-EINVAL);
	}
	/* a set_loc forward is fine */
	{
		static const uint8_t fwd[] = {0x01, 0x20, 0x10, 0, 0, 0, 0, 0, 0, 0x0e, 0x10};

		assert_int_equal(run(fwd, sizeof(fwd), &r), 0);
		assert_int_equal(r.n, 2);
		assert_int_equal(r.pc[1], 0x1020);
		assert_int_equal(r.cfa_off[1], 16);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_offset_overflow),
		cmocka_unit_test(test_offset_limits),
		cmocka_unit_test(test_location_backwards),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
