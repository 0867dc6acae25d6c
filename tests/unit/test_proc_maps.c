// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include "cmocka_inc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proc/proc_maps.h"

/* Index of each line of tests/data/maps_basic.txt */
enum {
	APP_R0,
	APP_RX,
	APP_R1,
	APP_RELRO,
	APP_RW,
	HEAP,
	ANON_RW,
	ANON_GUARD,
	LIBC_R0,
	LIBC_RX,
	LIBC_R1,
	LIBC_RELRO,
	LIBC_RW,
	ANON_BSS,
	PLUGIN_RX,
	PLUGIN_RW,
	JIT_DELETED,
	MEMFD_DELETED,
	STACK,
	VVAR,
	VDSO,
	VSYSCALL,
	N_BASIC,
};

static int parse_file(const char *name, struct proc_maps *m)
{
	FILE *f = open_data(name);
	int err = proc_maps_parse(f, m);

	fclose(f);
	return err;
}

static int parse_string(const char *text, struct proc_maps *m)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int err;

	assert_non_null(f);
	err = proc_maps_parse(f, m);
	fclose(f);
	return err;
}

static int setup_basic(void **state)
{
	struct proc_maps *m = calloc(1, sizeof(*m));

	if (!m || parse_file("maps_basic.txt", m)) {
		free(m);
		return -1;
	}
	*state = m;
	return 0;
}

static int teardown_basic(void **state)
{
	struct proc_maps *m = *state;

	proc_maps_free(m);
	free(m);
	return 0;
}

static void assert_entry(const struct map_entry *e, uint64_t start, uint64_t end, const char *perms,
			 uint64_t offset, uint32_t major, uint32_t minor, uint64_t inode,
			 const char *path, bool deleted)
{
	assert_true(e->start == start);
	assert_true(e->end == end);
	assert_int_equal(e->readable, perms[0] == 'r');
	assert_int_equal(e->writable, perms[1] == 'w');
	assert_int_equal(e->executable, perms[2] == 'x');
	assert_int_equal(e->shared, perms[3] == 's');
	assert_true(e->offset == offset);
	assert_int_equal(e->dev_major, major);
	assert_int_equal(e->dev_minor, minor);
	assert_true(e->inode == inode);
	if (path)
		assert_string_equal(e->path, path);
	else
		assert_null(e->path);
	assert_int_equal(e->deleted, deleted);
}

