// SPDX-License-Identifier: GPL-2.0
/*
 * CPython detection (interp/py_detect.h): on the fake objects of tests/fixtures/fake_python.c
 * (always built), then on every real interpreter of the machine (pyenv's, Debian's static
 * python3.11) with the interpreter itself as the oracle: sys.hexversion, and the addresses
 * of the running process checked against what it reports through ctypes where it can. The
 * cache of objects without CPython (interp_plain) is per object: a process that maps libpython
 * after an object without it (a launcher; a program that dlopen()s it) is still found, and an
 * interpreter looked at before it is initialised is "ask again" (py_attach -EAGAIN), never a
 * verdict.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "cmocka_inc.h"
#include "interp_fixture.h"
#include "elf/elf_named.h"
#include "interp/interp_find.h"
#include "interp/py_detect.h"
#include "interp/py_proc.h"
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

static unsigned int n_detect;

static int counting_detect(int fd, const char *name, void *info)
{
	n_detect++;
	return py_detect_object(fd, name, info);
}

/*
 * An object found to be CPython is opened once per set, whatever the processes that map it:
 * the second look answers from the set, with the same info (libpython is mapped by this
 * process at (dev, ino)).
 */
static void found_once(struct proc_snapshot *ps, uint32_t self, uint64_t dev, uint64_t ino)
{
	struct interp_plain *plain = interp_plain__new();
	struct py_object_info a, b;
	struct interp_found fa, fb;
	unsigned int first;

	assert_non_null(plain);
	n_detect = 0;
	assert_int_equal(interp_find(ps, self, 1, plain, counting_detect, &a, sizeof(a), &fa), 0);
	assert_int_equal(fa.dev, dev);
	assert_int_equal(fa.ino, ino);
	first = n_detect;
	assert_true(first >= 1);
	assert_int_equal(interp_find(ps, self, 1, plain, counting_detect, &b, sizeof(b), &fb), 0);
	/* the objects before it are plain, libpython is remembered: nothing opened */
	assert_int_equal(n_detect, first);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(fb.bias, fa.bias);
	assert_int_equal(fb.ino, ino);
	interp_plain__free(plain);
}

/*
 * This process has no CPython; once it dlopen()s (fake) libpython it has: the objects cached as
 * plain by the first look must not hide it.
 */
static void test_plain_then_dlopen(void **state)
{
	struct proc_snapshot *ps = proc_snapshot__new("/proc");
	struct interp_plain *plain = interp_plain__new();
	uint32_t self = (uint32_t)getpid();
	char lib[PATH_MAX];
	struct py_process pp;
	struct stat st;
	size_t n;
	void *h;

	(void)state;
	assert_non_null(ps);
	assert_non_null(plain);
	assert_int_equal(proc_snapshot__take(ps, self, 0), 0);
	assert_int_equal(py_detect_process(ps, self, 0, plain, &pp), -ENOENT);
	n = interp_plain__count(plain);
	assert_true(n >= 2); /* this test, libc at least */
	assert_int_equal(stat("/proc/self/exe", &st), 0);
	assert_true(interp_plain__has(plain, st.st_dev, st.st_ino));
	/* nothing new: nothing opened, nothing added */
	assert_int_equal(py_detect_process(ps, self, 0, plain, &pp), -ENOENT);
	assert_int_equal(interp_plain__count(plain), n);

	fake(lib, sizeof(lib), "libpython3.12.so.1.0");
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	/* the mappings changed: read again (the profiler's refresh) */
	assert_int_equal(proc_snapshot__take(ps, self, 1), 0);
	assert_int_equal(py_detect_process(ps, self, 1, plain, &pp), 0);
	assert_int_equal(pp.info.hexversion, 0x030c01f0);
	assert_int_equal(stat(lib, &st), 0);
	assert_int_equal(pp.dev, st.st_dev);
	assert_int_equal(pp.ino, st.st_ino);
	assert_false(interp_plain__has(plain, st.st_dev, st.st_ino));
	/* and again, with the cache as the first look left it */
	assert_int_equal(py_detect_process(ps, self, 1, plain, &pp), 0);
	found_once(ps, self, st.st_dev, st.st_ino);
	dlclose(h);
	interp_plain__free(plain);
	proc_snapshot__free(ps);
}

/* ---- the machine's interpreters ------------------------------------------------------------ */

struct interp {
	char bin[2048];	    /* the interpreter to run */
	char obj[PATH_MAX]; /* the object holding CPython: libpython, or bin itself */
};

