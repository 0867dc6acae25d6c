// SPDX-License-Identifier: GPL-2.0
#include "cmocka_inc.h"
#include <sys/mman.h>
#include "util/rss.h"

static void test_parse(void **state)
{
	static const char status[] = "Name:\tcpuprof\nVmPeak:\t  900 kB\nVmHWM:\t   77777 kB\n"
				     "VmRSS:\t   12345 kB\nThreads:\t1\n";
	struct rss r = {1, 2};

	(void)state;
	assert_int_equal(rss_parse(status, &r), 0);
	assert_true(r.now_kib == 12345);
	assert_true(r.peak_kib == 77777);
	/* a line that only starts like the key is not it; a missing key fails, r untouched */
	r = (struct rss){1, 2};
	assert_int_equal(rss_parse("VmRSSx:\t5 kB\nVmHWM:\t6 kB\n", &r), -EINVAL);
	assert_int_equal(rss_parse("VmHWM:\t6 kB\n", &r), -EINVAL);
	assert_int_equal(rss_parse("VmRSS:\tmany\nVmHWM:\t6 kB\n", &r), -EINVAL);
	assert_int_equal(rss_parse("", &r), -EINVAL);
	assert_true(r.now_kib == 1 && r.peak_kib == 2);
}

/* 64 MiB touched then unmapped: the peak stays up until reset, and comes down after it. */
static void test_peak_reset(void **state)
{
	size_t len = 64u << 20;
	struct rss before, high, after;
	char *p;

	(void)state;
	assert_int_equal(rss_self(&before), 0);
	assert_true(before.now_kib > 0 && before.peak_kib >= before.now_kib);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	memset(p, 1, len);
	munmap(p, len);
	assert_int_equal(rss_self(&high), 0);
	assert_true(high.peak_kib >= before.now_kib + (len >> 10) - 1024);
	assert_true(high.now_kib < high.peak_kib - (len >> 11));
	if (rss_reset_peak())
		cp_skip("/proc/self/clear_refs cannot be written");
	assert_int_equal(rss_self(&after), 0);
	assert_true(after.peak_kib < high.peak_kib - (len >> 11));
	assert_true(after.peak_kib >= after.now_kib);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_peak_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