static void test_basic_entries(void **state)
{
	const struct proc_maps *m = *state;
	const struct map_entry *v = m->v;
	const char *app = "/opt/demo/bin/app", *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";

	assert_int_equal(m->n, N_BASIC);
	/* PIE binary: five segments, file offsets as written */
	assert_entry(&v[APP_R0], 0x55d0c0a00000, 0x55d0c0a02000, "r--p", 0, 0xfe, 1, 1835021, app,
		     false);
	assert_entry(&v[APP_RX], 0x55d0c0a02000, 0x55d0c0a07000, "r-xp", 0x2000, 0xfe, 1, 1835021,
		     app, false);
	assert_entry(&v[APP_R1], 0x55d0c0a07000, 0x55d0c0a0a000, "r--p", 0x7000, 0xfe, 1, 1835021,
		     app, false);
	assert_entry(&v[APP_RELRO], 0x55d0c0a0a000, 0x55d0c0a0b000, "r--p", 0x9000, 0xfe, 1,
		     1835021, app, false);
	assert_entry(&v[APP_RW], 0x55d0c0a0b000, 0x55d0c0a0c000, "rw-p", 0xa000, 0xfe, 1, 1835021,
		     app, false);
	assert_entry(&v[HEAP], 0x55d0c1f3e000, 0x55d0c1f5f000, "rw-p", 0, 0, 0, 0, "[heap]", false);
	/* anonymous: one line ends in the kernel's blank, the other does not */
	assert_entry(&v[ANON_RW], 0x7f3a1c000000, 0x7f3a1c021000, "rw-p", 0, 0, 0, 0, NULL, false);
	assert_entry(&v[ANON_GUARD], 0x7f3a1c021000, 0x7f3a20000000, "---p", 0, 0, 0, 0, NULL,
		     false);
	assert_entry(&v[ANON_BSS], 0x7f3a21fd5000, 0x7f3a21fe2000, "rw-p", 0, 0, 0, 0, NULL, false);
	/* shared library on a device with a three-digit major (0x103 = 259) */
	assert_entry(&v[LIBC_R0], 0x7f3a21e00000, 0x7f3a21e26000, "r--p", 0, 0x103, 2, 2753, libc,
		     false);
	assert_entry(&v[LIBC_RX], 0x7f3a21e26000, 0x7f3a21f7c000, "r-xp", 0x26000, 0x103, 2, 2753,
		     libc, false);
	assert_entry(&v[LIBC_R1], 0x7f3a21f7c000, 0x7f3a21fcf000, "r--p", 0x17c000, 0x103, 2, 2753,
		     libc, false);
	assert_entry(&v[LIBC_RELRO], 0x7f3a21fcf000, 0x7f3a21fd3000, "r--p", 0x1cf000, 0x103, 2,
		     2753, libc, false);
	assert_entry(&v[LIBC_RW], 0x7f3a21fd3000, 0x7f3a21fd5000, "rw-p", 0x1d3000, 0x103, 2, 2753,
		     libc, false);
	/* spaces inside the path are kept */
	assert_entry(&v[PLUGIN_RX], 0x7f3a22000000, 0x7f3a22004000, "r-xp", 0, 0xfe, 1, 2882400001,
		     "/home/user/My Projects/lib plugin.so", false);
	assert_entry(&v[PLUGIN_RW], 0x7f3a22004000, 0x7f3a22005000, "rw-p", 0x4000, 0xfe, 1,
		     2882400001, "/home/user/My Projects/lib plugin.so", false);
	/* " (deleted)" is stripped and flagged */
	assert_entry(&v[JIT_DELETED], 0x7f3a22100000, 0x7f3a22103000, "r-xp", 0, 0, 0x1a, 4411,
		     "/tmp/jit-4711.so", true);
	assert_entry(&v[MEMFD_DELETED], 0x7f3a22200000, 0x7f3a22201000, "rw-s", 0, 0, 1, 1025,
		     "/memfd:ring buffer", true);
	/* pseudo paths are kept as written */
	assert_entry(&v[STACK], 0x7ffd5a3c1000, 0x7ffd5a3e2000, "rw-p", 0, 0, 0, 0, "[stack]",
		     false);
	assert_entry(&v[VVAR], 0x7ffd5a3f6000, 0x7ffd5a3fa000, "r--p", 0, 0, 0, 0, "[vvar]", false);
	assert_entry(&v[VDSO], 0x7ffd5a3fa000, 0x7ffd5a3fc000, "r-xp", 0, 0, 0, 0, "[vdso]", false);
	assert_entry(&v[VSYSCALL], 0xffffffffff600000, 0xffffffffff601000, "--xp", 0, 0, 0, 0,
		     "[vsyscall]", false);
}

static void test_find_boundaries(void **state)
{
	const struct proc_maps *m = *state;
	const struct map_entry *v = m->v;

	/* start is inclusive */
	assert_ptr_equal(proc_maps_find(m, 0x55d0c0a00000), &v[APP_R0]);
	/* end - 1 is still inside */
	assert_ptr_equal(proc_maps_find(m, 0x55d0c0a01fff), &v[APP_R0]);
	/* end is exclusive: adjacent mapping takes it */
	assert_ptr_equal(proc_maps_find(m, 0x55d0c0a02000), &v[APP_RX]);
	assert_ptr_equal(proc_maps_find(m, 0x55d0c0a04321), &v[APP_RX]);
	/* end is exclusive and a gap follows: nothing */
	assert_ptr_equal(proc_maps_find(m, 0x55d0c0a0bfff), &v[APP_RW]);
	assert_null(proc_maps_find(m, 0x55d0c0a0c000));
	/* inside gaps */
	assert_null(proc_maps_find(m, 0x55d0c1000000));
	assert_null(proc_maps_find(m, 0x55d0c1f3dfff));
	assert_ptr_equal(proc_maps_find(m, 0x55d0c1f3e000), &v[HEAP]);
	assert_null(proc_maps_find(m, 0x7f3a21fe2000));
	assert_null(proc_maps_find(m, 0x7f3a21ffffff));
	assert_ptr_equal(proc_maps_find(m, 0x7f3a22000000), &v[PLUGIN_RX]);
	assert_ptr_equal(proc_maps_find(m, 0x7f3a21f7bfff), &v[LIBC_RX]);
	/* below the first mapping */
	assert_null(proc_maps_find(m, 0));
	assert_null(proc_maps_find(m, 0x55d0c09fffff));
	/* the last mapping and past it */
	assert_ptr_equal(proc_maps_find(m, 0xffffffffff600000), &v[VSYSCALL]);
	assert_ptr_equal(proc_maps_find(m, 0xffffffffff600fff), &v[VSYSCALL]);
	assert_null(proc_maps_find(m, 0xffffffffff601000));
	assert_null(proc_maps_find(m, UINT64_MAX));
}

