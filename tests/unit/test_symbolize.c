// SPDX-License-Identifier: GPL-2.0
/*
 * The symbolizer on this very process (a PIE) and on a kallsyms fixture: names with the right
 * load bias, the return-address - 1 rule for callers, module+offset for unnamed code, kernel
 * modules, and names that survive the object's file being unreadable later. The mappings come
 * from a proc_snapshot (test_proc_snapshot tests it); the symbolizer sees its refreshes.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmocka_inc.h"
#include "proc/proc_snapshot.h"
#include "symbol/symbolize.h"

int cp_test_first(int x);
int cp_test_second(int x);

__attribute__((noinline, used)) int cp_test_first(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline, used)) int cp_test_second(int x)
{
	return x * 5 + 2;
}

/* A symbolizer on a snapshot of this process, taken as generation 0. */
static struct symbolizer *self_symbolizer(struct proc_snapshot **ps)
{
	struct symbolizer *sy;

	*ps = proc_snapshot__new("/proc");
	assert_non_null(*ps);
	assert_int_equal(proc_snapshot__take(*ps, (uint32_t)getpid(), 0), 0);
	sy = symbolizer__new(*ps);
	assert_non_null(sy);
	return sy;
}

static void test_own_process(void **state)
{
	struct proc_snapshot *ps;
	struct symbolizer *sy = self_symbolizer(&ps);
	uint64_t a = (uint64_t)(uintptr_t)&cp_test_second;
	struct sym_frame f;

	(void)state;

	assert_int_equal(symbolizer__user(sy, getpid(), 0, a, true, &f), 0);
	assert_string_equal(f.name, "cp_test_second");
	assert_string_equal(f.module, "test_symbolize");
	assert_true(f.named);
	assert_int_equal(f.map_kind, SYM_MAP_FILE);
	assert_true(f.map_start <= a && a < f.map_end);
	assert_non_null(strstr(f.map_path, "/test_symbolize"));
	assert_int_equal(strlen(f.build_id), 40); /* gcc's default SHA-1 build-id */
	assert_int_equal(symbolizer__user(sy, getpid(), 0, a + 3, true, &f), 0);
	assert_string_equal(f.name, "cp_test_second");
	/* a return address is looked up at - 1: at a function's start it names the previous one */
	assert_int_equal(symbolizer__user(sy, getpid(), 0, a, false, &f), 0);
	assert_string_not_equal(f.name, "cp_test_second");

	/* a shared object */
	a = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "strtoul");
	assert_int_equal(symbolizer__user(sy, getpid(), 0, a, true, &f), 0);
	assert_string_equal(f.module, "libc.so.6");
	assert_true(strcmp(f.name, "strtoul") == 0 || strcmp(f.name, "__strtoul") == 0 ||
		    strcmp(f.name, "__strtoul_internal") == 0);

	/* an unknown generation or pid: the address is kept */
	assert_int_equal(symbolizer__user(sy, getpid(), 1, 0x1234, true, &f), 0);
	assert_string_equal(f.name, "[unknown]+0x1234");
	assert_false(f.named);
	assert_int_equal(f.map_kind, SYM_MAP_NONE);
	/* an address outside every executable mapping of a known process */
	assert_int_equal(symbolizer__user(sy, getpid(), 0, 16, true, &f), 0);
	assert_string_equal(f.name, "[unknown]+0x10");
	symbolizer__free(sy);
	proc_snapshot__free(ps);
}

volatile int cp_test_volatile = 5;
int cp_test_outer(int x);

/* the line of cp_test_inl's statement */
static const unsigned int cp_test_inl_line = __LINE__ + 3;
static inline __attribute__((always_inline)) int cp_test_inl(int x)
{
	return x * cp_test_volatile + 11;
}

__attribute__((noinline, used)) int cp_test_outer(int x)
{
	return cp_test_inl(x) - cp_test_volatile;
}

