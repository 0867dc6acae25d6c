// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include "cmocka_inc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
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

/* The executable mappings of process pid, read as maps text (as on kernels before 6.11). */
static int read_text(pid_t pid, struct proc_maps *m)
{
	char path[64];
	size_t lines;
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	assert_non_null(f);
	err = proc_maps_parse_exec(f, m, &lines);
	fclose(f);
	return err ? err : lines ? 0 : -ESRCH;
}

/* The same with PROCMAP_QUERY; gate as the text of this process shows it. */
static int read_query(pid_t pid, const struct map_entry *gate, struct proc_maps *m)
{
	char path[64];
	int fd, err;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	err = proc_maps_query_exec(fd, gate, m);
	close(fd);
	return err;
}

static void assert_same_maps(const struct proc_maps *t, const struct proc_maps *q)
{
	assert_int_equal(q->n, t->n);
	for (size_t i = 0; i < t->n; i++) {
		const struct map_entry *a = &t->v[i], *b = &q->v[i];

		assert_entry(b, a->start, a->end,
			     (const char[]){a->readable ? 'r' : '-', a->writable ? 'w' : '-',
					    a->executable ? 'x' : '-', a->shared ? 's' : 'p', 0},
			     a->offset, a->dev_major, a->dev_minor, a->inode, a->path, a->deleted);
	}
}

static const struct map_entry *find_path(const struct proc_maps *m, const char *path)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].path && !strcmp(m->v[i].path, path))
			return &m->v[i];
	return NULL;
}

/* Map the first page of the file open on fd readable and executable; NULL on failure. */
static void *map_exec(int fd)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

struct odd_maps {
	char dir[64];
	char nl_path[128]; /* "DIR/cp map\nx (deleted)", mapped, still there */
	char gone[128];	   /* "DIR/gone", mapped then removed */
	void *anon, *named, *memfd, *nl, *del;
};

/*
 * This process maps what maps writes in odd ways: anonymous executable memory (JIT code), one
 * named with PR_SET_VMA_ANON_NAME ("[anon:cp jit]"), a memfd ("/memfd:cp-code (deleted)"), a
 * file whose name has a newline, a blank and ends in " (deleted)", and a file removed since.
 * False when the files cannot be mapped executable (a noexec directory).
 */
static bool map_odd(struct odd_maps *o)
{
	const char *tmp = getenv("TMPDIR");
	char page[4096] = {0x90};
	int fd;

	memset(o, 0, sizeof(*o));
	snprintf(o->dir, sizeof(o->dir), "%s/cp_maps_XXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(o->dir));
	o->anon = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(o->anon != MAP_FAILED);
	o->named = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(o->named != MAP_FAILED);
	/* without CONFIG_ANON_VMA_NAME it stays anonymous: compared all the same */
	(void)prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)o->named, 4096, "cp jit");
	fd = memfd_create("cp-code", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, page, sizeof(page)), sizeof(page));
	o->memfd = map_exec(fd);
	close(fd);
	assert_non_null(o->memfd);
	snprintf(o->nl_path, sizeof(o->nl_path), "%s/cp map\nx (deleted)", o->dir);
	snprintf(o->gone, sizeof(o->gone), "%s/gone", o->dir);
	fd = open(o->nl_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, page, sizeof(page)), sizeof(page));
	o->nl = map_exec(fd);
	close(fd);
	fd = open(o->gone, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, page, sizeof(page)), sizeof(page));
	o->del = map_exec(fd);
	close(fd);
	unlink(o->gone);
	return o->nl && o->del;
}

static void unmap_odd(struct odd_maps *o)
{
	munmap(o->anon, 8192);
	munmap(o->named, 4096);
	munmap(o->memfd, 4096);
	if (o->nl)
		munmap(o->nl, 4096);
	if (o->del)
		munmap(o->del, 4096);
	unlink(o->nl_path);
	unlink(o->gone);
	rmdir(o->dir);
}

/* A child that waits until the pipe end *release is closed (by the caller), then exits. */
static pid_t fork_waiting(int *release)
{
	int pipefd[2];
	pid_t child;
	char c;

	assert_int_equal(pipe(pipefd), 0);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		close(pipefd[1]);
		(void)!read(pipefd[0], &c, 1);
		_exit(0);
	}
	close(pipefd[0]);
	*release = pipefd[1];
	return child;
}

