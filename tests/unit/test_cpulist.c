// SPDX-License-Identifier: GPL-2.0
/* The CPU list parser of the loader (/sys/devices/system/cpu/online). */
#include <errno.h>
#include <stdlib.h>
#include "cmocka_inc.h"
#include "session/bpf_loader.h"

static void check(const char *s, const int *want, int n)
{
	int *cpus, got;

	assert_int_equal(cpulist_parse(s, &cpus, &got), 0);
	assert_int_equal(got, n);
	for (int i = 0; i < n; i++)
		assert_int_equal(cpus[i], want[i]);
	free(cpus);
}

static void test_valid(void **state)
{
	(void)state;
	check("0\n", (int[]){0}, 1);
	check("0-3\n", (int[]){0, 1, 2, 3}, 4);
	check("0-1,4,6-7", (int[]){0, 1, 4, 6, 7}, 5);
	check("2,5", (int[]){2, 5}, 2);
}

static void test_invalid(void **state)
{
	const char *bad[] = {"", "\n", "a", "3-1", "1-", "-1", "1,,2", "1 2", "0-3x"};
	int *cpus = (int *)1, n = 5;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cpulist_parse(bad[i], &cpus, &n), -EINVAL);
		assert_null(cpus);
		assert_int_equal(n, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