/* Source-level chains from this test's own DWARF (it is built -O2 -g). */
static void test_own_chain(void **state)
{
	struct proc_snapshot *ps;
	struct symbolizer *sy = self_symbolizer(&ps);
	uint64_t a = (uint64_t)(uintptr_t)&cp_test_second;
	uint64_t o = (uint64_t)(uintptr_t)&cp_test_outer;
	struct sym_frame f[8];
	size_t n = 0;

	(void)state;
	assert_int_equal(symbolizer__user_chain(sy, getpid(), 0, a, true, f, 8, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].name, "cp_test_second");
	/* DWARF named it: the object's own symbol table is not built, until asked for */
	assert_int_equal(symbolizer__symbol_tables(sy), 0);
	assert_int_equal(symbolizer__user(sy, getpid(), 0, a, true, &f[1]), 0);
	assert_string_equal(f[1].name, "cp_test_second");
	assert_int_equal(symbolizer__symbol_tables(sy), 1);
	assert_non_null(f[0].file);
	assert_non_null(strstr(f[0].file, "/tests/unit/test_symbolize.c"));
	assert_true(f[0].line > 0);
	assert_false(f[0].inlined);
	assert_null(f[0].mangled);
	assert_int_equal(f[0].map_kind, SYM_MAP_FILE);
	assert_int_equal(strlen(f[0].build_id), 40);
	assert_string_equal(f[0].module, "test_symbolize");
	/* a return address at a function's start belongs to the call before it */
	assert_int_equal(symbolizer__user_chain(sy, getpid(), 0, a, false, f, 8, &n), 0);
	assert_int_equal(n, 1);
	assert_string_not_equal(f[0].name, "cp_test_second");
	/* the inlined function as its own frame, under its caller */
	for (uint64_t x = o; x < o + 256; x++) {
		assert_int_equal(symbolizer__user_chain(sy, getpid(), 0, x, true, f, 8, &n), 0);
		if (n == 2)
			break;
	}
	assert_int_equal(n, 2);
	assert_string_equal(f[0].name, "cp_test_inl");
	assert_true(f[0].inlined);
	assert_int_equal(f[0].line, cp_test_inl_line);
	assert_string_equal(f[1].name, "cp_test_outer");
	assert_false(f[1].inlined);
	assert_int_equal(f[1].line, cp_test_inl_line + 5);
	assert_int_equal(f[0].map_start, f[1].map_start);
	assert_ptr_equal(f[0].build_id, f[1].build_id);
	/* no snapshot: the one fallback frame */
	assert_int_equal(symbolizer__user_chain(sy, getpid(), 9, 0x1234, true, f, 8, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].name, "[unknown]+0x1234");
	assert_null(f[0].file);
	assert_int_equal(symbolizer__user_chain(sy, getpid(), 0, a, true, f, 0, &n), -EINVAL);
	assert_null(symbolizer__zstd_object(sy));
	symbolizer__free(sy);
	proc_snapshot__free(ps);
}

/*
 * Indexes dropped between drains: kept while used, dropped after 8 calls unused (or all at
 * once), and built again, with the same answers, at the next lookup; the place of an address
 * (object and vaddr) does not depend on them.
 */
static void test_drop_indexes(void **state)
{
	struct proc_snapshot *ps;
	struct symbolizer *sy = self_symbolizer(&ps);
	uint64_t o = (uint64_t)(uintptr_t)&cp_test_outer, x;
	struct sym_frame f[8];
	struct sym_place pl, pl2;
	size_t n = 0;

	(void)state;
	for (x = o; x < o + 256; x++) {
		assert_int_equal(symbolizer__user_chain(sy, getpid(), 0, x, true, f, 8, &n), 0);
		if (n == 2)
			break;
	}
	assert_int_equal(n, 2);
	assert_int_equal(symbolizer__place(sy, getpid(), 0, x, true, &pl), 0);
	assert_non_null(pl.object);
	assert_int_equal(pl.vaddr, f[0].rel);
	for (int round = 0; round < 3; round++) {
		if (round == 0) {
			/* used before each call: kept */
			for (int i = 0; i < 10; i++) {
				assert_int_equal(
					symbolizer__user_chain(sy, getpid(), 0, x, true, f, 8, &n),
					0);
				symbolizer__drop_indexes(sy, false);
			}
		} else if (round == 1) {
			for (int i = 0; i < 10; i++)
				symbolizer__drop_indexes(sy, false);
		} else {
			symbolizer__drop_indexes(sy, true);
		}
		memset(f, 0, sizeof(f));
		assert_int_equal(symbolizer__user_chain(sy, getpid(), 0, x, true, f, 8, &n), 0);
		assert_int_equal(n, 2);
		assert_string_equal(f[0].name, "cp_test_inl");
		assert_int_equal(f[0].line, cp_test_inl_line);
		assert_string_equal(f[1].name, "cp_test_outer");
		assert_int_equal(symbolizer__place(sy, getpid(), 0, x, true, &pl2), 0);
		assert_ptr_equal(pl2.object, pl.object);
		assert_int_equal(pl2.vaddr, pl.vaddr);
	}
	symbolizer__free(sy);
	proc_snapshot__free(ps);
}

