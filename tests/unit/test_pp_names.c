// SPDX-License-Identifier: GPL-2.0
/*
 * interp/pp_names: PHP and Perl frame names from what BPF copied (struct cp_pp_name), the
 * runtime of each kind, and copies that are not text, not terminated or not there.
 */
#include <linux/types.h>
#include "cmocka_inc.h"
#include "interp/pp_names.h"

static void test_names(void **state)
{
	struct cp_pp_name nm;
	char buf[512];

	(void)state;
	memset(&nm, 0, sizeof(nm));
	snprintf(nm.name, sizeof(nm.name), "Work::leaf");
	snprintf(nm.file, sizeof(nm.file), "/srv/tree.php");
	nm.flags = CP_PP_NAME_OK | CP_PP_FILE_OK;
	pp_name_format(&nm, buf, sizeof(buf));
	assert_string_equal(buf, "Work::leaf");
	pp_file_format(&nm, buf, sizeof(buf));
	assert_string_equal(buf, "/srv/tree.php");
	/* truncated output stays terminated */
	pp_name_format(&nm, buf, 6);
	assert_string_equal(buf, "Work:");
	/* a copy without the name or the file */
	nm.flags = CP_PP_FILE_OK;
	pp_name_format(&nm, buf, sizeof(buf));
	assert_string_equal(buf, "[unknown]");
	nm.flags = CP_PP_NAME_OK;
	pp_file_format(&nm, buf, sizeof(buf));
	assert_string_equal(buf, "");
	pp_name_format(NULL, buf, sizeof(buf));
	assert_string_equal(buf, "[unknown]");
	pp_file_format(NULL, buf, sizeof(buf));
	assert_string_equal(buf, "");
	assert_string_equal(pp_kind_runtime(CP_PP_K_PHP_EVAL), "php");
	assert_string_equal(pp_kind_runtime(CP_PP_K_PL_CV), "pl");
	assert_null(pp_kind_runtime(0));
	assert_null(pp_kind_runtime(99));
}

static void test_hostile(void **state)
{
	struct cp_pp_name nm;
	char buf[1024];

	(void)state;
	/* fields filled to the end without a NUL: never read past them */
	memset(&nm, 'A', sizeof(nm));
	nm.flags = CP_PP_NAME_OK | CP_PP_FILE_OK;
	pp_name_format(&nm, buf, sizeof(buf));
	assert_int_equal(strlen(buf), CP_PP_NAME_LEN);
	pp_file_format(&nm, buf, sizeof(buf));
	assert_int_equal(strlen(buf), CP_PP_FILE_LEN);
	/* control characters and invalid UTF-8 do not pass as they are */
	memset(&nm, 0, sizeof(nm));
	nm.flags = CP_PP_NAME_OK;
	snprintf(nm.name, sizeof(nm.name), "a\033[2Jb\xff");
	pp_name_format(&nm, buf, sizeof(buf));
	assert_null(strchr(buf, '\033'));
	assert_null(strchr(buf, '\xff'));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
