/* SPDX-License-Identifier: GPL-2.0 */
/* cmocka, and what the unit tests share: fixture files, fixture binaries, running tools. */
#ifndef CPUPROF_CMOCKA_INC_H
#define CPUPROF_CMOCKA_INC_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

/*
 * Skip the current test because something it needs is missing (why: a short reason). In CI
 * (the CI variable set) a skip is a failure, as for the end-to-end tests: there the machine
 * has everything, and a skipped test would hide a broken feature.
 */
#define cp_skip(why)                                                             \
	do {                                                                     \
		if (getenv("CI"))                                                \
			fail_msg("CI is set: a skipped test fails (%s)", (why)); \
		print_message("skipped: %s\n", (why));                           \
		skip();                                                          \
	} while (0)

/* Open tests/data/NAME for reading; fails the test when it is missing. */
static inline FILE *open_data(const char *name)
{
	const char *dir = getenv("CPUPROF_TESTDATA");
	char path[4096];
	FILE *f;

	if (!dir || !*dir)
		dir = "tests/data";
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	return f;
}

/* Path of fixture NAME in $CPUPROF_FIXTURES (default build/rel/fixtures); a missing fixture
 * fails the test: the Makefile builds them. */
static inline void fixture(char *buf, size_t len, const char *name)
{
	const char *dir = getenv("CPUPROF_FIXTURES");

	if (!dir || !*dir)
		dir = "build/rel/fixtures";
	assert_true((size_t)snprintf(buf, len, "%s/%s", dir, name) < len);
	assert_int_equal(access(buf, R_OK), 0);
}

/* Run a shell command and read its output (an independent tool: nm, readelf...). */
__attribute__((format(printf, 1, 2))) static inline FILE *tool_output(const char *fmt, ...)
{
	char cmd[PATH_MAX + 256];
	va_list ap;
	FILE *f;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(cmd));
	f = popen(cmd, "r");
	assert_non_null(f);
	return f;
}

/* The command of tool_output() must have succeeded. */
static inline void tool_done(FILE *f)
{
	assert_int_equal(pclose(f), 0);
}
/* The bytes of file path into buf (size bytes at most); fails the test on a short read. */
static inline void read_whole(const char *path, void *buf, size_t size)
{
	size_t done = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	while (done < size) {
		ssize_t n = read(fd, (char *)buf + done, size - done);

		assert_true(n > 0);
		done += (size_t)n;
	}
	close(fd);
}

/* The size of file path; fails the test when it cannot be read or is empty. */
static inline size_t file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > 0);
	return (size_t)st.st_size;
}

/*
 * A directory on disk for files a test writes and maps (elf_unpack's): first, else the working
 * directory; NULL when both are in memory (tmpfs, ramfs: statfs(2)'s magic numbers).
 */
static inline const char *cp_disk_dir(const char *first)
{
	const char *const dirs[] = {first, "."};
	struct statfs sf;

	for (size_t i = 0; i < 2; i++)
		if (!statfs(dirs[i], &sf) && (unsigned long)sf.f_type != 0x01021994 &&
		    (unsigned long)sf.f_type != 0x858458f6)
			return dirs[i];
	return NULL;
}

#endif
