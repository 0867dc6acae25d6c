// SPDX-License-Identifier: GPL-2.0
/* host: sysctls read as numbers, and the kernel's rules over capabilities and sysctls. */
#include "cmocka_inc.h"
#include "proc/host.h"

#define CAP(n) (1ull << (n))

static void test_sysctl(void **state)
{
	long v = -7;

	(void)state;
	assert_int_equal(host_sysctl("pid_max", &v), 0);
	assert_true(v > 0);
	v = -7;
	assert_int_equal(host_sysctl("no_such_sysctl_of_cpuprof", &v), -ENOENT);
	assert_int_equal(v, -7);
}

static void test_may_record(void **state)
{
	(void)state;
	assert_true(host_may_record(0, 0));
	assert_true(host_may_record(1000, CAP(HOST_CAP_SYS_ADMIN)));
	assert_true(host_may_record(1000, CAP(HOST_CAP_BPF) | CAP(HOST_CAP_PERFMON)));
	assert_false(host_may_record(1000, CAP(HOST_CAP_BPF)));
	assert_false(host_may_record(1000, CAP(HOST_CAP_PERFMON) | CAP(HOST_CAP_SYSLOG)));
	assert_false(host_may_record(1000, 0));
}

/* kallsyms_show_value(): kptr_restrict 0, 1, 2 against paranoid and CAP_SYSLOG */
static void test_kernel_names(void **state)
{
	const uint64_t syslog = CAP(HOST_CAP_SYSLOG);

	(void)state;
	assert_true(host_kernel_names_shown(0, 1, 0));
	assert_false(host_kernel_names_shown(0, 2, 0));
	assert_true(host_kernel_names_shown(0, 2, syslog));
	assert_false(host_kernel_names_shown(1, -1, 0));
	assert_true(host_kernel_names_shown(1, 2, syslog));
	assert_false(host_kernel_names_shown(2, -1, syslog));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysctl),
		cmocka_unit_test(test_may_record),
		cmocka_unit_test(test_kernel_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
