// SPDX-License-Identifier: GPL-2.0
/*
 * safe_open on what a hostile user can plant: a FIFO without a writer (a plain open would
 * wait for ever), a symlink to a FIFO, a device node, a directory, an oversized file. Every
 * path is in the test's own temporary directory.
 */
#include <errno.h>
#include <fcntl.h>
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

/* A tree below dir/root as a container's root: tmp/ok.map, and links a user planted. */
static int make_root(void)
{
	char p[256];
	FILE *f;
	int rootfd;

	path_of(p, sizeof(p), "root");
	assert_int_equal(mkdir(p, 0755), 0);
	path_of(p, sizeof(p), "root/tmp");
	assert_int_equal(mkdir(p, 0755), 0);
	path_of(p, sizeof(p), "secret");
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("10 10 SECRET\n", f);
	fclose(f);
	path_of(p, sizeof(p), "root/tmp/ok.map");
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("10 10 ok\n", f);
	fclose(f);
	/* the file a link: to the host's secret, absolute and relative */
	path_of(p, sizeof(p), "root/tmp/abs.map");
	{
		char target[256];

		path_of(target, sizeof(target), "secret");
		assert_int_equal(symlink(target, p), 0);
	}
	path_of(p, sizeof(p), "root/tmp/rel.map");
	assert_int_equal(symlink("ok.map", p), 0);
	/* a directory a link: root/lnk -> tmp */
	path_of(p, sizeof(p), "root/lnk");
	assert_int_equal(symlink("tmp", p), 0);
	path_of(p, sizeof(p), "root");
	rootfd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(rootfd >= 0);
	return rootfd;
}

static void check_openat(int (*fn)(int, const char *, uint64_t, struct stat *))
{
	int rootfd = make_root(), fd;
	struct stat st;
	char buf[16] = {0};

	fd = fn(rootfd, "tmp/ok.map", 0, &st);
	assert_true(fd >= 0);
	assert_int_equal(st.st_size, 9);
	assert_int_equal(read(fd, buf, sizeof(buf) - 1), 9);
	assert_string_equal(buf, "10 10 ok\n");
	close(fd);
	assert_int_equal(fn(rootfd, "tmp/abs.map", 0, NULL), -ELOOP);
	assert_int_equal(fn(rootfd, "tmp/rel.map", 0, NULL), -ELOOP);
	assert_int_equal(fn(rootfd, "lnk/ok.map", 0, NULL), -ELOOP);
	assert_int_equal(fn(rootfd, "tmp/none.map", 0, NULL), -ENOENT);
	assert_int_equal(fn(rootfd, "tmp/ok.map", 4, NULL), -EFBIG);
	assert_int_equal(fn(rootfd, "tmp", 0, NULL), -EISDIR);
	assert_int_equal(fn(rootfd, "", 0, NULL), -EINVAL);
	assert_int_equal(fn(rootfd, "/tmp/ok.map", 0, NULL), -EINVAL);
	close(rootfd);
}

static void remove_root(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/root' '%s/secret'", dir, dir);
	assert_int_equal(system(cmd), 0);
}

/* openat2: no link followed, in the path or as the file; ".." stays inside the root */
static void test_openat(void **state)
{
	int rootfd, fd;

	(void)state;
	check_openat(safe_openat);
	rootfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(rootfd >= 0);
	/* RESOLVE_IN_ROOT: "root/../root/tmp/ok.map" stays below dir */
	fd = safe_openat(rootfd, "root/../root/tmp/ok.map", 0, NULL);
	assert_true(fd >= 0);
	close(fd);
	close(rootfd);
	remove_root();
}

/* the fallback for kernels without openat2: the same answers, ".." refused */
static void test_openat_walk(void **state)
{
	int rootfd;

	(void)state;
	check_openat(safe_openat_walk);
	rootfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(rootfd >= 0);
	assert_int_equal(safe_openat_walk(rootfd, "root/../root/tmp/ok.map", 0, NULL), -EINVAL);
	close(rootfd);
	remove_root();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regular),	    cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_not_regular), cmocka_unit_test(test_openat),
		cmocka_unit_test(test_openat_walk),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