/* The bisection agrees with a linear scan at every boundary of the fixture. */
static void test_find_matches_linear(void **state)
{
	const struct proc_maps *m = *state;
	size_t i, j, k;

	for (i = 0; i < m->n; i++) {
		uint64_t probes[] = {m->v[i].start - 1, m->v[i].start, m->v[i].end - 1,
				     m->v[i].end};

		for (k = 0; k < sizeof(probes) / sizeof(probes[0]); k++) {
			const struct map_entry *want = NULL;

			for (j = 0; j < m->n; j++) {
				if (m->v[j].start <= probes[k] && probes[k] < m->v[j].end)
					want = &m->v[j];
			}
			assert_ptr_equal(proc_maps_find(m, probes[k]), want);
		}
	}
}

static void test_find_empty(void **state)
{
	struct proc_maps m = {NULL, 0};

	(void)state;
	assert_null(proc_maps_find(&m, 0));
	assert_null(proc_maps_find(&m, 0x400000));
	assert_null(proc_maps_find(NULL, 0x400000));
}

static void test_malformed_file(void **state)
{
	struct proc_maps m = {(struct map_entry *)&m, 77};

	(void)state;
	/* the third line has garbage glued to the inode */
	assert_int_equal(parse_file("maps_malformed.txt", &m), -EINVAL);
	assert_null(m.v);
	assert_int_equal(m.n, 0);
}

static void test_malformed_lines(void **state)
{
	static const char *const bad[] = {
		"\n",
		" \n",
		"55d0c0a00000 r--p 00000000 fe:01 1 /x\n",		       /* no end */
		"55d0c0a00000-55d0c0a02000 r--q 00000000 fe:01 1 /x\n",	       /* bad perm */
		"55d0c0a00000-55d0c0a02000 w--p 00000000 fe:01 1 /x\n",	       /* perm order */
		"55d0c0a00000-55d0c0a02000 r-p 00000000 fe:01 1 /x\n",	       /* short perms */
		"55d0c0a00000-55d0c0a02000 r--p 0000000g fe:01 1 /x\n",	       /* bad offset */
		"55d0c0a00000-55d0c0a02000 r--p 00000000 fe01 1 /x\n",	       /* no ':' */
		"55d0c0a00000-55d0c0a02000 r--p 00000000 fe: 1 /x\n",	       /* no minor */
		"55d0c0a00000-55d0c0a02000 r--p 00000000 fe:01\n",	       /* no inode */
		"55d0c0a00000-55d0c0a02000 r--p 00000000 fe:01 /x\n",	       /* no inode */
		"55d0c0a00000-55d0c0a02000 r--p 00000000 fe:01 12x /x\n",      /* bad inode */
		"55d0c0a00000-55d0c0a02000 r--p 00000000 fe:01 -1 /x\n",       /* signed inode */
		"55d0c0a00000-55d0c0a02000  r--p 00000000 fe:01 1 /x\n",       /* double blank */
		" 55d0c0a00000-55d0c0a02000 r--p 00000000 fe:01 1 /x\n",       /* leading blank */
		"0x55d0c0a00000-55d0c0a02000 r--p 00000000 fe:01 1 /x\n",      /* 0x prefix */
		"55d0c0a00000-0x55d0c0a02000 r--p 00000000 fe:01 1 /x\n",      /* 0x prefix */
		"-55d0c0a00000-55d0c0a02000 r--p 00000000 fe:01 1 /x\n",       /* sign */
		"55d0c0a02000-55d0c0a00000 r--p 00000000 fe:01 1 /x\n",	       /* end < start */
		"55d0c0a00000-55d0c0a00000 r--p 00000000 fe:01 1 /x\n",	       /* empty range */
		"1ffffffffffffffff-2ffffffffffffffff r--p 00000000 fe:01 1\n", /* overflow */
		"1000-2000 r--p 00000000 100000000:01 1\n",		       /* major > u32 */
		"1000-2000 r--p 00000000 01:100000000 1\n",		       /* minor > u32 */
		"1000-2000 r--p 00000000 00:00 99999999999999999999\n",	       /* inode overflow */
		"1000-2000\tr--p 00000000 00:00 0\n",			       /* tab */
		"garbage\n",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct proc_maps m = {(struct map_entry *)&m, 77};
		int err = parse_string(bad[i], &m);

		if (err != -EINVAL)
			fail_msg("line %zu \"%s\": got %d, want -EINVAL", i, bad[i], err);
		assert_null(m.v);
		assert_int_equal(m.n, 0);
	}
}