/* Debug directories are settable (tests) and copied. */
static void test_debug_dirs(void **state)
{
	struct proc_snapshot *ps = proc_snapshot__new("/proc");
	struct symbolizer *sy = symbolizer__new(ps);
	char dir[] = "/tmp/x";
	const char *dirs[] = {dir, "/usr/lib/debug", NULL};

	(void)state;
	assert_int_equal(symbolizer__set_debug_dirs(sy, dirs), 0);
	dir[1] = 'y';
	assert_int_equal(symbolizer__set_debug_dirs(sy, dirs), 0);
	assert_int_equal(symbolizer__set_debug_dirs(sy, NULL), 0);
	symbolizer__free(sy);
	proc_snapshot__free(ps);
}

/* No symbolizer without the snapshot it names from. */
static void test_needs_snapshot(void **state)
{
	(void)state;
	errno = 0;
	assert_null(symbolizer__new(NULL));
	assert_int_equal(errno, EINVAL);
	symbolizer__free(NULL);
}

/* A fake procfs: a maps file naming an object that is only reachable through root/. */
static void test_fake_procfs(void **state)
{
	char dir[] = "/tmp/cpuprof-sym.XXXXXX", path[512], cmd[1024];
	const char *fix = getenv("CPUPROF_FIXTURES");
	struct proc_snapshot *ps;
	struct symbolizer *sy;
	struct sym_frame f;
	FILE *m;

	(void)state;
	if (!fix)
		fix = "build/rel/fixtures";
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/42/root/opt && cp %s/fix_nopie %s/42/root/opt/app",
		 dir, fix, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/42/maps", dir);
	m = fopen(path, "w");
	assert_non_null(m);
	/* fix_nopie is ET_EXEC: its text is mapped at its link address, 0x401000, offset 0x1000 */
	fputs("00401000-00402000 r-xp 00001000 08:01 77 /opt/app\n"
	      "7f0000000000-7f0000001000 r-xp 00000000 00:00 0 \n"
	      "7f0000002000-7f0000003000 r-xp 00000000 08:01 78 /opt/missing.so\n",
	      m);
	fclose(m);

	ps = proc_snapshot__new(dir);
	assert_non_null(ps);
	assert_int_equal(proc_snapshot__take(ps, 42, 3), 0);
	sy = symbolizer__new(ps);
	assert_non_null(sy);
	/* the object was opened now: removing it does not lose the names */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/42/root", dir);
	assert_int_equal(system(cmd), 0);
	/* find cp_fix_leaf's address with nm, independently of the code under test */
	snprintf(cmd, sizeof(cmd), "nm %s/fix_nopie | awk '$3 == \"cp_fix_leaf\" { print $1 }'",
		 fix);
	m = popen(cmd, "r");
	assert_non_null(m);
	unsigned long leaf = 0;
	assert_int_equal(fscanf(m, "%lx", &leaf), 1);
	pclose(m);
	assert_int_equal(symbolizer__user(sy, 42, 3, leaf + 1, true, &f), 0);
	assert_string_equal(f.name, "cp_fix_leaf");
	assert_string_equal(f.module, "app");
	assert_int_equal(f.rel, leaf + 1);
	/* anonymous executable memory */
	assert_int_equal(symbolizer__user(sy, 42, 3, 0x7f0000000010, true, &f), 0);
	assert_string_equal(f.name, "[anon]+0x7f0000000010");
	assert_int_equal(f.map_kind, SYM_MAP_ANON);
	assert_int_equal(f.map_start, 0x7f0000000000);
	/* a file that could not be opened: base name + file offset */
	assert_int_equal(symbolizer__user(sy, 42, 3, 0x7f0000002010, true, &f), 0);
	assert_string_equal(f.name, "missing.so+0x10");
	assert_false(f.named);
	assert_string_equal(f.map_path, "/opt/missing.so");
	assert_string_equal(f.build_id, "");
	/* code mapped later is named once the snapshot the symbolizer reads is refreshed */
	assert_int_equal(symbolizer__user(sy, 42, 3, 0x7f0000004010, true, &f), 0);
	assert_string_equal(f.name, "[unknown]+0x7f0000004010");
	m = fopen(path, "w");
	assert_non_null(m);
	fputs("7f0000004000-7f0000005000 r-xp 00000000 00:00 0 \n", m);
	fclose(m);
	assert_int_equal(proc_snapshot__refresh(ps, 42, 3), 0);
	assert_int_equal(symbolizer__user(sy, 42, 3, 0x7f0000004010, true, &f), 0);
	assert_string_equal(f.name, "[anon]+0x7f0000004010");
	assert_int_equal(f.map_kind, SYM_MAP_ANON);
	/* and what was named before still is */
	assert_int_equal(symbolizer__user(sy, 42, 3, leaf + 1, true, &f), 0);
	assert_string_equal(f.name, "cp_fix_leaf");
	symbolizer__free(sy);
	proc_snapshot__free(ps);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_kernel(void **state)
{
	struct proc_snapshot *ps = proc_snapshot__new("/proc");
	struct symbolizer *sy = symbolizer__new(ps);
	struct sym_frame f;
	FILE *k = open_data("kallsyms_basic.txt");

	(void)state;
	assert_int_equal(symbolizer__load_kallsyms(sy, k), 0);
	fclose(k);
	assert_false(symbolizer__kernel_restricted(sy));
	assert_int_equal(symbolizer__kernel(sy, 0xffffffff81a3c2d8, true, &f), 0);
	assert_string_equal(f.name, "vfs_read");
	assert_string_equal(f.module, "[kernel.kallsyms]");
	/* a return address right after vfs_read's last byte still belongs to vfs_read */
	assert_int_equal(symbolizer__kernel(sy, 0xffffffff81a3c4f0, false, &f), 0);
	assert_string_equal(f.name, "vfs_read");
	assert_int_equal(symbolizer__kernel(sy, 0xffffffff81a3c4f0, true, &f), 0);
	assert_string_equal(f.name, "vfs_write");
	assert_int_equal(symbolizer__kernel(sy, 0xffffffffc0a01010, true, &f), 0);
	assert_string_equal(f.name, "ext4_iget");
	assert_string_equal(f.module, "[ext4]");
	assert_int_equal(symbolizer__kernel(sy, 0x1000, true, &f), 0);
	assert_string_equal(f.name, "[kernel.kallsyms]+0x1000");
	assert_false(f.named);
	assert_int_equal(f.map_kind, SYM_MAP_KERNEL);
	assert_string_equal(f.map_path, "[kernel.kallsyms]");
	symbolizer__free(sy);
	proc_snapshot__free(ps);
}

/* A process of the fake procfs dir: anonymous executable memory, its effective user euid. */
static void fake_jit(const char *dir, int pid, unsigned int euid)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "mkdir -p %s/%d/root/tmp", dir, pid);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/%d/maps", dir, pid);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("7f0000000000-7f0000001000 r-xp 00000000 00:00 0 \n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%d/status", dir, pid);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "Name:\tjit\nState:\tR (running)\nTgid:\t%d\nUid:\t%u\t%u\t%u\t%u\n", pid, euid,
		euid, euid, euid);
	fclose(f);
}