/* PROCMAP_QUERY answers for this process and a child exactly what the text of maps says. */
static void test_query_matches_text(void **state)
{
	struct proc_maps t = {}, q = {}, self = {};
	const struct map_entry *e;
	struct odd_maps o;
	char want[160];
	int err, release;
	pid_t child;

	(void)state;
	if (!map_odd(&o)) {
		unmap_odd(&o);
		cp_skip("TMPDIR cannot be mapped executable");
	}
	assert_int_equal(read_text(getpid(), &t), 0);
	err = read_query(getpid(), proc_maps_gate(&t), &q);
	if (err == -ENOTTY) {
		proc_maps_free(&t);
		unmap_odd(&o);
		cp_skip("no PROCMAP_QUERY (Linux before 6.11)");
	}
	assert_int_equal(err, 0);
	assert_same_maps(&t, &q);
	/* each odd mapping is there, as the text parser has always named it */
	e = proc_maps_find(&q, (uintptr_t)o.anon);
	assert_non_null(e);
	assert_null(e->path);
	assert_true(e->end - e->start >= 8192);
	e = proc_maps_find(&q, (uintptr_t)o.memfd);
	assert_non_null(e);
	assert_string_equal(e->path, "/memfd:cp-code");
	assert_true(e->deleted);
	snprintf(want, sizeof(want), "%s/cp map\\012x", o.dir);
	e = proc_maps_find(&q, (uintptr_t)o.nl);
	assert_non_null(e);
	assert_string_equal(e->path, want);
	assert_true(e->deleted);
	e = proc_maps_find(&q, (uintptr_t)o.del);
	assert_non_null(e);
	assert_string_equal(e->path, o.gone);
	assert_true(e->deleted);
	assert_non_null(proc_maps_find(&q, (uintptr_t)o.named));
	assert_true(find_path(&q, "[vdso]") || !find_path(&t, "[vdso]"));
	self = t;
	proc_maps_free(&q);

	/* a child with the same mappings */
	child = fork_waiting(&release);
	t = (struct proc_maps){};
	assert_int_equal(read_text(child, &t), 0);
	assert_int_equal(read_query(child, proc_maps_gate(&self), &q), 0);
	assert_same_maps(&t, &q);
	assert_non_null(proc_maps_find(&q, (uintptr_t)o.nl));
	assert_int_equal(q.n, self.n);
	proc_maps_free(&t);
	proc_maps_free(&q);
	close(release);
	assert_int_equal(waitpid(child, NULL, 0), child);
	proc_maps_free(&self);
	unmap_odd(&o);
}

/* The text of maps open on fd from its start: 0 lines when empty, or the read's error. */
static int text_lines(int fd, size_t *lines)
{
	struct proc_maps m = {};
	FILE *f;
	int err;

	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	f = fdopen(dup(fd), "r");
	assert_non_null(f);
	err = proc_maps_parse_exec(f, &m, lines);
	fclose(f);
	proc_maps_free(&m);
	return err;
}

/*
 * A process that exited, its maps opened before: when a zombie the text is empty, when reaped
 * its read fails with ESRCH; the query says -ESRCH both times (the process is gone).
 */
static void test_query_exited(void **state)
{
	struct proc_maps m = {};
	char path[64];
	size_t lines = 1;
	int fd, err, release;
	siginfo_t si;
	pid_t child;

	(void)state;
	child = fork_waiting(&release);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)child);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	err = proc_maps_query_exec(fd, NULL, &m);
	if (err == -ENOTTY) {
		close(fd);
		cp_skip("no PROCMAP_QUERY (Linux before 6.11)");
	}
	assert_int_equal(err, 0);
	assert_true(m.n > 0);
	proc_maps_free(&m);
	close(release);
	/* a zombie */
	assert_int_equal(waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT), 0);
	assert_int_equal(proc_maps_query_exec(fd, NULL, &m), -ESRCH);
	assert_null(m.v);
	assert_int_equal(text_lines(fd, &lines), 0);
	assert_int_equal(lines, 0);
	/* reaped */
	assert_int_equal(waitpid(child, NULL, 0), child);
	assert_int_equal(proc_maps_query_exec(fd, NULL, &m), -ESRCH);
	assert_null(m.v);
	err = text_lines(fd, &lines);
	assert_true(err == -ESRCH || (!err && !lines));
	close(fd);
}

/* On a file (as on kernels before 6.11) the query reports -ENOTTY: read the text. */
static void test_query_not_maps(void **state)
{
	struct proc_maps m = {};
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(proc_maps_query_exec(fd, NULL, &m), -ENOTTY);
	assert_null(m.v);
	close(fd);
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
		cmocka_unit_test(test_query_matches_text),
		cmocka_unit_test(test_query_exited),
		cmocka_unit_test(test_query_not_maps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
