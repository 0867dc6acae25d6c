// SPDX-License-Identifier: GPL-2.0
/*
 * CPython detection (interp/py_detect.h): on the fake objects of tests/fixtures/fake_python.c
 * (always built), then on every real interpreter of the machine (pyenv's, Debian's static
 * python3.11) with the interpreter itself as the oracle: sys.hexversion, and the addresses
 * of the running process checked against what it reports through ctypes where it can.
 */
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/wait.h>
#include "cmocka_inc.h"
#include "elf/elf_named.h"
#include "interp/py_detect.h"
#include "proc/proc_snapshot.h"

static int detect_path(const char *path, struct py_object_info *info)
{
	const char *base = strrchr(path, '/');
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err;

	assert_true(fd >= 0);
	err = py_detect_object(fd, base ? base + 1 : path, info);
	close(fd);
	return err;
}

static void fake(char *buf, size_t len, const char *name)
{
	char sub[128];

	snprintf(sub, sizeof(sub), "fakepy/%s", name);
	fixture(buf, len, sub);
}

static void test_version_parse(void **state)
{
	(void)state;
	assert_int_equal(py_version_parse("3.10.13 (main, May", 18), 0x030a0df0);
	assert_int_equal(py_version_parse("2.7.18 (default", 15), 0x020712f0);
	assert_int_equal(py_version_parse("3.13.0rc1 (main", 15), 0x030d00c0);
	assert_int_equal(py_version_parse("3.12.0a4 (x", 11), 0x030c00a0);
	assert_int_equal(py_version_parse("3.11.2+ (main", 13), 0x030b02f0);
	assert_int_equal(py_version_parse("3.11 (main", 10), 0);
	assert_int_equal(py_version_parse("/usr/lib/3.11.2/x", 17), 0);
	assert_int_equal(py_version_parse("3.11.2", 6), 0); /* no space: not sys.version */

	assert_int_equal(py_version_from_name("libpython3.6m.so.1.0"), PY_HEX(3, 6, 0));
	assert_int_equal(py_version_from_name("libpython3.13.so.1.0"), PY_HEX(3, 13, 0));
	assert_int_equal(py_version_from_name("python2.7"), PY_HEX(2, 7, 0));
	assert_int_equal(py_version_from_name("python3"), 0);
	assert_int_equal(py_version_from_name("libc.so.6"), 0);

	assert_true(py_version_supported(0x030d00f0));
	assert_true(py_version_supported(0x020712f0));
	assert_true(py_version_supported(0x030600f0));
	assert_false(py_version_supported(0x030500f0));
	assert_false(py_version_supported(0x030e00f0));
}

static void test_fake_objects(void **state)
{
	struct py_object_info info;
	char path[PATH_MAX];

	(void)state;
	/* 3.12: Py_Version in .rodata wins over the name */
	fake(path, sizeof(path), "libpython3.12.so.1.0");
	assert_int_equal(detect_path(path, &info), 0);
	assert_int_equal(info.hexversion, 0x030c01f0);
	assert_int_equal(info.source, PY_VER_PY_VERSION);
	assert_true(info.micro_known);
	assert_false(info.stripped);
	assert_int_not_equal(info.runtime, 0);
	assert_int_equal(info.runtime_size, 512 * 8);
	assert_int_not_equal(info.code_type, 0);
	assert_int_not_equal(info.none, 0);
	assert_true(info.eval_end > info.eval_start && info.eval_start);
	assert_int_equal(info.tstate_current, 0);
	assert_int_equal(info.tss_tstate_tlsoff, -1);

	/* no Py_Version (before 3.11): the library name, without a patch level */
	fake(path, sizeof(path), "libpython3.9.so.1.0");
	assert_int_equal(detect_path(path, &info), 0);
	assert_int_equal(info.hexversion, PY_HEX(3, 9, 0));
	assert_int_equal(info.source, PY_VER_NAME);
	assert_false(info.micro_known);

	/* 2.7's names */
	fake(path, sizeof(path), "libpython2.7.so.1.0");
	assert_int_equal(detect_path(path, &info), 0);
	assert_int_equal(info.hexversion, PY_HEX(2, 7, 0));
	assert_int_not_equal(info.tstate_current, 0);
	assert_int_equal(info.runtime, 0);

	/* an executable, stripped: .dynsym is enough */
	fake(path, sizeof(path), "python3.13");
	assert_int_equal(detect_path(path, &info), 0);
	assert_true(info.stripped);
	assert_int_equal(info.hexversion, 0x030d01f0);
	assert_false(info.free_threaded);

	/* the free-threaded build is refused, with its version said */
	fake(path, sizeof(path), "libpython3.13t.so.1.0");
	assert_int_equal(detect_path(path, &info), -ENOTSUP);
	assert_true(info.free_threaded);
	assert_int_equal(info.hexversion, 0x030d00f0);

	/* not CPython: a program, libc */
	fixture(path, sizeof(path), "fix_tree");
	assert_int_equal(detect_path(path, &info), -ENOENT);
	assert_int_equal(detect_path("/lib/x86_64-linux-gnu/libc.so.6", &info), -ENOENT);
}

/* ---- the machine's interpreters ------------------------------------------------------------ */

struct interp {
	char bin[2048];	    /* the interpreter to run */
	char obj[PATH_MAX]; /* the object holding CPython: libpython, or bin itself */
};