static void test_embedded_nul(void **state)
{
	static const char text[] = "1000-2000 r--p 00000000 00:00 0 /a\0b\n";
	struct proc_maps m = {NULL, 0};
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	(void)state;
	assert_non_null(f);
	assert_int_equal(proc_maps_parse(f, &m), -EINVAL);
	fclose(f);
	assert_null(m.v);
}

static void test_empty_stream(void **state)
{
	struct proc_maps m = {(struct map_entry *)&m, 77};
	FILE *f = tmpfile();

	(void)state;
	assert_non_null(f);
	assert_int_equal(proc_maps_parse(f, &m), 0);
	fclose(f);
	assert_null(m.v);
	assert_int_equal(m.n, 0);
	proc_maps_free(&m);
}

static void test_last_line_without_newline(void **state)
{
	struct proc_maps m;

	(void)state;
	assert_int_equal(parse_string("1000-2000 r-xp 00001000 08:01 42 /bin/x\n"
				      "3000-4000 rw-p 00000000 00:00 0",
				      &m),
			 0);
	assert_int_equal(m.n, 2);
	assert_entry(&m.v[0], 0x1000, 0x2000, "r-xp", 0x1000, 8, 1, 42, "/bin/x", false);
	assert_entry(&m.v[1], 0x3000, 0x4000, "rw-p", 0, 0, 0, 0, NULL, false);
	proc_maps_free(&m);
}

static void test_path_edge_cases(void **state)
{
	struct proc_maps m;

	(void)state;
	assert_int_equal(parse_string(
				 /* only the final suffix is stripped */
				 "1000-2000 r--p 00000000 00:00 1   /a (deleted) b (deleted)\n"
				 /* a name that merely contains the word is left alone */
				 "2000-3000 r--p 00000000 00:00 2   /tmp/(deleted)\n"
				 /* a single blank before the path is enough */
				 "3000-4000 r--p 00000000 00:00 3 /x y\n"
				 /* trailing blanks belong to the path */
				 "4000-5000 r--p 00000000 00:00 4     /z \n"
				 /* anonymous names from prctl(PR_SET_VMA) */
				 "5000-6000 rw-p 00000000 00:00 0    [anon:my arena]\n",
				 &m),
			 0);
	assert_int_equal(m.n, 5);
	assert_string_equal(m.v[0].path, "/a (deleted) b");
	assert_true(m.v[0].deleted);
	assert_string_equal(m.v[1].path, "/tmp/(deleted)");
	assert_false(m.v[1].deleted);
	assert_string_equal(m.v[2].path, "/x y");
	assert_false(m.v[2].deleted);
	assert_string_equal(m.v[3].path, "/z ");
	assert_string_equal(m.v[4].path, "[anon:my arena]");
	proc_maps_free(&m);
}

static void test_long_line(void **state)
{
	const size_t path_len = 256 * 1024;
	struct proc_maps m;
	FILE *f = tmpfile();
	char *path = malloc(path_len + 1);
	size_t i;

	(void)state;
	assert_non_null(f);
	assert_non_null(path);
	path[0] = '/';
	for (i = 1; i < path_len; i++)
		path[i] = (i % 64 == 0) ? '/' : (i % 7 == 0 ? ' ' : 'a' + i % 26);
	path[path_len] = '\0';
	fprintf(f, "1000-2000 r-xp 00000000 fe:01 7 %s (deleted)\n", path);
	fprintf(f, "2000-3000 r--p 00001000 fe:01 7 %s\n", path);
	rewind(f);

	assert_int_equal(proc_maps_parse(f, &m), 0);
	fclose(f);
	assert_int_equal(m.n, 2);
	assert_int_equal(strlen(m.v[0].path), path_len);
	assert_string_equal(m.v[0].path, path);
	assert_true(m.v[0].deleted);
	assert_string_equal(m.v[1].path, path);
	assert_false(m.v[1].deleted);
	assert_true(m.v[1].offset == 0x1000);
	proc_maps_free(&m);
	free(path);
}

