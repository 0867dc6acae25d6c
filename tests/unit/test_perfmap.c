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
	struct perfmap *pm = perfmap__load(f, 0);

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
	struct perfmap *pm = perfmap__load(f, 0);

	(void)state;
	fclose(f);
	assert_non_null(pm);
	assert_int_equal(perfmap__count(pm), 0);
	check(pm, 0x1000, NULL, 0);
	perfmap__free(pm);
}

/* A map of n lines "START 10 name_START_padded...", written to a memory stream. */
static FILE *big_map(size_t n, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);

	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%zx 10 name_%zu_of_a_jit_function_padded_to_sixty_four_bytes_xxxxxxx\n",
			0x1000 + 0x10 * i, i);
	fclose(f);
	return fmemopen(*buf, *len, "r");
}

/* the memory of a map is bounded: past the budget it is refused whole, EFBIG */
static void test_budget(void **state)
{
	char *buf = NULL;
	size_t len = 0, bytes;
	FILE *f = big_map(10000, &buf, &len);
	struct perfmap *pm = perfmap__load(f, 0);

	(void)state;
	assert_non_null(pm);
	assert_int_equal(perfmap__count(pm), 10000);
	check(pm, 0x1000 + 0x10 * 9999 + 3,
	      "name_9999_of_a_jit_function_padded_to_sixty_four_bytes_xxxxxxx", 3);
	bytes = perfmap__bytes(pm);
	/* names in one block: the file's bytes and 32 a line, at most doubled by the growth */
	assert_true(bytes >= len);
	assert_true(bytes <= 2 * (len + 10000 * 32));
	perfmap__free(pm);
	rewind(f);
	errno = 0;
	assert_null(perfmap__load(f, len / 2));
	assert_int_equal(errno, EFBIG);
	/* what is just enough is enough: no doubling over the budget */
	rewind(f);
	pm = perfmap__load(f, len + 10000 * sizeof(uint64_t) * 4);
	assert_non_null(pm);
	assert_int_equal(perfmap__count(pm), 10000);
	assert_true(perfmap__bytes(pm) <= len + 10000 * sizeof(uint64_t) * 4);
	perfmap__free(pm);
	fclose(f);
	free(buf);
}

/* perf's rule: root's map, or the process's effective user's; never another user's */
static void test_owner(void **state)
{
	(void)state;
	assert_true(perfmap__owner_ok(0, 0));
	assert_true(perfmap__owner_ok(0, 1000));
	assert_true(perfmap__owner_ok(0, -1));
	assert_true(perfmap__owner_ok(1000, 1000));
	/* a user's map for root's process, or for another user's */
	assert_false(perfmap__owner_ok(65534, 0));
	assert_false(perfmap__owner_ok(1000, 1001));
	/* the process is gone and its user unknown: only root's */
	assert_false(perfmap__owner_ok(1000, -1));
	assert_false(perfmap__owner_ok(UINT32_MAX, -1));
	/* a uid past INT32_MAX (user namespaces map high) is compared whole */
	assert_true(perfmap__owner_ok(3000000000u, 3000000000ll));
	assert_false(perfmap__owner_ok(3000000000u, 3000000001ll));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_owner),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
