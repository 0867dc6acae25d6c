// SPDX-License-Identifier: GPL-2.0
/*
 * The CPython offset table (interp/py_offsets.h): pinned numbers and the invariants of each
 * frame model; _Py_DebugOffsets read from a fake 3.13 object whose values differ from the table
 * (so a fallback to the table is caught) and refused when it does not fit; then the whole table
 * against the DWARF of every pyenv build of the machine (scripts/py-offsets-dwarf.py through
 * gdb), and a live 3.13 process's own _Py_DebugOffsets against the table.
 */
#include "cmocka_inc.h"
#include "interp_fixture.h"
#include "elf/elf_named.h"
#include "interp/py_detect.h"
#include "interp/py_offsets.h"
#include "proc/proc_snapshot.h"

static const uint32_t versions[] = {0x020712f0, 0x03060ff0, 0x030710f0, 0x030812f0, 0x030912f0,
				    0x030a0df0, 0x030b07f0, 0x030c01f0, 0x030d00f0};

static void test_table(void **state)
{
	struct cp_py_offsets o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		bool objects;

		assert_int_equal(py_offsets_table(versions[i], true, &o), 0);
		assert_int_equal(o.version, versions[i]);
		objects = versions[i] < PY_HEX(3, 11, 0);
		assert_int_equal(o.frame_model,
				 objects ? CP_PY_FRAMES_OBJECT : CP_PY_FRAMES_INTERP);
		/* each model has its fields and not the other's */
		assert_int_equal(o.frame_code != CP_PY_NONE, objects);
		assert_int_equal(o.frame_back != CP_PY_NONE, objects);
		assert_int_equal(o.frame_lasti != CP_PY_NONE, objects);
		assert_int_equal(o.iframe_previous != CP_PY_NONE, !objects);
		assert_int_equal(o.iframe_code != CP_PY_NONE, !objects);
		assert_int_equal(o.iframe_owner != CP_PY_NONE, !objects);
		assert_int_equal(o.code_qualname != CP_PY_NONE, !objects);
		assert_int_equal(o.iframe_is_entry != CP_PY_NONE,
				 PY_HEX_MINOR_OF(versions[i]) == PY_HEX(3, 11, 0));
		/* a _PyRuntime from 3.7, the GIL holder's pointer in it until 3.11 */
		assert_int_equal(o.runtime_interpreters_head != CP_PY_NONE,
				 versions[i] >= PY_HEX(3, 7, 0));
		assert_int_equal(o.runtime_tstate_current != CP_PY_NONE,
				 versions[i] >= PY_HEX(3, 7, 0) && versions[i] < PY_HEX(3, 12, 0));
		assert_int_not_equal(o.tstate_thread_id, CP_PY_NONE);
		assert_int_not_equal(o.tstate_frame, CP_PY_NONE);
		assert_int_not_equal(o.code_linetable, CP_PY_NONE);
		assert_int_not_equal(o.str_ascii_data, CP_PY_NONE);
	}
	/* pinned: where Parca's pre-release 3.13 table is wrong (interpreters.md 1.4) */
	assert_int_equal(py_offsets_table(0x030d00f0, true, &o), 0);
	assert_int_equal(o.tstate_frame, 72);
	assert_int_equal(o.tstate_thread_id, 152);
	assert_int_equal(o.runtime_autotss_key, 2160);
	assert_int_equal(o.interp_tstate_head, 7344);
	assert_int_equal(o.cframe_current_frame, CP_PY_NONE);
	assert_int_equal(py_offsets_table(0x030b02f0, true, &o), 0);
	assert_int_equal(o.cframe_current_frame, 8);
	assert_int_equal(o.iframe_is_entry, 68);
	assert_int_equal(o.entry_model, CP_PY_ENTRY_FLAG);
	assert_int_equal(py_offsets_table(0x030a0000, false, &o), 0);
	assert_int_equal(o.instr_unit, CP_PY_INSTR_CODEUNITS);
	assert_int_equal(o.frame_lasti, 96);
	assert_int_equal(py_offsets_table(0x030912f0, true, &o), 0);
	assert_int_equal(o.instr_unit, CP_PY_INSTR_BYTES);
	/* 3.7: the patch level decides _PyRuntime's layout */
	assert_int_equal(py_offsets_table(0x03070000, false, &o), -EAGAIN);
	assert_int_equal(py_offsets_table(0x030702f0, true, &o), 0);
	assert_int_equal(o.runtime_tstate_current, 1392);
	assert_int_equal(py_offsets_table(0x030704f0, true, &o), 0);
	assert_int_equal(o.runtime_tstate_current, 1480);
	/* unknown versions */
	assert_int_equal(py_offsets_table(0x030510f0, true, &o), -ENOTSUP);
	assert_int_equal(py_offsets_table(0x030e00f0, true, &o), -ENOTSUP);
	assert_int_equal(py_offsets_table(0x040000f0, true, &o), -ENOTSUP);
}

