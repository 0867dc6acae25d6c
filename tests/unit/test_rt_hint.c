// SPDX-License-Identifier: GPL-2.0
/*
 * The runtimes a command likely runs (interp/rt_hint.h), from its file: scripts by their #!
 * interpreter (through env, its options and variables skipped), programs by their name and by
 * the libraries they need (Debian's perl needs libperl); shells, launchers, scripts without #!,
 * what cannot be opened (a FIFO, a missing file): every runtime; a native program: none.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmocka_inc.h"
#include "interp/rt_hint.h"

#define BIT(id) (1u << (id))

static char dir[] = "/tmp/cp_rthint_XXXXXX";

static const char *put(const char *name, const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* a copy of this test's own program (native: it needs no runtime's library) called name */
static const char *copy_self(const char *name)
{
	static char path[128];
	char buf[65536];
	int in = open("/proc/self/exe", O_RDONLY), out;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0700);
	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
	return path;
}

static void test_scripts(void **state)
{
	(void)state;
	assert_int_equal(rt_hint_file(put("a", "#!/usr/bin/env python3\nprint(1)\n")),
			 BIT(CP_RT_PYTHON));
	assert_int_equal(rt_hint_file(put("b", "#!/usr/bin/env -S ruby -w\n")), BIT(CP_RT_RUBY));
	assert_int_equal(rt_hint_file(put("c", "#!/usr/bin/env -u X FOO=1 node\n")), BIT(CP_RT_V8));
	assert_int_equal(rt_hint_file(put("d", "#!/usr/bin/perl -w\nuse strict;\n")),
			 BIT(CP_RT_PERL));
	assert_int_equal(rt_hint_file(put("e", "#! /usr/bin/php8.2\n<?php\n")), BIT(CP_RT_PHP));
	/* a shell, env of a shell, awk: anything, anything, nothing known */
	assert_int_equal(rt_hint_file(put("f", "#!/bin/sh\nexec python3 x.py\n")), RT_HINT_ALL);
	assert_int_equal(rt_hint_file(put("g", "#!/usr/bin/env bash\n")), RT_HINT_ALL);
	assert_int_equal(rt_hint_file(put("h", "#!/usr/bin/awk -f\n")), 0);
	/* no #! (exec hands it to sh), a #! line longer than what is read, an empty one */
	assert_int_equal(rt_hint_file(put("i", "python3 x.py\n")), RT_HINT_ALL);
	assert_int_equal(rt_hint_file(put("j", "#!/usr/bin/env                                   "
					       "                                                   "
					       "                                                   "
					       "                                                   "
					       "                                                   "
					       "python3\n")),
			 RT_HINT_ALL);
	assert_int_equal(rt_hint_file(put("k", "#!\n")), RT_HINT_ALL);
	/* env -S keeps quotes; a script's interpreter that is a script (#! nests), a program
	   that is none of them by name but needs libperl; #! loops end */
	assert_int_equal(rt_hint_file(put("l", "#!/usr/bin/env -S 'ruby' -w\n")), BIT(CP_RT_RUBY));
	{
		char line[160];

		snprintf(line, sizeof(line), "#!%s/a\n", dir);
		assert_int_equal(rt_hint_file(put("m", line)), BIT(CP_RT_PYTHON));
		snprintf(line, sizeof(line), "#!%s/n\n", dir);
		assert_int_equal(rt_hint_file(put("n", line)), RT_HINT_ALL);
	}
}

static void test_programs(void **state)
{
	char fifo[128];

	(void)state;
	/* native, under its own name and under an interpreter's */
	assert_int_equal(rt_hint_file(copy_self("bench")), 0);
	assert_int_equal(rt_hint_file(copy_self("python3.11")), BIT(CP_RT_PYTHON));
	assert_int_equal(rt_hint_file(copy_self("nodejs")), BIT(CP_RT_V8));
	/* launchers by name, whatever they are */
	assert_int_equal(rt_hint_file(copy_self("timeout")), RT_HINT_ALL);
	assert_int_equal(rt_hint_file(copy_self("sh")), RT_HINT_ALL);
	assert_int_equal(rt_hint_file(copy_self("valgrind")), RT_HINT_ALL);
	assert_int_equal(rt_hint_file(copy_self("ld-linux-x86-64.so.2")), RT_HINT_ALL);
	/* Debian's perl: by its name and by the libperl it needs */
	if (access("/usr/bin/perl", X_OK) == 0)
		assert_int_equal(rt_hint_file("/usr/bin/perl"), BIT(CP_RT_PERL));
	/* what cannot be read: anything, and no open that blocks */
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(rt_hint_file(fifo), RT_HINT_ALL);
	assert_int_equal(rt_hint_file("/nonexistent/cpuprof/x"), RT_HINT_ALL);
}

static void test_names(void **state)
{
	(void)state;
	assert_int_equal(rt_hint_name("/usr/lib/jvm/x/lib/server/libjvm.so"), BIT(CP_RT_JAVA));
	assert_int_equal(rt_hint_name("libjli.so"), BIT(CP_RT_JAVA));
	assert_int_equal(rt_hint_name("/usr/lib/libruby-3.1.so.3.1"), BIT(CP_RT_RUBY));
	assert_int_equal(rt_hint_name("/usr/bin/cc"), 0);
	/* a directory named like a runtime does not count */
	assert_int_equal(rt_hint_name("/opt/python/bin/gcc"), 0);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[160];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scripts),
		cmocka_unit_test(test_programs),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
