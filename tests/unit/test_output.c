// SPDX-License-Identifier: GPL-2.0
/* The output file: atomic replace, mode, nothing left behind on abort or failure. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cmocka_inc.h"
#include "output/output.h"

static int n_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int setup(void **state)
{
	char *dir = strdup("/tmp/cpuprof-out.XXXXXX");

	if (!dir || !mkdtemp(dir))
		return -1;
	*state = dir;
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", (char *)*state);
	free(*state);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_commit(void **state)
{
	const char *dir = *state;
	struct out_file *o;
	char path[256], buf[64] = {};
	struct stat st;
	FILE *f;
	mode_t old = umask(022);

	snprintf(path, sizeof(path), "%s/p.folded", dir);
	/* an old file is replaced only at commit */
	f = fopen(path, "w");
	fputs("old\n", f);
	fclose(f);
	assert_int_equal(out_file__open(path, &o), 0);
	assert_false(out_file__is_stdout(o));
	assert_int_equal(n_entries(dir), 2); /* the old file and the temporary */
	fputs("a;b 1\n", out_file__stream(o));
	f = fopen(path, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "old\n");
	assert_int_equal(out_file__commit(o), 0);
	assert_int_equal(n_entries(dir), 1);
	f = fopen(path, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "a;b 1\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	umask(old);
}

static void test_abort(void **state)
{
	const char *dir = *state;
	struct out_file *o;
	char path[256];

	snprintf(path, sizeof(path), "%s/q.folded", dir);
	assert_int_equal(out_file__open(path, &o), 0);
	fputs("partial", out_file__stream(o));
	out_file__abort(o);
	assert_int_equal(n_entries(dir), 0);
	out_file__abort(NULL);
}

static void test_errors(void **state)
{
	const char *dir = *state;
	struct out_file *o = (void *)1;
	char path[256];

	snprintf(path, sizeof(path), "%s/missing/p.folded", dir);
	assert_int_equal(out_file__open(path, &o), -ENOENT);
	assert_null(o);
	assert_int_equal(out_file__open(dir, &o), -EISDIR);
	assert_int_equal(n_entries(dir), 0);
}

static void test_stdout(void **state)
{
	struct out_file *o;

	(void)state;
	assert_int_equal(out_file__open("-", &o), 0);
	assert_true(out_file__is_stdout(o));
	assert_ptr_equal(out_file__stream(o), stdout);
	assert_int_equal(out_file__commit(o), 0);
	assert_int_equal(out_file__open(NULL, &o), 0);
	assert_true(out_file__is_stdout(o));
	out_file__abort(o);
}

static void test_format_from_name(void **state)
{
	(void)state;
	assert_int_equal(format_from_name("x.pb.gz"), FORMAT_PPROF);
	assert_int_equal(format_from_name("dir/x.pprof"), FORMAT_PPROF);
	assert_int_equal(format_from_name("x.json"), FORMAT_JSON);
	assert_int_equal(format_from_name("x.folded"), FORMAT_FOLDED);
	assert_int_equal(format_from_name("x.gz"), FORMAT_FOLDED);
	assert_int_equal(format_from_name("json"), FORMAT_FOLDED);
	assert_int_equal(format_from_name("-"), FORMAT_FOLDED);
	assert_int_equal(format_from_name(NULL), FORMAT_FOLDED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test(test_stdout),
		cmocka_unit_test(test_format_from_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
