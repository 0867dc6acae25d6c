// SPDX-License-Identifier: GPL-2.0
/*
 * HotSpot's self-description read from a live JVM (interp/hs_detect.h): the known call tree
 * (tests/fixtures/java, built by make fixtures) runs on the machine's java; once it is up, the
 * detection finds libjvm.so, reads gHotSpotVMStructs/gHotSpotVMTypes from the process and
 * gives the offsets and the CodeCache's heaps the BPF step needs. On Debian's OpenJDK 17 the
 * offsets must be the values read by hand from its tables (../shared/design/runtimes.md 3).
 * A process without a JVM is not one (-ENOENT). Needs java (openjdk-17-jdk-headless).
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "cmocka_inc.h"
#include "interp_fixture.h"
#include "interp/hs_detect.h"
#include "interp/hs_names.h"
#include "interp/interp_find.h"
#include "proc/proc_snapshot.h"

/* Attach to pid, retrying while the JVM initialises (-EAGAIN), at most ~10 s. */
static int attach(pid_t pid, struct cp_hs_proc *out, struct hs_line_offsets *lines, char *why,
		  size_t size)
{
	struct proc_snapshot *ps = proc_snapshot__new("/proc");
	int err = -EAGAIN;

	assert_non_null(ps);
	for (int i = 0; i < 100 && err == -EAGAIN; i++) {
		if (i)
			nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
		assert_int_equal(proc_snapshot__take(ps, (uint32_t)pid, 0), 0);
		err = hs_detect_process(ps, (uint32_t)pid, 0, NULL, out, lines, why, size);
	}
	proc_snapshot__free(ps);
	return err;
}

static void test_jvm(void **state)
{
	const char *fix = getenv("CPUPROF_FIXTURES");
	struct cp_hs_proc p;
	struct hs_line_offsets lo;
	char cp[1024], line[64], why[160] = "";
	pid_t pid;
	FILE *f;
	int err;

	(void)state;
	if (system("command -v java >/dev/null 2>&1"))
		cp_skip("java is missing (make deps: openjdk-17-jdk-headless)");
	snprintf(cp, sizeof(cp), "%s/java/cpfix/Tree.class", fix ? fix : "build/rel/fixtures");
	if (access(cp, R_OK))
		cp_skip("no Tree.class (make fixtures needs javac: openjdk-17-jdk-headless)");
	snprintf(cp, sizeof(cp), "%s/java", fix ? fix : "build/rel/fixtures");
	pid = interp_start((const char *const[]){"java", "-cp", cp, "cpfix.Tree", "20000", NULL},
			   &f, line, sizeof(line));
	err = attach(pid, &p, &lo, why, sizeof(why));
	interp_stop(pid, f);
	print_message("HotSpot %u.%u.%u: %u heaps, segments of %u bytes, CodeCache %#llx-%#llx "
		      "(%s)\n",
		      p.version >> 16, (p.version >> 8) & 0xff, p.version & 0xff, p.n_heaps,
		      1u << p.seg_shift, (unsigned long long)p.cc_low,
		      (unsigned long long)p.cc_high, why);
	assert_int_equal(err, 0);
	assert_true(p.n_heaps >= 1 && p.n_heaps <= CP_HS_HEAPS);
	for (uint32_t i = 0; i < p.n_heaps; i++) {
		assert_true(p.heaps[i].low >= p.cc_low && p.heaps[i].high <= p.cc_high);
		assert_true(p.heaps[i].segmap != 0);
	}
	if (p.version >> 16 != 17)
		return;
	/* OpenJDK 17.0.15's tables, read by hand (runtimes.md 3) */
	assert_int_equal(p.off.cb_name, 96);
	assert_int_equal(p.off.cb_frame_complete, 20);
	assert_int_equal(p.off.cb_frame_size, 28);
	assert_int_equal(p.off.cb_code_begin, 32);
	assert_int_equal(p.off.cm_method, 112);
	assert_int_equal(p.off.method_const, 8);
	assert_int_equal(p.off.cmethod_constants, 8);
	assert_int_equal(p.off.cmethod_name, 34);
	assert_int_equal(p.off.cmethod_size, 48);
	assert_int_equal(p.off.cpool_holder, 24);
	assert_int_equal(p.off.cpool_size, 72);
	assert_int_equal(p.off.cpool_source, 54);
	assert_int_equal(p.off.klass_name, 24);
	assert_int_equal(p.off.sym_length, 4);
	assert_int_equal(p.off.sym_body, 6);
	assert_int_equal(p.off.heapblock_size, 16);
	/* a compiled method's debug information: inlined frames */
	assert_int_equal(p.off.scopes, 1);
	assert_int_equal(p.off.nm_metadata, 260);
	assert_int_equal(p.off.nm_scopes_pcs, 268);
	assert_int_equal(p.off.nm_deps, 272);
	assert_int_equal(p.off.cm_scopes_data, 120);
	assert_int_equal(p.off.pcdesc_pc, 0);
	assert_int_equal(p.off.pcdesc_scope, 4);
	assert_int_equal(p.off.pcdesc_size, 16);
	assert_int_equal(p.off.u5_excluded, 0);
	/* the line tables' */
	assert_true(lo.ok);
	assert_int_equal(lo.cm_flags, 28);
	assert_int_equal(lo.cm_code_size, 32);
}

/*
 * A compressed line number table as javac's classes give HotSpot (JDK 17 encoding: a byte
 * (bci delta << 3 | line delta), or 0xff and two sign-folded compressed ints; 0 ends it).
 */
static void test_lines(void **state)
{
	static const uint8_t t[] = {
		0xff, 0x00, 0x14,	/* bci 0, line 10 (+10: 20 folded) */
		0x2a,			/* bci 5, line 12 */
		0xff, 0x08, 0x01,	/* bci 9, line 11 (-1: 1 folded) */
		0xff, 0x06, 0xd8, 0x06, /* bci 12, line 311 (+300: 600 in two bytes) */
		0x00,
	};

	(void)state;
	assert_int_equal(hs_line_of(t, sizeof(t), 0), 10);
	assert_int_equal(hs_line_of(t, sizeof(t), 3), 10);
	assert_int_equal(hs_line_of(t, sizeof(t), 5), 12);
	assert_int_equal(hs_line_of(t, sizeof(t), 8), 12);
	assert_int_equal(hs_line_of(t, sizeof(t), 9), 11);
	assert_int_equal(hs_line_of(t, sizeof(t), 12), 311);
	assert_int_equal(hs_line_of(t, sizeof(t), 400), 311);
	/* cut before its end: hostile bytes give no line, never a read past them */
	assert_int_equal(hs_line_of(t, 9, 12), -1);
	assert_int_equal(hs_line_of(t, 0, 0), -1);
}

/* Not a JVM: no libjvm.so among its objects. */
static void test_not_jvm(void **state)
{
	struct proc_snapshot *ps = proc_snapshot__new("/proc");
	struct cp_hs_proc p;
	char why[160] = "";

	(void)state;
	assert_non_null(ps);
	assert_int_equal(proc_snapshot__take(ps, (uint32_t)getpid(), 0), 0);
	assert_int_equal(
		hs_detect_process(ps, (uint32_t)getpid(), 0, NULL, &p, NULL, why, sizeof(why)),
		-ENOENT);
	proc_snapshot__free(ps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jvm),
		cmocka_unit_test(test_not_jvm),
		cmocka_unit_test(test_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
