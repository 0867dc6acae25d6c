// SPDX-License-Identifier: GPL-2.0
/*
 * prebuild on this machine's /proc: the given processes, or every user process whose name
 * matches; kernel threads and self left out; the command's executable only when it is ELF.
 */
#include "cmocka_inc.h"
#include <regex.h>
#include "session/prebuild.h"
#include "proc/proc_snapshot.h"
#include "unwind/unwind_maps.h"

static void test_pids(void **state)
{
	struct proc_snapshot *ps = proc_snapshot__new("/proc");
	struct unwind_maps *um = unwind_maps__new(1u << 22);
	pid_t pids[] = {getpid(), 999999999};
	struct prebuild_opts o = {.procfs = "/proc", .pids = pids, .n_pids = 2};
	struct prebuild_result res;
	struct unwind_maps_stats st;

	(void)state;
	assert_int_equal(prebuild(ps, um, &o, &res), 0);
	/* this process, and one that does not exist */
	assert_int_equal(res.procs, 1);
	assert_int_equal(res.pids[0], getpid());
	assert_int_equal(res.procs_failed, 1);
	assert_int_equal(proc_snapshot__n_snapshots(ps), 1);
	unwind_maps__stats(um, &st);
	assert_true(st.objects >= 3);
	prebuild_result_free(&res);
	assert_null(res.pids);
	unwind_maps__free(um);
	proc_snapshot__free(ps);
}

static void test_all_by_name(void **state)
{
	struct proc_snapshot *ps = proc_snapshot__new("/proc");
	struct prebuild_opts o = {.procfs = "/proc", .all = true, .self = 0};
	struct prebuild_result res;
	regex_t re;
	bool self = false;

	(void)state;
	/* only processes named like this test: this one (self is not excluded here) */
	assert_int_equal(regcomp(&re, "^test_prebuild$", REG_EXTENDED | REG_NOSUB), 0);
	o.comm_re = &re;
	assert_int_equal(prebuild(ps, NULL, &o, &res), 0);
	assert_true(res.procs >= 1);
	for (size_t i = 0; i < res.procs; i++)
		self |= res.pids[i] == getpid();
	assert_true(self);
	prebuild_result_free(&res);
	/* excluding self: not this one */
	o.self = getpid();
	assert_int_equal(prebuild(ps, NULL, &o, &res), 0);
	for (size_t i = 0; i < res.procs; i++)
		assert_int_not_equal(res.pids[i], getpid());
	prebuild_result_free(&res);
	regfree(&re);
	proc_snapshot__free(ps);
}

static void test_kernel_threads_left_out(void **state)
{
	struct proc_snapshot *ps = proc_snapshot__new("/proc");
	struct prebuild_opts o = {.procfs = "/proc", .all = true, .self = getpid()};
	struct prebuild_result res;

	(void)state;
	assert_int_equal(prebuild(ps, NULL, &o, &res), 0);
	/* kthreadd (pid 2) has no executable */
	for (size_t i = 0; i < res.procs; i++)
		assert_int_not_equal(res.pids[i], 2);
	assert_true(res.procs >= 1); /* init at least */
	prebuild_result_free(&res);
	proc_snapshot__free(ps);
}

static void test_exe(void **state)
{
	struct unwind_maps *um = unwind_maps__new(1u << 22);
	struct proc_snapshot *ps = proc_snapshot__new("/proc");
	char script[] = "/tmp/cpuprof-prebuild.XXXXXX", exe[4096];
	struct prebuild_opts o = {.procfs = "/proc"};
	struct prebuild_result res;
	struct unwind_maps_stats a, b;
	ssize_t n;
	int fd;

	(void)state;
	/* the loader and C library: built whatever the targets */
	assert_int_equal(prebuild(ps, um, &o, &res), 0);
	unwind_maps__stats(um, &a);
	assert_true(a.objects >= 2);
	assert_int_equal(res.procs, 0);
	prebuild_result_free(&res);
	/* a script is not built (its interpreter is found at exec) */
	fd = mkstemp(script);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	o.exe = script;
	assert_int_equal(prebuild(ps, um, &o, &res), 0);
	unwind_maps__stats(um, &b);
	assert_int_equal(b.objects, a.objects);
	assert_int_equal(b.objects_failed, a.objects_failed);
	unlink(script);
	/* an ELF executable is */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	o.exe = exe;
	assert_int_equal(prebuild(ps, um, &o, &res), 0);
	unwind_maps__stats(um, &b);
	assert_int_equal(b.objects, a.objects + 1);
	prebuild_result_free(&res);
	unwind_maps__free(um);
	proc_snapshot__free(ps);
}

static bool always(void *ctx)
{
	(void)ctx;
	return true;
}

/*
 * As a recording does it: the snapshots first (no tables), the tables later from them (once
 * the row store exists); a stop asked for between processes ends it with -EINTR.
 */
static void test_tables_later(void **state)
{
	struct proc_snapshot *ps = proc_snapshot__new("/proc");
	struct unwind_maps *um = unwind_maps__new(1u << 22);
	pid_t pids[] = {getpid()};
	struct prebuild_opts o = {.procfs = "/proc", .pids = pids, .n_pids = 1};
	struct prebuild_result res;
	struct unwind_maps_stats st;

	(void)state;
	assert_int_equal(prebuild(ps, NULL, &o, &res), 0);
	assert_int_equal(res.procs, 1);
	unwind_maps__stats(um, &st);
	assert_int_equal(st.objects, 0);
	assert_int_equal(prebuild_tables(ps, um, &o, &res), 0);
	unwind_maps__stats(um, &st);
	/* this test's executable, the C library and the loader at least */
	assert_true(st.objects >= 3);
	assert_true(unwind_maps__rows(um) > 0);
	o.stop = always;
	assert_int_equal(prebuild_tables(ps, um, &o, &res), -EINTR);
	prebuild_result_free(&res);
	unwind_maps__free(um);
	proc_snapshot__free(ps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pids),
		cmocka_unit_test(test_all_by_name),
		cmocka_unit_test(test_kernel_threads_left_out),
		cmocka_unit_test(test_exe),
		cmocka_unit_test(test_tables_later),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
