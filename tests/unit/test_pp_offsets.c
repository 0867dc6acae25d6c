// SPDX-License-Identifier: GPL-2.0
/*
 * The PHP and Perl offset tables (interp/php_detect.h, interp/pl_detect.h) against the
 * installed interpreters' headers, as the compiler lays them out
 * (scripts/php-offsets-headers.sh: php8.2-dev; scripts/perl-offsets-headers.sh: perl.h), and
 * the constants of bpf/php_shared.h and bpf/perl_shared.h against the headers' own; the version
 * parsing and the version ranges the tables cover.
 */
#include <stddef.h>
#include <linux/types.h>
#include "cmocka_inc.h"
#include "interp/php_detect.h"
#include "interp/pl_detect.h"

struct field {
	const char *name;
	size_t at; /* offsetof in the table's struct (a __u16), or SIZE_MAX: a constant */
	unsigned long value;
};

#define PHP_F(m)                                          \
	{                                                 \
#m, offsetof(struct cp_php_offsets, m), 0 \
	}
#define PL_F(m)                                          \
	{                                                \
#m, offsetof(struct cp_pl_offsets, m), 0 \
	}
#define C(name, v)                \
	{                         \
		name, SIZE_MAX, v \
	}

static const struct field PHP_FIELDS[] = {
	PHP_F(eg_current_execute_data),
	PHP_F(ed_opline),
	PHP_F(ed_func),
	PHP_F(ed_type_info),
	PHP_F(ed_prev),
	PHP_F(func_name),
	PHP_F(func_scope),
	PHP_F(op_filename),
	PHP_F(op_line_start),
	PHP_F(opline_lineno),
	PHP_F(zstr_val),
	PHP_F(ce_name),
	C("func_type", 0), /* the walker reads the type as the first byte */
	C("INTERNAL_FUNCTION", CP_PHP_INTERNAL_FUNCTION),
	C("USER_FUNCTION", CP_PHP_USER_FUNCTION),
	C("EVAL_CODE", CP_PHP_EVAL_CODE),
	C("CALL_TOP", CP_PHP_CALL_TOP),
	C("CALL_CODE", CP_PHP_CALL_CODE),
	C("zts", 0), /* NTS: executor_globals is a plain global */
};

static const struct field PL_FIELDS[] = {
	PL_F(interp_curcop),
	PL_F(interp_curstackinfo),
	PL_F(si_cxstack),
	PL_F(si_prev),
	PL_F(si_cxix),
	PL_F(si_type),
	PL_F(cx_size),
	PL_F(cx_oldcop),
	PL_F(cx_retop),
	PL_F(cx_cv),
	PL_F(cop_line),
	PL_F(cop_file),
	PL_F(sv_any),
	PL_F(sv_flags),
	PL_F(sv_u),
	PL_F(xcv_stash),
	PL_F(xcv_gv),
	PL_F(xcv_flags),
	PL_F(gp_egv),
	PL_F(gp_cv),
	PL_F(xcv_file),
	PL_F(xgv_namehek),
	PL_F(xgv_stash),
	PL_F(xhv_aux),
	PL_F(xhv_max),
	PL_F(aux_name),
	PL_F(aux_name_count),
	PL_F(hek_key),
	C("cx_type", 0), /* the walker reads the type as the context's first byte */
	C("CXTYPEMASK", CP_PL_CXTYPEMASK),
	C("CXt_SUB", CP_PL_CXt_SUB),
	C("CXt_FORMAT", CP_PL_CXt_FORMAT),
	C("CXp_SUB_RE_FAKE", CP_PL_CXp_SUB_RE_FAKE),
	C("SVt_PVGV", CP_PL_SVt_PVGV),
	C("SVt_PVCV", CP_PL_SVt_PVCV),
	C("SVpgv_GP", CP_PL_SVpgv_GP),
	C("CVf_NAMED", CP_PL_CVf_NAMED),
	C("PERLSI_MAIN", CP_PL_PERLSI_MAIN),
	C("SVf_OOK", CP_PL_SVf_OOK),
};

/* Compare the script's "name value" lines with fields of table (a struct of __u16s); every
 * field must be met once. */
