// SPDX-License-Identifier: GPL-2.0
/*
 * The output file: atomic replace keeping mode and owner, nothing visible before commit and
 * nothing left behind on abort or failure; symlinks followed as the kernel's
 * protected_symlinks rule allows, the link kept; FIFOs, character devices and inherited
 * descriptors written in place. Every path is inside the test's own temporary directory.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
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
	/* the file being written has no name yet (O_TMPFILE): a SIGKILL leaves nothing */
	assert_int_equal(n_entries(dir), 1);
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

static void write_text(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void expect_text(const char *path, const char *text)
{
	char buf[64] = {};
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, text);
}

static void put(const char *path, const char *text)
{
	struct out_file *o;

	assert_int_equal(out_file__open(path, &o), 0);
	fputs(text, out_file__stream(o));
	assert_int_equal(out_file__commit(o), 0);
}

/* An existing file keeps its mode and, as root, its owner. */
static void test_keeps_mode_owner(void **state)
{
	const char *dir = *state;
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/m.folded", dir);
	write_text(path, "old\n", 0604);
	if (geteuid() == 0)
		assert_int_equal(chown(path, 65534, 65534), 0);
	put(path, "new\n");
	expect_text(path, "new\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0604);
	if (geteuid() == 0) {
		assert_int_equal(st.st_uid, 65534);
		assert_int_equal(st.st_gid, 65534);
	}
}

/* Under sudo a new file belongs to the user who ran sudo. */
static void test_sudo_owner(void **state)
{
	const char *dir = *state;
	char path[256];
	struct stat st;

	if (geteuid() != 0)
		cp_skip("not root");
	snprintf(path, sizeof(path), "%s/s.folded", dir);
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65533", 1);
	put(path, "x\n");
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_gid, 65533);
}

/* A symlink stays a symlink; its target is replaced. */
static void test_symlink_followed(void **state)
{
	const char *dir = *state;
	char link[256], target[256], got[256] = {};
	struct stat st;

	snprintf(target, sizeof(target), "%s/t.folded", dir);
	snprintf(link, sizeof(link), "%s/l.folded", dir);
	write_text(target, "old\n", 0644);
	assert_int_equal(symlink("t.folded", link), 0);
	put(link, "new\n");
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_true(readlink(link, got, sizeof(got) - 1) > 0);
	assert_string_equal(got, "t.folded");
	expect_text(target, "new\n");
	assert_int_equal(n_entries(dir), 2);
}

/* Another user's link in a sticky world-writable directory is not followed (as /tmp). */
static void test_symlink_protected(void **state)
{
	const char *dir = *state;
	char sticky[256], link[256], target[256];
	struct out_file *o = NULL;

	if (geteuid() != 0)
		cp_skip("not root: cannot make another user's link");
	snprintf(sticky, sizeof(sticky), "%s/sticky", dir);
	snprintf(link, sizeof(link), "%s/sticky/l", dir);
	snprintf(target, sizeof(target), "%s/victim", dir);
	assert_int_equal(mkdir(sticky, 0755), 0);
	assert_int_equal(chmod(sticky, 01777), 0);
	write_text(target, "precious\n", 0644);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(lchown(link, 65534, 65534), 0);
	assert_int_equal(out_file__open(link, &o), -EACCES);
	assert_null(o);
	expect_text(target, "precious\n");
	/* our own link there is followed */
	assert_int_equal(lchown(link, 0, 0), 0);
	put(link, "ours\n");
	expect_text(target, "ours\n");
}

/*
 * A link to a file that does not exist yet: the file is created where the link points (as
 * `echo > link` does), through a relative link and a chain of two, the links kept; a link
 * into a missing directory is ENOENT; a link loop ELOOP.
 */
static void test_symlink_dangling(void **state)
{
	const char *dir = *state;
	char link[256], link2[256], target[256], sub[256], got[256] = {};
	struct out_file *o = NULL;
	struct stat st;

	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(link, sizeof(link), "%s/l.folded", dir);
	snprintf(target, sizeof(target), "%s/sub/new.folded", dir);
	assert_int_equal(symlink("sub/new.folded", link), 0);
	put(link, "first\n");
	expect_text(target, "first\n");
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_true(readlink(link, got, sizeof(got) - 1) > 0);
	assert_string_equal(got, "sub/new.folded");
	assert_int_equal(n_entries(sub), 1);

	/* a chain: l2 -> sub/l3 -> (relative to sub/) chained.folded */
	snprintf(link2, sizeof(link2), "%s/l2.folded", dir);
	assert_int_equal(symlink("sub/l3", link2), 0);
	snprintf(link, sizeof(link), "%s/sub/l3", dir);
	assert_int_equal(symlink("chained.folded", link), 0);
	put(link2, "chain\n");
	snprintf(target, sizeof(target), "%s/sub/chained.folded", dir);
	expect_text(target, "chain\n");

	snprintf(link, sizeof(link), "%s/nodir.folded", dir);
	assert_int_equal(symlink("missing/x.folded", link), 0);
	assert_int_equal(out_file__open(link, &o), -ENOENT);
	assert_null(o);

	snprintf(link, sizeof(link), "%s/loop", dir);
	assert_int_equal(symlink("loop", link), 0);
	assert_int_equal(out_file__open(link, &o), -ELOOP);
	assert_null(o);
}