static size_t find_interpreters(struct interp *out, size_t max)
{
	static char bins[16][1024];
	size_t n = interp_pythons(bins, max < 16 ? max : 16, true), i;

	/* the object: the libpython the launcher needs, else the binary */
	for (i = 0; i < n; i++) {
		char lib[PATH_MAX];

		snprintf(out[i].bin, sizeof(out[i].bin), "%s", bins[i]);
		interp_libpython(bins[i], lib, sizeof(lib));
		snprintf(out[i].obj, sizeof(out[i].obj), "%s", *lib ? lib : bins[i]);
	}
	return n;
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
		uint32_t want = interp_hexversion(in[i].bin);
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
		uint32_t want = interp_hexversion(in[i].bin);
		struct proc_snapshot *ps = proc_snapshot__new("/proc");
		int err;
		struct py_process pp;
		unsigned long long code_type = 0;
		char line[128];
		pid_t pid;
		FILE *f;

		assert_non_null(ps);
		pid = interp_start(
			(const char *const[]){
				in[i].bin, "-c",
				"import sys, time\n"
				"sys.stdout.write('%d\\n' % id(type((lambda: 0).__code__)))\n"
				"sys.stdout.flush()\n"
				"time.sleep(60)\n",
				NULL},
			&f, line, sizeof(line));
		code_type = strtoull(line, NULL, 10);
		assert_int_equal(proc_snapshot__take(ps, (uint32_t)pid, 0), 0);
		err = py_detect_process(ps, (uint32_t)pid, 0, NULL, &pp);
		print_message("pid %d %s: %08x source %d\n", pid, in[i].obj, pp.info.hexversion,
			      pp.info.source);
		interp_stop(pid, f);
		assert_int_equal(err, 0);
		assert_int_equal(pp.info.hexversion, want);
		assert_true(pp.info.micro_known);
		assert_int_equal(pp.info.code_type + pp.bias, code_type);
		proc_snapshot__free(ps);
	}
}

/* Whether process pid has an executable mapping of a file whose path contains name. */
static bool maps_exec(pid_t pid, const char *name)
{
	char path[64], line[4096];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		char perms[8] = "";

		if (sscanf(line, "%*s %7s", perms) == 1 && perms[2] == 'x' && strstr(line, name))
			found = true;
	}
	fclose(f);
	return found;
}

/*
 * Every interpreter looked at as the profiler does while it starts: stopped at its exec (only
 * the program and the dynamic loader mapped), then as soon as its CPython object is mapped
 * (not initialised: libpython's data not even relocated), then once running. py_attach must say
 * "no CPython" (shared builds: the launcher, which goes into the cache) and then "ask again"
 * (-EAGAIN) until the end, where it attaches, with the same cache all along. 3.7 needs its
 * patch level from sys.version, written at initialisation: "ask again", not a failure.
 */
static void test_attach_while_starting(void **state)
{
	struct interp in[16];
	size_t n = find_interpreters(in, 16), i;

	(void)state;
	if (!n)
		cp_skip("no pyenv interpreters and no /usr/bin/python3.11");
	for (i = 0; i < n; i++) {
		struct proc_snapshot *ps = proc_snapshot__new("/proc");
		struct interp_plain *plain = interp_plain__new();
		bool shared = strcmp(in[i].obj, in[i].bin) != 0;
		const char *base = strrchr(in[i].obj, '/') + 1;
		struct py_attach_why why;
		struct cp_py_proc out;
		int pfd[2], status, at_exec, mapped = -1, steps = 0, err;
		char line[64];
		uint32_t gen = 0;
		pid_t pid;
		FILE *f;

		assert_non_null(ps);
		assert_non_null(plain);
		assert_int_equal(pipe(pfd), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			dup2(pfd[1], 1);
			close(pfd[0]);
			ptrace(PTRACE_TRACEME, 0, NULL, NULL);
			execl(in[i].bin, in[i].bin, "-c",
			      "import sys, time\nsys.stdout.write('up\\n')\nsys.stdout.flush()\n"
			      "time.sleep(60)\n",
			      (char *)NULL);
			_exit(127);
		}
		close(pfd[1]);
		/* stopped at exec */
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSTOPPED(status));
		assert_int_equal(proc_snapshot__take(ps, (uint32_t)pid, gen), 0);
		at_exec = py_attach(ps, (uint32_t)pid, gen, plain, &out, &why);
		/* then from system call to system call until the CPython object is mapped */
		while (!maps_exec(pid, base)) {
			assert_int_equal(ptrace(PTRACE_SYSCALL, pid, NULL, NULL), 0);
			assert_int_equal(waitpid(pid, &status, 0), pid);
			assert_true(WIFSTOPPED(status));
			assert_true(++steps < 10000);
		}
		assert_int_equal(proc_snapshot__take(ps, (uint32_t)pid, ++gen), 0);
		mapped = py_attach(ps, (uint32_t)pid, gen, plain, &out, &why);
		assert_int_equal(ptrace(PTRACE_DETACH, pid, NULL, NULL), 0);
		f = fdopen(pfd[0], "r");
		assert_non_null(f);
		assert_non_null(fgets(line, sizeof(line), f));
		assert_int_equal(proc_snapshot__take(ps, (uint32_t)pid, ++gen), 0);
		err = py_attach(ps, (uint32_t)pid, gen, plain, &out, &why);
		print_message("%s: at exec %d, mapped after %d stops %d, running %d (%u plain)\n",
			      in[i].obj, at_exec, steps, mapped, err,
			      (unsigned)interp_plain__count(plain));
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		fclose(f);
		assert_int_equal(at_exec, shared ? -ENOENT : -EAGAIN);
		if (shared) {
			struct stat st;

			/* the launcher is cached as plain: it does not hide its libpython */
			assert_int_equal(stat(in[i].bin, &st), 0);
			assert_true(interp_plain__has(plain, st.st_dev, st.st_ino));
		}
		assert_int_equal(mapped, -EAGAIN);
		assert_int_equal(err, 0);
		assert_int_equal(out.gen, gen);
		assert_true(out.code_type != 0 && out.eval_end > out.eval_start);
		interp_plain__free(plain);
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
		cmocka_unit_test(test_plain_then_dlopen),
		cmocka_unit_test(test_attach_while_starting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