static void compare(FILE *f, const void *table, const struct field *fields, size_t n)
{
	char name[64], val[32];
	size_t met = 0, k;

	while (fscanf(f, "%63s %31s", name, val) == 2) {
		unsigned long v = strtoul(val, NULL, 0);

		for (k = 0; k < n; k++) {
			unsigned long want = fields[k].value;

			if (strcmp(fields[k].name, name))
				continue;
			if (fields[k].at != SIZE_MAX)
				want = *(const __u16 *)((const char *)table + fields[k].at);
			if (v != want)
				fail_msg("%s is %lu in the table, %lu in the headers", name, want,
					 v);
			met++;
		}
	}
	print_message("%zu of %zu fields and constants agree with the headers\n", met, n);
	assert_int_equal(met, n);
}

static void test_php_headers(void **state)
{
	struct cp_php_offsets o;
	unsigned int maj, min, patch;
	FILE *f;

	(void)state;
	if (system("command -v php-config >/dev/null 2>&1")) {
		cp_skip("no php-config (php8.2-dev: make deps)");
		return;
	}
	f = tool_output("scripts/php-offsets-headers.sh");
	assert_int_equal(fscanf(f, "version %u.%u.%u\n", &maj, &min, &patch), 3);
	assert_int_equal(php_offsets_table(CP_PHP_VER(maj, min, patch), &o), 0);
	compare(f, &o, PHP_FIELDS, sizeof(PHP_FIELDS) / sizeof(PHP_FIELDS[0]));
	tool_done(f);
}

static void test_perl_headers(void **state)
{
	struct cp_pl_offsets o;
	unsigned int maj, min, patch;
	FILE *f;

	(void)state;
	if (system("perl -MExtUtils::Embed -e ccopts >/dev/null 2>&1 && "
		   "test -f \"$(perl -MConfig -e 'print $Config{archlib}')/CORE/perl.h\"")) {
		cp_skip("no perl.h (make deps)");
		return;
	}
	f = tool_output("scripts/perl-offsets-headers.sh");
	assert_int_equal(fscanf(f, "version %u.%u.%u\n", &maj, &min, &patch), 3);
	assert_int_equal(pl_offsets_table(CP_PL_VER(maj, min, patch), &o), 0);
	compare(f, &o, PL_FIELDS, sizeof(PL_FIELDS) / sizeof(PL_FIELDS[0]));
	tool_done(f);
}

static void test_versions(void **state)
{
	struct cp_php_offsets p;
	struct cp_pl_offsets l;

	(void)state;
	assert_int_equal(php_version_parse("8.2.36\n", 7), CP_PHP_VER(8, 2, 36));
	assert_int_equal(php_version_parse("7.4.3-4ubuntu", 13), CP_PHP_VER(7, 4, 3));
	assert_int_equal(php_version_parse("8.2", 3), 0);
	assert_int_equal(php_version_parse("x.2.3", 5), 0);
	assert_int_equal(php_version_parse("8.2.", 4), 0);
	/* the tables: PHP 7.3-8.5, Perl 5.28-5.42; op_array moves, EG grows in 8.5 */
	assert_int_equal(php_offsets_table(CP_PHP_VER(7, 2, 9), &p), -ENOTSUP);
	assert_int_equal(php_offsets_table(CP_PHP_VER(8, 6, 0), &p), -ENOTSUP);
	assert_int_equal(php_offsets_table(CP_PHP_VER(8, 3, 1), &p), 0);
	assert_int_equal(p.op_filename, 144);
	assert_int_equal(php_offsets_table(CP_PHP_VER(8, 5, 0), &p), 0);
	assert_int_equal(p.eg_current_execute_data, 512);
	assert_int_equal(pl_offsets_table(CP_PL_VER(5, 26, 0), &l), -ENOTSUP);
	assert_int_equal(pl_offsets_table(CP_PL_VER(5, 43, 0), &l), -ENOTSUP);
	assert_int_equal(pl_offsets_table(CP_PL_VER(5, 30, 0), &l), 0);
	assert_int_equal(l.xhv_aux, CP_PL_AUX_AFTER_BUCKETS);
	assert_int_equal(l.cx_size, 0x60);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_php_headers),
		cmocka_unit_test(test_perl_headers),
		cmocka_unit_test(test_versions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
