// SPDX-License-Identifier: GPL-2.0
/*
 * safe_open on what a hostile user can plant: a FIFO without a writer (a plain open would
 * wait for ever), a symlink to a FIFO, a device node, a directory, an oversized file. Every
 * path is in the test's own temporary directory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "cmocka_inc.h"
#include "util/safe_file.h"

static char dir[] = "/tmp/cpuprof-safe.XXXXXX";

static void path_of(char *buf, size_t len, const char *name)
{
	assert_true((size_t)snprintf(buf, len, "%s/%s", dir, name) < len);
}

static void test_regular(void **state)
{
	char p[256];
	struct stat st;
	FILE *f;
	int fd;

	(void)state;
	path_of(p, sizeof(p), "plain");
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("0123456789", f);
	fclose(f);
	fd = safe_open(p, 0, &st);
	assert_true(fd >= 0);
	assert_int_equal(st.st_size, 10);
	close(fd);
	fd = safe_open(p, 10, NULL);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(safe_open(p, 9, NULL), -EFBIG);
	f = safe_fopen(p, 0);
	assert_non_null(f);
	fclose(f);
	assert_null(safe_fopen(p, 4));
	assert_int_equal(errno, EFBIG);
}

/* Neither a FIFO nor a link to one blocks the open; both are refused. */
static void test_fifo(void **state)
{
	char p[256], l[256];

	(void)state;
	path_of(p, sizeof(p), "fifo");
	path_of(l, sizeof(l), "link-to-fifo");
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(symlink(p, l), 0);
	alarm(10); /* a blocking open would hang the test: fail it instead */
	assert_int_equal(safe_open(p, 0, NULL), -EINVAL);
	assert_int_equal(safe_open(l, 0, NULL), -EINVAL);
	assert_null(safe_fopen(p, 0));
	assert_int_equal(errno, EINVAL);
	alarm(0);
}

static void test_not_regular(void **state)
{
	char p[256];

	(void)state;
	assert_int_equal(safe_open(dir, 0, NULL), -EISDIR);
	path_of(p, sizeof(p), "missing");
	assert_int_equal(safe_open(p, 0, NULL), -ENOENT);
	if (geteuid() != 0)
		cp_skip("not root: cannot make a device node");
	/* a zero device of our own (/dev/zero's numbers): endless reads, refused */
	path_of(p, sizeof(p), "zero");
	assert_int_equal(mknod(p, S_IFCHR | 0600, makedev(1, 5)), 0);
	assert_int_equal(safe_open(p, 0, NULL), -EINVAL);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regular),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_not_regular),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