/* Another user's dangling link in a sticky world-writable directory creates nothing. */
static void test_symlink_dangling_protected(void **state)
{
	const char *dir = *state;
	char sticky[256], link[256], target[256];
	struct out_file *o = NULL;
	struct stat st;

	if (geteuid() != 0)
		cp_skip("not root: cannot make another user's link");
	snprintf(sticky, sizeof(sticky), "%s/sticky", dir);
	snprintf(link, sizeof(link), "%s/sticky/l", dir);
	snprintf(target, sizeof(target), "%s/planted", dir);
	assert_int_equal(mkdir(sticky, 0755), 0);
	assert_int_equal(chmod(sticky, 01777), 0);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(lchown(link, 65534, 65534), 0);
	assert_int_equal(out_file__open(link, &o), -EACCES);
	assert_null(o);
	assert_int_equal(lstat(target, &st), -1);
	/* root's own link there is followed, and creates the file */
	assert_int_equal(lchown(link, 0, 0), 0);
	put(link, "ours\n");
	expect_text(target, "ours\n");
}

/* Read everything from path in a child; its text comes back through a pipe. */
/* A child that opens the FIFO for reading after delay_ms and sends what it reads to *out. */
static pid_t reader(const char *path, int delay_ms, int *out)
{
	int p[2];
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[256];
		ssize_t n;
		int fd;

		close(p[0]);
		usleep((useconds_t)delay_ms * 1000);
		fd = open(path, O_RDONLY);
		while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
			if (write(p[1], buf, (size_t)n) != n)
				_exit(2);
		_exit(fd >= 0 ? 0 : 1);
	}
	close(p[1]);
	*out = p[0];
	return pid;
}

/*
 * A FIFO is written in place (not replaced by a file), and must have a reader: one that opens
 * its end up to CP_FIFO_READER_WAIT_MS later is waited for, none at all is ENXIO.
 */
static void test_fifo(void **state)
{
	const char *dir = *state;
	char path[256], buf[64] = {};
	struct out_file *o = NULL;
	struct stat st;
	int rd, status;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(out_file__open(path, &o), -ENXIO); /* no reader: not a hang */
	assert_null(o);
	pid = reader(path, CP_FIFO_READER_WAIT_MS / 4, &rd); /* a late reader: waited for */
	assert_int_equal(out_file__open(path, &o), 0);
	assert_non_null(o);
	fputs("a;b 1\n", out_file__stream(o));
	assert_int_equal(out_file__commit(o), 0);
	assert_true(read(rd, buf, sizeof(buf) - 1) > 0);
	close(rd);
	assert_string_equal(buf, "a;b 1\n");
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(n_entries(dir), 1);
}

/* /proc/self/fd/N and /dev/fd/N write to that descriptor (here a pipe), in place. */
static void test_inherited_fd(void **state)
{
	char path[64], buf[64] = {};
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[1]);
	put(path, "x 1\n");
	snprintf(path, sizeof(path), "/dev/fd/%d", p[1]);
	put(path, "y 2\n");
	close(p[1]);
	assert_int_equal(read(p[0], buf, sizeof(buf) - 1), 8);
	assert_string_equal(buf, "x 1\ny 2\n");
	close(p[0]);
}

/* A character device (a null device node of our own) is written in place, not replaced. */
static void test_char_device(void **state)
{
	const char *dir = *state;
	char path[256];
	struct stat st;

	if (geteuid() != 0)
		cp_skip("not root: cannot make a device node");
	snprintf(path, sizeof(path), "%s/null", dir);
	assert_int_equal(mknod(path, S_IFCHR | 0666, makedev(1, 3)), 0);
	put(path, "gone\n");
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(n_entries(dir), 1);
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
	/* the suffix in any case */
	assert_int_equal(format_from_name("X.PB.GZ"), FORMAT_PPROF);
	assert_int_equal(format_from_name("x.Json"), FORMAT_JSON);
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
		cmocka_unit_test_setup_teardown(test_keeps_mode_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sudo_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_protected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_dangling, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_dangling_protected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo, setup, teardown),
		cmocka_unit_test(test_inherited_fd),
		cmocka_unit_test_setup_teardown(test_char_device, setup, teardown),
		cmocka_unit_test(test_stdout),
		cmocka_unit_test(test_format_from_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