static size_t find_interpreters(struct interp *out, size_t max)
{
	const char *env = getenv("PYENV_ROOT");
	char root[1024], dir[1100];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	if (env && *env)
		snprintf(root, sizeof(root), "%s", env);
	else
		snprintf(root, sizeof(root), "%s/.pyenv", getenv("HOME") ? getenv("HOME") : "/");
	snprintf(dir, sizeof(dir), "%s/versions", root);
	d = opendir(dir);
	while (d && (de = readdir(d)) && n < max) {
		char lib[PATH_MAX];
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(out[n].bin, sizeof(out[n].bin), "%s/%s/bin/python", dir, de->d_name);
		if (access(out[n].bin, X_OK))
			continue;
		/* the object: the libpython the launcher needs, else the binary */
		f = tool_output("ldd '%s' 2>/dev/null | awk '/libpython/ {print $3}'", out[n].bin);
		if (!fgets(lib, sizeof(lib), f))
			lib[0] = 0;
		pclose(f);
		lib[strcspn(lib, "\n")] = 0;
		snprintf(out[n].obj, sizeof(out[n].obj), "%s", *lib ? lib : out[n].bin);
		n++;
	}
	if (d)
		closedir(d);
	/* Debian's interpreter: libpython linked in statically, stripped, non-PIE */
	if (n < max && !access("/usr/bin/python3.11", X_OK)) {
		snprintf(out[n].bin, sizeof(out[n].bin), "/usr/bin/python3.11");
		snprintf(out[n].obj, sizeof(out[n].obj), "/usr/bin/python3.11");
		n++;
	}
	return n;
}

static uint32_t hexversion_of(const char *bin)
{
	unsigned long v = 0;
	FILE *f = tool_output("'%s' -c 'import sys; print(sys.hexversion)'", bin);

	assert_int_equal(fscanf(f, "%lu", &v), 1);
	tool_done(f);
	return (uint32_t)v;
}

/* The file alone: version (exact from 3.11, the minor one before), the names needed. */
static void test_real_files(void **state)
{
	struct interp in[16];
	size_t n = find_interpreters(in, 16), i;

	(void)state;
	if (!n)
		cp_skip("no pyenv interpreters and no /usr/bin/python3.11");
	for (i = 0; i < n; i++) {
		uint32_t want = hexversion_of(in[i].bin);
		struct py_object_info info;
		int err = detect_path(in[i].obj, &info);

		print_message("%s: %08x by %d%s\n", in[i].obj, info.hexversion, info.source,
			      info.stripped ? " (stripped)" : "");
		assert_int_equal(err, 0);
		if (info.micro_known)
			assert_int_equal(info.hexversion, want);
		else
			assert_int_equal(info.hexversion, PY_HEX_MINOR_OF(want));
		/* Py_Version exists from 3.11: the file says the patch level from there */
		assert_int_equal(info.micro_known, want >= PY_HEX(3, 11, 0));
		if (want >= PY_HEX(3, 7, 0)) {
			assert_int_not_equal(info.runtime, 0);
			assert_int_equal(info.tstate_current, 0);
		} else {
			assert_int_equal(info.runtime, 0);
			assert_int_not_equal(info.tstate_current, 0);
		}
		assert_int_not_equal(info.none, 0);
		assert_int_not_equal(info.code_type, 0);
		assert_true(info.eval_end > info.eval_start + 1000); /* the eval loop is big */
		/* _Py_tss_tstate: 3.12+, and only where .symtab survives */
		assert_int_equal(info.tss_tstate_tlsoff >= 0,
				 want >= PY_HEX(3, 12, 0) && !info.stripped);
	}
}

/* A running interpreter: found among its mappings, patch level from sys.version, and the
 * runtime addresses equal to what the process reports about itself. */
static void test_real_processes(void **state)
{
	struct interp in[16];
	size_t n = find_interpreters(in, 16), i;

	(void)state;
	if (!n)
		cp_skip("no pyenv interpreters and no /usr/bin/python3.11");
	for (i = 0; i < n; i++) {
		uint32_t want = hexversion_of(in[i].bin);
		struct proc_snapshot *ps = proc_snapshot__new("/proc");
		int pfd[2], status, err;
		struct py_process pp;
		unsigned long long code_type = 0;
		char line[128];
		pid_t pid;
		FILE *f;

		assert_non_null(ps);
		assert_int_equal(pipe(pfd), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			dup2(pfd[1], 1);
			close(pfd[0]);
			/* id(type(code)) is the address of PyCode_Type, in every version */
			execl(in[i].bin, in[i].bin, "-c",
			      "import sys, time\n"
			      "sys.stdout.write('%d\\n' % id(type((lambda: 0).__code__)))\n"
			      "sys.stdout.flush()\n"
			      "time.sleep(60)\n",
			      (char *)NULL);
			_exit(127);
		}
		close(pfd[1]);
		f = fdopen(pfd[0], "r");
		assert_non_null(f);
		assert_non_null(fgets(line, sizeof(line), f));
		code_type = strtoull(line, NULL, 10);
		assert_int_equal(proc_snapshot__take(ps, (uint32_t)pid, 0), 0);
		err = py_detect_process(ps, (uint32_t)pid, 0, &pp);
		print_message("pid %d %s: %08x source %d\n", pid, in[i].obj, pp.info.hexversion,
			      pp.info.source);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		fclose(f);
		assert_int_equal(err, 0);
		assert_int_equal(pp.info.hexversion, want);
		assert_true(pp.info.micro_known);
		assert_int_equal(pp.info.code_type + pp.bias, code_type);
		proc_snapshot__free(ps);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_parse),
		cmocka_unit_test(test_fake_objects),
		cmocka_unit_test(test_real_files),
		cmocka_unit_test(test_real_processes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