static const char *jit_name(struct symbolizer *sy, uint32_t pid)
{
	struct sym_frame f;

	assert_int_equal(symbolizer__user(sy, pid, 1, 0x7f0000000010, true, &f), 0);
	return f.name;
}

/*
 * Perf maps as perf trusts them: another user's map for a process is not read, nor a link; one
 * file named by two processes (a hard link) is read once; past the budget a map is not read.
 */
static void test_perf_map_trust(void **state)
{
	char dir[] = "/tmp/cpuprof-sym.XXXXXX", path[512], cmd[1200];
	unsigned int me = (unsigned int)geteuid(), other = me ? me + 1 : 4243;
	struct sym_perf_maps st;
	struct proc_snapshot *ps;
	struct symbolizer *sy;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (int pid = 50; pid <= 54; pid++)
		fake_jit(dir, pid, pid == 50 ? (me ? me + 2 : 4242) : me);
	/* 50: a map owned by neither root nor its user (as root: chowned to another user) */
	snprintf(path, sizeof(path), "%s/50/root/tmp/perf-50.map", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("7f0000000000 100 SPOOFED\n", f);
	fclose(f);
	if (!me)
		assert_int_equal(chown(path, other, other), 0);
	/* 51: a link to a file it could read */
	snprintf(cmd, sizeof(cmd),
		 "printf '7f0000000000 100 LINKED\\n' >%s/secret && ln -s %s/secret "
		 "%s/51/root/tmp/perf-51.map",
		 dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	/* 52 and 53: one file */
	snprintf(cmd, sizeof(cmd),
		 "printf '7f0000000000 100 shared_jit\\n' >%s/52/root/tmp/perf-52.map && ln "
		 "%s/52/root/tmp/perf-52.map %s/53/root/tmp/perf-53.map",
		 dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	/* 54: more than the budget left */
	snprintf(path, sizeof(path), "%s/54/root/tmp/perf-54.map", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 400; i++)
		fprintf(f, "7f%010x 10 a_name_long_enough_to_fill_the_budget_quickly_%d\n", i * 16,
			i);
	fclose(f);

	ps = proc_snapshot__new(dir);
	assert_non_null(ps);
	for (int pid = 50; pid <= 54; pid++)
		assert_int_equal(proc_snapshot__take(ps, (uint32_t)pid, 1), 0);
	assert_int_equal(proc_snapshot__euid(ps, 50, 1), me ? me + 2 : 4242);
	sy = symbolizer__new(ps);
	assert_non_null(sy);
	symbolizer__set_perf_map_budget(sy, 8192);
	assert_string_equal(jit_name(sy, 50), "[anon]+0x7f0000000010");
	assert_string_equal(jit_name(sy, 51), "[anon]+0x7f0000000010");
	assert_string_equal(jit_name(sy, 52), "shared_jit");
	assert_string_equal(jit_name(sy, 53), "shared_jit");
	assert_string_equal(jit_name(sy, 54), "[anon]+0x7f0000000010");
	symbolizer__perf_maps(sy, &st);
	assert_int_equal(st.foreign, 1);
	assert_int_equal(st.links, 1);
	assert_int_equal(st.over_budget, 1);
	assert_int_equal(st.files, 1);
	/* forgotten between drains, read again: counted once per process */
	symbolizer__forget_perf_maps(sy);
	assert_string_equal(jit_name(sy, 50), "[anon]+0x7f0000000010");
	assert_string_equal(jit_name(sy, 53), "shared_jit");
	/* with room for it, 54's map is read */
	symbolizer__set_perf_map_budget(sy, 1 << 20);
	symbolizer__forget_perf_maps(sy);
	assert_string_equal(jit_name(sy, 54), "a_name_long_enough_to_fill_the_budget_quickly_1");
	symbolizer__perf_maps(sy, &st);
	assert_int_equal(st.foreign, 1);
	assert_int_equal(st.over_budget, 1);
	assert_int_equal(st.files, 3);
	symbolizer__free(sy);
	proc_snapshot__free(ps);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_process),    cmocka_unit_test(test_own_chain),
		cmocka_unit_test(test_drop_indexes),   cmocka_unit_test(test_debug_dirs),
		cmocka_unit_test(test_needs_snapshot), cmocka_unit_test(test_fake_procfs),
		cmocka_unit_test(test_kernel),	       cmocka_unit_test(test_perf_map_trust),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