/* _Py_DebugOffsets of the fake 3.13.1 (fake_python.c: 3.13.0's numbers + 1000). */
static void read_fake_debug(uint8_t *buf, size_t len)
{
	struct elf_named_sym sym;
	struct elf_named *en;
	char path[PATH_MAX];
	int fd;

	fixture(path, sizeof(path), "fakepy/python3.13");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(elf_named__open(fd, &en), 0);
	assert_int_equal(elf_named__sym(en, "_PyRuntime", &sym), 0);
	assert_int_equal(elf_named__read(en, sym.value, buf, len), 0);
	elf_named__free(en);
	close(fd);
}

static void test_debug_offsets(void **state)
{
	uint8_t buf[PY_DEBUG_OFFSETS_313_SIZE], bad[sizeof(buf)];
	struct cp_py_offsets table, o;
	const char *name;
	__u16 tv, v;
	size_t i, changed = 0;

	(void)state;
	read_fake_debug(buf, sizeof(buf));
	assert_int_equal(py_offsets_table(0x030d00f0, true, &table), 0);
	o = table;
	assert_int_equal(py_offsets_from_debug(buf, sizeof(buf), &o), 0);
	assert_int_equal(o.version, 0x030d01f0);
	/* every field _Py_DebugOffsets describes is taken from it (+1000), the others kept */
	for (i = 0; py_offsets_field(&o, i, &name, &v); i++) {
		assert_true(py_offsets_field(&table, i, &name, &tv));
		if (v == tv)
			continue;
		assert_int_equal(v, tv + 1000);
		changed++;
	}
	assert_int_equal(changed, 20);
	assert_int_equal(o.runtime_autotss_key, 2160); /* not in _Py_DebugOffsets */
	assert_int_equal(o.tstate_frame, 1072);

	/* refused: no cookie, too short, another minor version, free-threaded, a table entry
	 * of another version */
	memcpy(bad, buf, sizeof(bad));
	bad[0] = 'X';
	o = table;
	assert_int_equal(py_offsets_from_debug(bad, sizeof(bad), &o), -EINVAL);
	assert_memory_equal(&o, &table, sizeof(o));
	assert_int_equal(py_offsets_from_debug(buf, sizeof(buf) - 8, &o), -EINVAL);
	memcpy(bad, buf, sizeof(bad));
	bad[8 + 2] = 0x0e; /* version 3.14 */
	assert_int_equal(py_offsets_from_debug(bad, sizeof(bad), &o), -ENOTSUP);
	memcpy(bad, buf, sizeof(bad));
	bad[16] = 1; /* free_threaded */
	assert_int_equal(py_offsets_from_debug(bad, sizeof(bad), &o), -ENOTSUP);
	assert_int_equal(py_offsets_table(0x030c01f0, true, &o), 0);
	assert_int_equal(py_offsets_from_debug(buf, sizeof(buf), &o), -ENOTSUP);
	assert_memory_equal(&o, &table, 0);
}

/* The pyenv interpreters that load a libpython: their paths in BINS, the libraries' in LIBS. */
static size_t pyenv_libs(char libs[][1024], char bins[][1024], size_t max)
{
	size_t n = interp_pythons(bins, max, false), i, k = 0;

	for (i = 0; i < n; i++) {
		interp_libpython(bins[i], libs[k], 1024);
		if (!libs[k][0])
			continue;
		if (k != i)
			memcpy(bins[k], bins[i], 1024);
		k++;
	}
	return k;
}

/* Runs the Python BIN until it has said it is up (it sleeps then): interp_start(). */
static pid_t start_python(const char *bin, FILE **f, char *line, int size)
{
	const char *const argv[] = {
		bin, "-c", "import sys, time\nprint('up')\nsys.stdout.flush()\ntime.sleep(60)\n",
		NULL};

	return interp_start(argv, f, line, size);
}

