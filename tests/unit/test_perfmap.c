// SPDX-License-Identifier: GPL-2.0
/* perf map files: hex fields with or without 0x, names with spaces, later lines winning. */
#include "cmocka_inc.h"
#include "symbol/perfmap.h"

static void check(const struct perfmap *pm, uint64_t addr, const char *want, uint64_t want_off)
{
	uint64_t off = UINT64_MAX;
	const char *got = perfmap__lookup(pm, addr, &off);

	if (!want) {
		if (got)
			fail_msg("0x%llx: expected nothing, got %s", (unsigned long long)addr, got);
		return;
	}
	if (!got)
		fail_msg("0x%llx: expected %s, got nothing", (unsigned long long)addr, want);
	assert_string_equal(got, want);
	assert_int_equal(off, want_off);
}

static void test_basic(void **state)
{
	FILE *f = open_data("perfmap_basic.txt");
	struct perfmap *pm = perfmap__load(f);

	(void)state;
	fclose(f);
	assert_non_null(pm);
	/* two malformed lines skipped */
	assert_int_equal(perfmap__count(pm), 5);
	/* the later, shorter entry at 0x...1000 wins where it reaches */
	check(pm, 0x7f0000001000, "LazyCompile:*add /app/index.js:3", 0);
	check(pm, 0x7f000000100f, "LazyCompile:*add /app/index.js:3", 0xf);
	/* past it, the earlier entry still covers its range */
	check(pm, 0x7f0000001010, "LazyCompile:~add /app/index.js:3", 0x10);
	check(pm, 0x7f0000001040, "py::compute:/app/m.py", 0);
	check(pm, 0x7f000000105f, "py::compute:/app/m.py", 0x1f);
	check(pm, 0x7f0000001060, NULL, 0);
	check(pm, 0x7f0000000fff, NULL, 0);
	/* a range nested in a larger one */
	check(pm, 0x7f0000003012, "inner stub", 2);
	check(pm, 0x7f0000003020, "Interpreter", 0x20);
	check(pm, 0x7f00000030ff, "Interpreter", 0xff);
	check(pm, 0x7f0000003100, NULL, 0);
	perfmap__free(pm);
	perfmap__free(NULL);
}

static void test_empty(void **state)
{
	FILE *f = fmemopen((char[]){"\n"}, 1, "r");
	struct perfmap *pm = perfmap__load(f);

	(void)state;
	fclose(f);
	assert_non_null(pm);
	assert_int_equal(perfmap__count(pm), 0);
	check(pm, 0x1000, NULL, 0);
	perfmap__free(pm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
