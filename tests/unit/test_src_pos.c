// SPDX-License-Identifier: GPL-2.0
/*
 * Lines and columns of character positions in source files (interp/src_pos.h): positions in
 * UTF-16 units of UTF-8 text (V8's), a file changed under the same path read again, what is
 * not a file refused; and what runtime_name_copied makes of what BPF copied: a line BPF made
 * (no file read: node's own scripts are no files), a builtin named as one.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmocka_inc.h"
#include "interp/runtime.h"
#include "interp/src_pos.h"

/* our own files, read as root reads them */
static const struct src_pos_who host = {.root = "/", .euid = 0};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_starts(void **state)
{
	/* "é" is 2 bytes, 1 unit; the emoji 4 bytes, 2 units */
	const char *t = "ab\n\xc3\xa9x\n\xf0\x9f\x98\x80y\nz";
	uint32_t s[8];
	size_t n;

	(void)state;
	n = src_pos_starts((const unsigned char *)t, strlen(t), s, 8);
	assert_int_equal(n, 4);
	assert_int_equal(s[0], 0);
	assert_int_equal(s[1], 3);
	assert_int_equal(s[2], 6);
	assert_int_equal(s[3], 10);
	/* a full array stops there */
	assert_int_equal(src_pos_starts((const unsigned char *)t, strlen(t), s, 2), 2);
}

static void test_file(void **state)
{
	char dir[] = "/tmp/cp_srcpos_XXXXXX", path[64];
	int line, col;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.js", dir);
	write_file(path, "// one\nfunction f(x) {\n  return x;\n}\n");
	/* "(" of f: line 2, column 11 */
	assert_int_equal(src_pos_line(&host, path, 17, &line, &col), 0);
	assert_int_equal(line, 2);
	assert_int_equal(col, 11);
	assert_int_equal(src_pos_line(&host, path, 0, &line, &col), 0);
	assert_int_equal(line, 1);
	assert_int_equal(col, 1);
	assert_int_equal(src_pos_line(&host, path, 1000, &line, &col), -ERANGE);
	/* the file changed (its size too): read again */
	write_file(path, "\n\n\nfunction f(x) {}\n");
	assert_int_equal(src_pos_line(&host, path, 13, &line, &col), 0);
	assert_int_equal(line, 4);
	assert_int_equal(col, 11);
	/* not a file of this machine, a directory, a relative name */
	assert_int_equal(src_pos_line(&host, "node:internal/main/run_main_module", 3, &line, &col),
			 -ENOENT);
	assert_true(src_pos_line(&host, dir, 3, &line, &col) < 0);
	assert_int_equal(src_pos_line(&host, "a.js", 3, &line, &col), -ENOENT);
	src_pos_reset();
	unlink(path);
	rmdir(dir);
}

/*
 * The path is the target's: a FIFO (an open or a read that would block), a link to /dev/zero
 * (no end), a huge file, a file of too many lines, a link planted to any file, a file its user
 * may not read (a process names /etc/shadow its script: its lines are not told) are refused,
 * at once; the path is taken inside the process's root, ".." kept there.
 */
static void test_hostile(void **state)
{
	char dir[] = "/tmp/cp_srcpos_XXXXXX", p[128], q[128];
	struct src_pos_who in = {.root = dir, .euid = 0}, user = {.root = "/", .euid = 4242};
	int line, col, fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/fifo.js", dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(src_pos_line(&host, p, 3, &line, &col), -EINVAL);
	unlink(p);
	snprintf(p, sizeof(p), "%s/zero.js", dir);
	assert_int_equal(symlink("/dev/zero", p), 0);
	assert_int_equal(src_pos_line(&host, p, 3, &line, &col), -ELOOP);
	unlink(p);
	/* a link to a file anyone may read: a link all the same */
	snprintf(q, sizeof(q), "%s/real.js", dir);
	write_file(q, "a\nb\n");
	chmod(q, 0644);
	snprintf(p, sizeof(p), "%s/link.js", dir);
	assert_int_equal(symlink(q, p), 0);
	assert_int_equal(src_pos_line(&host, p, 2, &line, &col), -ELOOP);
	assert_int_equal(src_pos_line(&host, q, 2, &line, &col), 0);
	assert_int_equal(line, 2);
	unlink(p);
	/* inside the root given: "/real.js" there, and ".." does not leave it */
	assert_int_equal(src_pos_line(&in, "/real.js", 2, &line, &col), 0);
	assert_int_equal(line, 2);
	assert_int_not_equal(src_pos_line(&in, "/../../../etc/passwd", 2, &line, &col), 0);
	assert_int_equal(src_pos_line(&in, q, 2, &line, &col), -ENOENT);
	/* its user may read a file of all, and of its own; not root's 0600 (nor one unknown) */
	assert_int_equal(src_pos_line(&user, q, 2, &line, &col), 0);
	chmod(q, 0600);
	assert_int_equal(src_pos_line(&user, q, 2, &line, &col), -EACCES);
	assert_int_equal(chown(q, 4242, 0), 0);
	assert_int_equal(src_pos_line(&user, q, 2, &line, &col), 0);
	user.euid = -1;
	assert_int_equal(src_pos_line(&user, q, 2, &line, &col), -EACCES);
	unlink(q);
	/* over the size (sparse: no disk), over the lines */
	snprintf(p, sizeof(p), "%s/huge.js", dir);
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)SRC_POS_MAX_FILE + 1), 0);
	close(fd);
	assert_int_equal(src_pos_line(&host, p, 3, &line, &col), -EFBIG);
	fd = open(p, O_TRUNC | O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	{
		static char nl[1 << 16];

		memset(nl, '\n', sizeof(nl));
		for (size_t w = 0; w <= SRC_POS_MAX_LINES; w += sizeof(nl))
			assert_int_equal(write(fd, nl, sizeof(nl)), (ssize_t)sizeof(nl));
	}
	close(fd);
	assert_int_equal(src_pos_line(&host, p, 3, &line, &col), -EFBIG);
	unlink(p);
	/* no process to read as: nothing read */
	assert_int_equal(src_pos_line(NULL, "/etc/passwd", 3, &line, &col), -ENOENT);
	src_pos_reset();
	rmdir(dir);
}

static void test_name_copied(void **state)
{
	struct cp_rt_name n = {.flags = CP_RT_NAME_OK | CP_RT_FILE_OK | CP_RT_NAME_POS |
					CP_RT_NAME_LINE,
			       .firstline = 1257,
			       .column = 33,
			       .name = "Module.load",
			       .file = "node:internal/modules/cjs/loader"};
	struct rt_frame_info fi;

	(void)state;
	assert_int_equal(runtime_name_copied(&n, &host, &fi), 0);
	assert_string_equal(fi.file, "node:internal/modules/cjs/loader");
	assert_int_equal(fi.firstline, 1257);
	assert_int_equal(fi.line, 1257);
	assert_int_equal(fi.column, 33);
	/* a position (no CP_RT_NAME_LINE) in a script that is no file: no line */
	n.flags &= ~CP_RT_NAME_LINE;
	assert_int_equal(runtime_name_copied(&n, &host, &fi), 0);
	assert_int_equal(fi.firstline, 0);
	assert_int_equal(fi.line, -1);
	/* a builtin */
	n = (struct cp_rt_name){.flags = CP_RT_NAME_OK | CP_RT_NAME_BUILTIN, .name = "forEach"};
	assert_int_equal(runtime_name_copied(&n, &host, &fi), 0);
	assert_string_equal(fi.name, "forEach [builtin]");
	assert_string_equal(fi.file, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_starts),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_name_copied),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