/* Every number of the table equals the DWARF's, for each pyenv build with debug info. */
static void test_table_vs_dwarf(void **state)
{
	static char libs[16][1024], bins[16][1024];
	size_t n = pyenv_libs(libs, bins, 16), i, compared = 0;

	(void)state;
	if (!n)
		cp_skip("no pyenv interpreters");
	if (system("command -v gdb >/dev/null 2>&1"))
		cp_skip("gdb is missing (make deps)");
	for (i = 0; i < n; i++) {
		uint32_t ver = interp_hexversion(bins[i]);
		struct cp_py_offsets o;
		char name[64], val[16];
		size_t fields = 0;
		FILE *f;

		assert_int_equal(py_offsets_table(ver, true, &o), 0);
		f = tool_output("gdb -nx -batch -ex 'python LIB=\"%s\"' -x "
				"scripts/py-offsets-dwarf.py 2>/dev/null",
				libs[i]);
		while (fscanf(f, "%63s %15s", name, val) == 2) {
			const char *fname;
			size_t k;
			__u16 v;

			for (k = 0; py_offsets_field(&o, k, &fname, &v); k++) {
				if (strcmp(fname, name))
					continue;
				fields++;
				/* the table leaves out what the walker does not use in a model
				 * (3.12's PyFrameObject...); what it has must be the DWARF's */
				if (v == CP_PY_NONE)
					break;
				if (strcmp(val, "-") == 0 || (__u16)atoi(val) != v)
					fail_msg(
						"%s (%08x): %s is %u in the table, %s in the DWARF",
						libs[i], ver, name, v, val);
				compared++;
				break;
			}
		}
		tool_done(f);
		print_message("%08x: %zu fields from the DWARF\n", ver, fields);
		assert_int_equal(fields, 29); /* no build without debug info slips through */
	}
	assert_true(compared > 0);
}

/* A running 3.13: its own _Py_DebugOffsets is read, and agrees with the table. */
static void test_live_313(void **state)
{
	static char libs[16][1024], bins[16][1024];
	size_t n = pyenv_libs(libs, bins, 16), i;

	(void)state;
	for (i = 0; i < n; i++) {
		struct proc_snapshot *ps;
		enum py_offsets_source src;
		struct cp_py_offsets o, table;
		struct py_process pp;
		char line[16];
		pid_t pid;
		FILE *f;

		if (interp_hexversion(bins[i]) < PY_HEX(3, 13, 0))
			continue;
		pid = start_python(bins[i], &f, line, sizeof(line));
		ps = proc_snapshot__new("/proc");
		assert_int_equal(proc_snapshot__take(ps, (uint32_t)pid, 0), 0);
		assert_int_equal(py_detect_process(ps, (uint32_t)pid, 0, NULL, &pp), 0);
		assert_int_equal(py_offsets_for_process(pid, &pp, &o, &src), 0);
		interp_stop(pid, f);
		assert_int_equal(src, PY_OFF_DEBUG_PROCESS);
		assert_int_equal(py_offsets_table(pp.info.hexversion, true, &table), 0);
		assert_memory_equal(&o, &table, sizeof(o));
		proc_snapshot__free(ps);
		return;
	}
	cp_skip("no CPython 3.13 in pyenv");
}

/* Every interpreter's own PyCode_Type member table agrees with the table, and a wrong entry
 * is caught; Debian's stripped python3.11 included. */
static void test_code_members(void **state)
{
	static char libs[16][1024], bins[17][1024];
	size_t n = pyenv_libs(libs, bins, 16), i;

	(void)state;
	if (!access("/usr/bin/python3.11", X_OK))
		snprintf(bins[n++], 1024, "/usr/bin/python3.11");
	if (!n)
		cp_skip("no pyenv interpreters and no /usr/bin/python3.11");
	for (i = 0; i < n; i++) {
		struct proc_snapshot *ps = proc_snapshot__new("/proc");
		enum py_offsets_source src;
		struct cp_py_offsets o;
		struct py_process pp;
		const char *bad = NULL;
		int compared, compared2;
		char line[16];
		pid_t pid;
		FILE *f;

		assert_non_null(ps);
		pid = start_python(bins[i], &f, line, sizeof(line));
		assert_int_equal(proc_snapshot__take(ps, (uint32_t)pid, 0), 0);
		assert_int_equal(py_detect_process(ps, (uint32_t)pid, 0, NULL, &pp), 0);
		assert_int_equal(py_offsets_for_process(pid, &pp, &o, &src), 0);
		compared = py_offsets_check_code(pid, &pp, &o, &bad);
		print_message("%s %08x: %d code fields compared, mismatch %s\n", bins[i],
			      pp.info.hexversion, compared, bad ? bad : "none");
		o.code_name += 8;
		compared2 = py_offsets_check_code(pid, &pp, &o, &bad);
		interp_stop(pid, f);
		proc_snapshot__free(ps);
		assert_true(compared >= 6);
		assert_true(compared2 > 0);
		assert_non_null(bad);
		assert_string_equal(bad, "co_name");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),	       cmocka_unit_test(test_debug_offsets),
		cmocka_unit_test(test_table_vs_dwarf), cmocka_unit_test(test_live_313),
		cmocka_unit_test(test_code_members),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