static void test_unsorted_input_is_sorted(void **state)
{
	struct proc_maps m;

	(void)state;
	assert_int_equal(parse_string("5000-6000 r--p 00000000 00:00 0 /c\n"
				      "1000-2000 r--p 00000000 00:00 0 /a\n"
				      "3000-4000 r--p 00000000 00:00 0 /b\n",
				      &m),
			 0);
	assert_int_equal(m.n, 3);
	assert_string_equal(m.v[0].path, "/a");
	assert_string_equal(m.v[1].path, "/b");
	assert_string_equal(m.v[2].path, "/c");
	assert_ptr_equal(proc_maps_find(&m, 0x3fff), &m.v[1]);
	assert_null(proc_maps_find(&m, 0x4000));
	proc_maps_free(&m);
}

static void test_free_is_safe(void **state)
{
	struct proc_maps m;

	(void)state;
	proc_maps_free(NULL);
	assert_int_equal(parse_string("1000-2000 r--p 00000000 00:00 0 /a\n", &m), 0);
	proc_maps_free(&m);
	assert_null(m.v);
	assert_int_equal(m.n, 0);
	proc_maps_free(&m); /* a second call on the emptied struct does nothing */
}

/* Executable mappings only: the others checked, counted, not kept. */
static void test_exec_only(void **state)
{
	static const char text[] = "1000-2000 r--p 00000000 08:01 42 /bin/x\n"
				   "2000-3000 r-xp 00001000 08:01 42 /bin/x\n"
				   "3000-4000 rw-p 00000000 00:00 0\n"
				   "5000-6000 r-xp 00000000 00:00 0 [vdso]\n";
	static const char bad[] = "2000-3000 r-xp 00001000 08:01 42 /bin/x\n"
				  "3000-4000 rw-p 0000zz00 00:00 0\n";
	static const char none[] = "3000-4000 rw-p 00000000 00:00 0\n";
	struct proc_maps m;
	size_t lines = 99;
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	(void)state;
	assert_non_null(f);
	assert_int_equal(proc_maps_parse_exec(f, &m, &lines), 0);
	fclose(f);
	assert_int_equal(lines, 4);
	assert_int_equal(m.n, 2);
	assert_entry(&m.v[0], 0x2000, 0x3000, "r-xp", 0x1000, 8, 1, 42, "/bin/x", false);
	assert_string_equal(m.v[1].path, "[vdso]");
	proc_maps_free(&m);
	/* a malformed line that is not executable still fails the file */
	f = fmemopen((void *)bad, sizeof(bad) - 1, "r");
	assert_non_null(f);
	assert_int_equal(proc_maps_parse_exec(f, &m, &lines), -EINVAL);
	fclose(f);
	assert_null(m.v);
	/* lines, none kept: not an empty file */
	f = fmemopen((void *)none, sizeof(none) - 1, "r");
	assert_non_null(f);
	assert_int_equal(proc_maps_parse_exec(f, &m, &lines), 0);
	fclose(f);
	assert_int_equal(lines, 1);
	assert_int_equal(m.n, 0);
	proc_maps_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_basic_entries, setup_basic, teardown_basic),
		cmocka_unit_test_setup_teardown(test_find_boundaries, setup_basic, teardown_basic),
		cmocka_unit_test_setup_teardown(test_find_matches_linear, setup_basic,
						teardown_basic),
		cmocka_unit_test(test_find_empty),
		cmocka_unit_test(test_malformed_file),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_embedded_nul),
		cmocka_unit_test(test_empty_stream),
		cmocka_unit_test(test_last_line_without_newline),
		cmocka_unit_test(test_path_edge_cases),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_unsorted_input_is_sorted),
		cmocka_unit_test(test_free_is_safe),
		cmocka_unit_test(test_exec_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
