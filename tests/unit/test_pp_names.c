// SPDX-License-Identifier: GPL-2.0
/*
 * interp/pp_names: PHP and Perl frame names from what BPF copied (struct cp_pp_name), the
 * runtime of each kind, and names the process wrote that are not text or not terminated.
 */
#include <linux/types.h>
#include "cmocka_inc.h"
#include "interp/pp_names.h"

static void name_of(uint8_t kind, uint8_t flags, const char *scope, const char *func, char *buf,
		    size_t size)
{
	struct cp_pp_frame f = {.ptr = 1, .line = 3, .kind = kind, .flags = flags};
	struct cp_pp_name nm;

	memset(&nm, 0, sizeof(nm));
	nm.kind = kind;
	snprintf(nm.scope, sizeof(nm.scope), "%s", scope);
	snprintf(nm.func, sizeof(nm.func), "%s", func);
	pp_name_format(&f, &nm, buf, size);
}

static void test_names(void **state)
{
	char buf[256];

	(void)state;
	name_of(CP_PP_K_PHP_USER, 0, "Work", "leaf", buf, sizeof(buf));
	assert_string_equal(buf, "Work::leaf");
	name_of(CP_PP_K_PHP_USER, 0, "", "run", buf, sizeof(buf));
	assert_string_equal(buf, "run");
	name_of(CP_PP_K_PHP_INTERNAL, 0, "", "str_repeat", buf, sizeof(buf));
	assert_string_equal(buf, "str_repeat");
	name_of(CP_PP_K_PHP_CODE, CP_PP_FF_ENTRY, "", "", buf, sizeof(buf));
	assert_string_equal(buf, "{main}");
	name_of(CP_PP_K_PHP_CODE, 0, "", "", buf, sizeof(buf));
	assert_string_equal(buf, "{include}");
	name_of(CP_PP_K_PHP_EVAL, 0, "", "", buf, sizeof(buf));
	assert_string_equal(buf, "{eval}");
	name_of(CP_PP_K_PHP_USER, 0, "", "", buf, sizeof(buf));
	assert_string_equal(buf, "[unknown]");
	name_of(CP_PP_K_PL_SUB, 0, "main", "run", buf, sizeof(buf));
	assert_string_equal(buf, "main::run");
	name_of(CP_PP_K_PL_CV, 0, "", "anon", buf, sizeof(buf));
	assert_string_equal(buf, "__ANON__::anon");
	name_of(CP_PP_K_PL_MAIN, CP_PP_FF_ENTRY, "", "", buf, sizeof(buf));
	assert_string_equal(buf, "<main>");
	pp_name_format(&(struct cp_pp_frame){.kind = CP_PP_K_PL_SUB}, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "[unknown]");
	/* truncated output stays terminated */
	name_of(CP_PP_K_PHP_USER, 0, "Work", "leaf", buf, 6);
	assert_string_equal(buf, "Work:");
	assert_string_equal(pp_kind_runtime(CP_PP_K_PHP_EVAL), "php");
	assert_string_equal(pp_kind_runtime(CP_PP_K_PL_CV), "pl");
	assert_null(pp_kind_runtime(0));
	assert_null(pp_kind_runtime(99));
}

static void test_hostile(void **state)
{
	struct cp_pp_frame f = {.kind = CP_PP_K_PHP_USER};
	struct cp_pp_name nm;
	char buf[512];

	(void)state;
	/* fields filled to the end without a NUL: never read past them */
	memset(&nm, 'A', sizeof(nm));
	nm.kind = CP_PP_K_PHP_USER;
	pp_name_format(&f, &nm, buf, sizeof(buf));
	assert_int_equal(strlen(buf), 2 * CP_PP_NAME_LEN + 2);
	pp_file_format(&nm, buf, sizeof(buf));
	assert_int_equal(strlen(buf), CP_PP_FILE_LEN);
	/* control characters and invalid UTF-8 do not pass as they are */
	memset(&nm, 0, sizeof(nm));
	snprintf(nm.func, sizeof(nm.func), "a\033[2Jb\xff");
	pp_name_format(&f, &nm, buf, sizeof(buf));
	assert_null(strchr(buf, '\033'));
	assert_null(strchr(buf, '\xff'));
	pp_file_format(NULL, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
