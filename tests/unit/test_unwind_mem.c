// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_table__from_mem against unwind_table__from_fd: the same object read into memory gives
 * the same base, rows and counters (fixtures with .eh_frame, with .debug_frame only, with a
 * compressed .debug_frame; libc). The image is read-only memory: from_mem must not write it.
 * Malformed images fail with errno set.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmocka_inc.h"
#include "unwind/unwind_table.h"

#define LIBC_PATH "/lib/x86_64-linux-gnu/libc.so.6"

/* The file's bytes in fresh read-only pages; *size gets their number. munmap when done. */
static void *read_image(const char *path, size_t *size)
{
	void *p;

	*size = file_size(path);
	p = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	read_whole(path, p, *size);
	/* a write by libelf or the builder would fault */
	assert_int_equal(mprotect(p, *size, PROT_READ), 0);
	return p;
}

static struct unwind_table *from_path(const char *path)
{
	struct unwind_table *ut;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	ut = unwind_table__from_fd(fd);
	if (!ut)
		fail_msg("%s: %s", path, strerror(errno));
	close(fd);
	return ut;
}

/* from_mem on the file's bytes is from_fd on the file, row for row. */
static void check_same(const char *path)
{
	struct unwind_table *a, *b;
	struct unwind_table_stats sa, sb;
	const struct cp_unwind_row *ra, *rb;
	size_t na, nb, size;
	void *image = read_image(path, &size);

	a = from_path(path);
	b = unwind_table__from_mem(image, size);
	if (!b)
		fail_msg("%s in memory: %s", path, strerror(errno));
	assert_int_equal(unwind_table__base(a), unwind_table__base(b));
	ra = unwind_table__rows(a, &na);
	rb = unwind_table__rows(b, &nb);
	assert_true(na > 0);
	assert_int_equal(na, nb);
	assert_memory_equal(ra, rb, na * sizeof(*ra));
	unwind_table__stats(a, &sa);
	unwind_table__stats(b, &sb);
	sa.build_ns = sb.build_ns = 0;
	assert_memory_equal(&sa, &sb, sizeof(sa));
	print_message("%s: %zu rows, the same from memory\n", path, nb);
	unwind_table__free(a);
	unwind_table__free(b);
	assert_int_equal(munmap(image, size), 0);
}

static void test_fixtures(void **state)
{
	static const char *const names[] = {"unw_nofp", "unw_fp", "unw_ibt", "unw_dbgframe",
					    "fix_nopie"};
	char path[PATH_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		fixture(path, sizeof(path), names[i]);
		check_same(path);
	}
}

/* .debug_frame compressed: libelf decompresses it, from a read-only image too */
static void test_compressed_debug_frame(void **state)
{
	char path[PATH_MAX], tmp[] = "/tmp/cpuprof-unw-mem-XXXXXX";
	struct unwind_table *ut;
	struct unwind_table_stats st;
	int fd;

	(void)state;
	fixture(path, sizeof(path), "unw_dbgframe");
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	close(fd);
	tool_done(tool_output("objcopy --compress-debug-sections=zlib '%s' '%s'", path, tmp));
	tool_done(tool_output("readelf -SW '%s' | grep -q ' .debug_frame .* C '", tmp));
	check_same(tmp);
	ut = from_path(tmp);
	unwind_table__stats(ut, &st);
	assert_true(st.debug_frame);
	unwind_table__free(ut);
	unlink(tmp);
}

static void test_libc(void **state)
{
	(void)state;
	check_same(LIBC_PATH);
}

static void expect_error(const void *image, size_t size, int err)
{
	errno = 0;
	assert_null(unwind_table__from_mem(image, size));
	if (err)
		assert_int_equal(errno, err);
	else
		assert_int_not_equal(errno, 0);
}

static void test_errors(void **state)
{
	static const char text[] = "root:x:0:0:root:/root:/bin/bash\n";
	char path[PATH_MAX];
	size_t size;
	void *image;

	(void)state;
	expect_error(NULL, 0, EINVAL);
	expect_error(text, 0, ENOEXEC);
	expect_error(text, sizeof(text), ENOEXEC);
	expect_error("\177ELF", 4, ENOEXEC);
	/* cut short: the program or section headers are missing; whatever the error, no crash */
	fixture(path, sizeof(path), "unw_nofp");
	image = read_image(path, &size);
	expect_error(image, 64, 0);
	expect_error(image, 4096, 0);
	assert_int_equal(munmap(image, size), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_compressed_debug_frame),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
