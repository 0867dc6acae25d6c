// SPDX-License-Identifier: GPL-2.0
/*
 * The Ruby offsets table: the entry chosen for each version (the fields that move between
 * minor versions), and the entries checked against the compiler's own layout of every Ruby
 * installed with its rb_mjit_min_header (scripts/rb-offsets-mjit.sh; Debian's ruby3.1-dev),
 * frame flag constants included.
 */
#include <glob.h>
#include "cmocka_inc.h"
#include "interp/rb_offsets.h"

static void test_select(void **state)
{
	struct cp_rb_offsets o;

	(void)state;
	assert_int_equal(rb_offsets_table(CP_RB_VER(3, 1, 2), &o), 0);
	assert_int_equal(o.version, CP_RB_VER(3, 1, 2));
	assert_int_equal(o.cfp_size, 64); /* jit_return (3.1) */
	assert_int_equal(o.body_insns_info, 120);
	assert_int_equal(o.insn_info_size, 12);
	assert_int_equal(o.rstring_embed, 16);
	assert_int_equal(o.ractor_running_ec, 0x208);
	assert_int_equal(o.last_op_id, 0xa9);

	assert_int_equal(rb_offsets_table(CP_RB_VER(2, 6, 10), &o), 0);
	assert_int_equal(o.cfp_size, 56);
	assert_int_equal(o.insn_info_size, 8);
	assert_int_equal(o.ractor_running_ec, CP_RB_NONE); /* no ractors before 3.0 */

	assert_int_equal(rb_offsets_table(CP_RB_VER(3, 2, 4), &o), 0);
	assert_int_equal(o.cfp_size, 64);
	assert_int_equal(o.body_insns_info, 112); /* 8 bytes earlier from 3.2 */
	assert_int_equal(o.body_succ_index, 136);
	assert_int_equal(o.rstring_embed, 24); /* variable-width allocation */

	assert_int_equal(rb_offsets_table(CP_RB_VER(3, 3, 0), &o), 0);
	assert_int_equal(o.cfp_size, 56); /* bp removed */
	assert_int_equal(o.ractor_running_ec, 0x180);

	/* outside 2.6-3.3 */
	assert_int_equal(rb_offsets_table(CP_RB_VER(2, 5, 9), &o), -ENOTSUP);
	assert_int_equal(rb_offsets_table(CP_RB_VER(3, 4, 0), &o), -ENOTSUP);
	assert_int_equal(rb_offsets_table(0, &o), -ENOTSUP);
}

static void test_fields(void **state)
{
	struct cp_rb_offsets o;
	const char *names[64];
	size_t n, i, j;
	__u16 v;

	(void)state;
	assert_int_equal(rb_offsets_table(CP_RB_VER(3, 1, 0), &o), 0);
	for (n = 0; rb_offsets_field(&o, n, &names[n], &v); n++) {
		assert_true(n < 64);
		for (j = 0; j < n; j++)
			assert_string_not_equal(names[j], names[n]);
	}
	assert_true(n >= 25);
	/* the BPF walker's fields */
	for (i = 0; rb_offsets_field(&o, i, &names[0], &v); i++)
		if (!strcmp(names[0], "cfp.size"))
			assert_int_equal(v, 64);
}

/* "0x55550001" or "16" */
static unsigned long num(const char *s)
{
	return strtoul(s, NULL, 0);
}

static void test_against_mjit_header(void **state)
{
	glob_t g;
	size_t h, compared_total = 0;

	(void)state;
	if (glob("/usr/include/*/ruby-*/rb_mjit_min_header-*.h", 0, NULL, &g) || !g.gl_pathc) {
		globfree(&g);
		cp_skip("no rb_mjit_min_header (ruby3.1-dev: make deps)");
		return;
	}
	for (h = 0; h < g.gl_pathc; h++) {
		struct cp_rb_offsets o;
		char name[64], val[32];
		size_t compared = 0, consts = 0;
		unsigned int maj, min, teeny;
		FILE *f;

		f = tool_output("scripts/rb-offsets-mjit.sh '%s'", g.gl_pathv[h]);
		assert_int_equal(fscanf(f, "version %u.%u.%u\n", &maj, &min, &teeny), 3);
		assert_int_equal(rb_offsets_table(CP_RB_VER(maj, min, teeny), &o), 0);
		while (fscanf(f, "%63s %31s", name, val) == 2) {
			const char *fname;
			size_t k;
			__u16 v;

			if (!strcmp(name, "frame.magic_cfunc")) {
				assert_int_equal(num(val), CP_RB_FRAME_MAGIC_CFUNC);
				consts++;
			} else if (!strcmp(name, "frame.magic_mask")) {
				assert_int_equal(num(val), CP_RB_FRAME_MAGIC_MASK);
				consts++;
			} else if (!strcmp(name, "frame.flag_finish")) {
				assert_int_equal(num(val), CP_RB_FRAME_FLAG_FINISH);
				consts++;
			} else if (!strcmp(name, "frame.flag_cframe")) {
				assert_int_equal(num(val), CP_RB_FRAME_FLAG_CFRAME);
				consts++;
			} else if (!strcmp(name, "insn_info.line_no")) {
				assert_int_equal(num(val), 0); /* rb_proc.c reads it first */
				consts++;
			}
			for (k = 0; rb_offsets_field(&o, k, &fname, &v); k++) {
				if (strcmp(fname, name))
					continue;
				compared++;
				if (num(val) != v)
					fail_msg("%s: %s is %u in the table, %lu in the header",
						 g.gl_pathv[h], name, v, num(val));
			}
		}
		tool_done(f);
		print_message("%s: %zu fields and %zu constants agree\n", g.gl_pathv[h], compared,
			      consts);
		assert_true(compared >= 25);
		assert_int_equal(consts, 5);
		compared_total += compared;
	}
	globfree(&g);
	assert_true(compared_total > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_against_mjit_header),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
