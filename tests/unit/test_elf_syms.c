// SPDX-License-Identifier: GPL-2.0
/*
 * elf_syms against real objects (the fixtures, libc, the vDSO) with the expected values taken
 * independently from nm / readelf / the dynamic loader, and against a hand-built ELF image that
 * pins down the alias, size-0, nesting and filtering rules exactly.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "cmocka_inc.h"
#include "elf/elf_image.h"
#include "elf/elf_syms.h"

#define LIBC_PATH "/lib/x86_64-linux-gnu/libc.so.6"

/* ---- helpers ------------------------------------------------------------------------------ */

static struct elf_syms *open_syms(const char *path)
{
	struct elf_syms *es;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	es = elf_syms__from_fd(fd);
	assert_non_null(es);
	/* the fd is the caller's: still open afterwards */
	assert_int_not_equal(fcntl(fd, F_GETFD), -1);
	close(fd);
	return es;
}

struct nm_ent {
	uint64_t addr;
	uint64_t size;
	char type;
	char name[128];
};

/* Defined symbols as nm prints them (-D: the dynamic table only, without version suffixes). */
static size_t nm_list(const char *path, bool dynamic, struct nm_ent **out)
{
	struct nm_ent *ents = NULL, e;
	size_t n = 0, cap = 0;
	unsigned long long a, s;
	char line[512];
	FILE *f;

	f = tool_output("nm %s --defined-only -S '%s'",
			dynamic ? "-D --without-symbol-versions" : "", path);
	while (fgets(line, sizeof(line), f)) {
		memset(&e, 0, sizeof(e));
		if (sscanf(line, "%llx %llx %c %127s", &a, &s, &e.type, e.name) == 4) {
			e.size = s;
		} else if (sscanf(line, "%llx %c %127s", &a, &e.type, e.name) == 3) {
			e.size = 0;
		} else {
			continue;
		}
		e.addr = a;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			ents = realloc(ents, cap * sizeof(*ents));
			assert_non_null(ents);
		}
		ents[n++] = e;
	}
	tool_done(f);
	*out = ents;
	return n;
}

static const struct nm_ent *nm_find(const struct nm_ent *ents, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ents[i].name, name))
			return &ents[i];
	fail_msg("nm does not list %s", name);
	abort(); /* not reached: fail_msg leaves the test */
}

struct load {
	uint64_t off;
	uint64_t vaddr;
	uint64_t filesz;
	bool exec;
};

/* PT_LOAD rows of readelf -lW. */
static size_t readelf_loads(const char *path, struct load *loads, size_t max)
{
	unsigned long long off, va, pa, fs, ms;
	char line[512], flags[16];
	size_t n = 0;
	FILE *f;

	f = tool_output("readelf -lW '%s'", path);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " LOAD 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx %15[RWE ]", &off, &va,
			   &pa, &fs, &ms, flags) != 6)
			continue;
		assert_true(n < max);
		loads[n++] = (struct load){off, va, fs, strchr(flags, 'E') != NULL};
	}
	tool_done(f);
	assert_true(n > 0);
	return n;
}

/* "Build ID: <hex>" from readelf -n. */
static void readelf_build_id(const char *path, char hex[128])
{
	char line[512], *p;
	FILE *f;

	hex[0] = '\0';
	f = tool_output("readelf -n '%s'", path);
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "Build ID: ");
		if (p && !hex[0])
			assert_int_equal(sscanf(p + 10, "%127s", hex), 1);
	}
	tool_done(f);
	assert_true(hex[0] != '\0');
}

static void check_build_id(const struct elf_syms *es, const char *path)
{
	char want[128], got[128];
	const uint8_t *id;
	size_t len, i;

	readelf_build_id(path, want);
	id = elf_syms__build_id(es, &len);
	assert_non_null(id);
	assert_int_equal(len * 2, strlen(want));
	for (i = 0; i < len; i++)
		snprintf(got + 2 * i, 3, "%02x", id[i]);
	assert_string_equal(got, want);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The expected count: distinct addresses of defined, named FUNC/IFUNC symbols with a non-zero
 * value over both symbol tables, as readelf -sW lists them.
 */
static size_t readelf_func_addrs(const char *path)
{
	char line[1024], size[64], type[16], bind[16], vis[16], ndx[16], name[512];
	uint64_t *addrs = NULL;
	size_t n = 0, cap = 0, uniq = 0, i;
	unsigned long long val;
	FILE *f;

	f = tool_output("readelf -sW '%s'", path);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*u: %llx %63s %15s %15s %15s %15s %511s", &val, size, type, bind,
			   vis, ndx, name) != 7)
			continue;
		if ((strcmp(type, "FUNC") && strcmp(type, "IFUNC")) || !strcmp(ndx, "UND") || !val)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			addrs = realloc(addrs, cap * sizeof(*addrs));
			assert_non_null(addrs);
		}
		addrs[n++] = val;
	}
	tool_done(f);
	qsort(addrs, n, sizeof(*addrs), cmp_u64);
	for (i = 0; i < n; i++)
		if (!i || addrs[i] != addrs[i - 1])
			uniq++;
	free(addrs);
	return uniq;
}

static void check_lookup(const struct elf_syms *es, uint64_t vaddr, const char *want,
			 uint64_t want_off)
{
	uint64_t off = UINT64_MAX;
	const char *got = elf_syms__lookup(es, vaddr, &off);

	if (!want) {
		if (got)
			fail_msg("0x%llx: expected no symbol, got %s", (unsigned long long)vaddr,
				 got);
		return;
	}
	if (!got)
		fail_msg("0x%llx: expected %s, got nothing", (unsigned long long)vaddr, want);
	assert_string_equal(got, want);
	assert_int_equal(off, want_off);
}

struct map_line {
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	char perms[8];
	char path[PATH_MAX];
};

/* The /proc/self/maps line holding addr, or the one named name when addr is 0. */
static bool find_map(uint64_t addr, const char *name, struct map_line *m)
{
	unsigned long long s, e, o;
	char line[PATH_MAX + 128];
	bool found = false;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		memset(m, 0, sizeof(*m));
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*u %4095s", &s, &e, m->perms, &o,
			   m->path) < 4)
			continue;
		m->start = s;
		m->end = e;
		m->pgoff = o;
		found = addr ? (addr >= s && addr < e) : !strcmp(m->path, name);
	}
	fclose(f);
	return found;
}

static int count_fds(void)
{
	struct dirent *d;
	int n = 0;
	DIR *dir = opendir("/proc/self/fd");

	assert_non_null(dir);
	while ((d = readdir(dir)))
		n++;
	closedir(dir);
	return n;
}

/* ---- fixture executables ------------------------------------------------------------------ */

static const char *const tree_fns[] = {
	"cp_fix_leaf", "cp_fix_heavy", "cp_fix_light", "cp_fix_run", "main", "cp_fix_now",
};

/* Start, middle and end of each fixture function; the ELF type. */
static void check_exe(const char *name, int want_type)
{
	struct elf_syms *es;
	struct nm_ent *ents;
	char path[PATH_MAX];
	size_t n, i;

	fixture(path, sizeof(path), name);
	es = open_syms(path);
	assert_int_equal(elf_syms__type(es), want_type);
	n = nm_list(path, false, &ents);
	for (i = 0; i < sizeof(tree_fns) / sizeof(tree_fns[0]); i++) {
		const struct nm_ent *e = nm_find(ents, n, tree_fns[i]);
		const char *at_end;

		assert_true(e->size > 1);
		check_lookup(es, e->addr, e->name, 0);
		check_lookup(es, e->addr + e->size / 2, e->name, e->size / 2);
		check_lookup(es, e->addr + e->size - 1, e->name, e->size - 1);
		at_end = elf_syms__lookup(es, e->addr + e->size, NULL);
		if (at_end)
			assert_string_not_equal(at_end, e->name);
	}
	/* right after main: padding (no symbol), or the next symbol starting exactly there */
	{
		uint64_t end = nm_find(ents, n, "main")->addr + nm_find(ents, n, "main")->size;
		uint64_t off = UINT64_MAX;
		const char *next = elf_syms__lookup(es, end, &off);

		if (next) {
			assert_string_not_equal(next, "main");
			assert_int_equal(off, 0);
		}
	}
	check_lookup(es, 0, NULL, 0);
	check_lookup(es, UINT64_MAX, NULL, 0);
	assert_int_equal(elf_syms__count(es), readelf_func_addrs(path));
	free(ents);
	elf_syms__free(es);
}

static void test_pie_lookup(void **state)
{
	(void)state;
	check_exe("fix_tree", ET_DYN);
}

static void test_nopie_lookup(void **state)
{
	(void)state;
	check_exe("fix_nopie", ET_EXEC);
}

/* Every PT_LOAD readelf reports maps its offsets; fn's file offset goes back to fn. */
static void check_offsets(const char *name, const char *fn)
{
	struct load loads[16];
	struct elf_syms *es;
	struct nm_ent *ents;
	const struct nm_ent *m;
	char path[PATH_MAX];
	uint64_t vaddr, off;
	struct stat st;
	size_t nl, n, i;
	bool mapped_fn = false, covered;

	fixture(path, sizeof(path), name);
	es = open_syms(path);
	nl = readelf_loads(path, loads, 16);
	n = nm_list(path, false, &ents);
	m = nm_find(ents, n, fn);
	for (i = 0; i < nl; i++) {
		const struct load *l = &loads[i];

		if (!l->filesz)
			continue;
		assert_int_equal(elf_syms__offset_to_vaddr(es, l->off, &vaddr), 0);
		assert_int_equal(vaddr, l->vaddr);
		assert_int_equal(elf_syms__offset_to_vaddr(es, l->off + l->filesz / 2, &vaddr), 0);
		assert_int_equal(vaddr, l->vaddr + l->filesz / 2);
		assert_int_equal(elf_syms__offset_to_vaddr(es, l->off + l->filesz - 1, &vaddr), 0);
		assert_int_equal(vaddr, l->vaddr + l->filesz - 1);
		if (l->exec && m->addr >= l->vaddr && m->addr < l->vaddr + l->filesz) {
			off = m->addr - l->vaddr + l->off;
			assert_int_equal(elf_syms__offset_to_vaddr(es, off + 5, &vaddr), 0);
			check_lookup(es, vaddr, fn, 5);
			mapped_fn = true;
		}
	}
	assert_true(mapped_fn);
	/* the last byte of the file (section headers) is in no PT_LOAD */
	assert_int_equal(stat(path, &st), 0);
	off = (uint64_t)st.st_size - 1;
	covered = false;
	for (i = 0; i < nl; i++)
		covered |= off >= loads[i].off && off < loads[i].off + loads[i].filesz;
	assert_false(covered);
	assert_int_equal(elf_syms__offset_to_vaddr(es, off, &vaddr), -ENOENT);
	assert_int_equal(elf_syms__offset_to_vaddr(es, (uint64_t)st.st_size + 4096, &vaddr),
			 -ENOENT);
	free(ents);
	elf_syms__free(es);
}

static void test_offset_to_vaddr(void **state)
{
	(void)state;
	check_offsets("fix_tree", "main");
	check_offsets("fix_nopie", "main");
	check_offsets("libcpfix.so", "cp_lib_work");
}

static void test_build_id(void **state)
{
	static const char *const names[] = {"fix_tree", "fix_nopie", "libcpfix.so"};
	char path[PATH_MAX];
	struct elf_syms *es;

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		fixture(path, sizeof(path), names[i]);
		es = open_syms(path);
		check_build_id(es, path);
		elf_syms__free(es);
	}
}

/* The headers only: the same segments, type and build-id as the full index, and no names. */
static void test_headers_only(void **state)
{
	static const char *const names[] = {"fix_tree", "fix_nopie", "libcpfix.so"};
	struct elf_syms *full, *hdr;
	struct load loads[16];
	char path[PATH_MAX];
	uint64_t vaddr;
	size_t nl;
	int fd;

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		fixture(path, sizeof(path), names[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		hdr = elf_syms__headers_from_fd(fd);
		close(fd);
		assert_non_null(hdr);
		full = open_syms(path);
		assert_int_equal(elf_syms__count(hdr), 0);
		assert_true(elf_syms__count(full) > 0);
		assert_int_equal(elf_syms__type(hdr), elf_syms__type(full));
		check_build_id(hdr, path);
		nl = readelf_loads(path, loads, 16);
		assert_true(nl >= 2);
		for (size_t j = 0; j < nl; j++) {
			if (!loads[j].filesz)
				continue;
			assert_int_equal(elf_syms__offset_to_vaddr(hdr, loads[j].off + 1, &vaddr),
					 0);
			assert_int_equal(vaddr, loads[j].vaddr + 1);
			/* and no names */
			if (loads[j].exec)
				check_lookup(hdr, vaddr, NULL, 0);
		}
		elf_syms__free(full);
		elf_syms__free(hdr);
	}
	/* not ELF: ENOEXEC, as the full index */
	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	errno = 0;
	assert_null(elf_syms__headers_from_fd(fd));
	assert_int_equal(errno, ENOEXEC);
	close(fd);
}

/* Nothing of the file stays open or mapped once the index is built. */
static void test_nothing_kept(void **state)
{
	struct map_line m;
	char path[PATH_MAX], real[PATH_MAX];
	struct elf_syms *es;
	int before;

	(void)state;
	fixture(path, sizeof(path), "fix_nopie");
	assert_non_null(realpath(path, real));
	before = count_fds();
	es = open_syms(path);
	assert_int_equal(count_fds(), before);
	assert_false(find_map(0, real, &m));
	assert_true(elf_syms__count(es) > 0);
	elf_syms__free(es);
}

/* A stripped executable keeps only .dynsym, whose functions are all imports: no symbols. */
static void test_stripped(void **state)
{
	char path[PATH_MAX], tmp[] = "/tmp/cpuprof_strip_XXXXXX", cmd[2 * PATH_MAX];
	struct nm_ent *ents;
	struct elf_syms *es;
	size_t n;
	int fd;

	(void)state;
	fixture(path, sizeof(path), "fix_tree");
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "strip -o '%s' '%s'", tmp, path);
	assert_int_equal(system(cmd), 0);
	es = open_syms(tmp);
	/* only the entry point is left, named as glibc names it */
	assert_int_equal(elf_syms__count(es), 1);
	n = nm_list(path, false, &ents);
	check_lookup(es, nm_find(ents, n, "_start")->addr, "_start", 0);
	check_lookup(es, nm_find(ents, n, "_start")->addr + 4, "_start", 4);
	check_lookup(es, nm_find(ents, n, "main")->addr, NULL, 0);
	check_lookup(es, nm_find(ents, n, "cp_fix_leaf")->addr, NULL, 0);
	/* the build-id note survives strip */
	check_build_id(es, tmp);
	assert_int_equal(elf_syms__type(es), ET_DYN);
	free(ents);
	elf_syms__free(es);
	unlink(tmp);
}

/* ---- shared object at run time: mapping -> offset -> vaddr -> symbol ------------------------ */

struct phdr_find {
	const char *suffix;
	uint64_t bias;
	bool found;
};

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct phdr_find *pf = data;
	size_t nl = strlen(info->dlpi_name), sl = strlen(pf->suffix);

	(void)size;
	if (nl >= sl && !strcmp(info->dlpi_name + nl - sl, pf->suffix)) {
		pf->bias = info->dlpi_addr;
		pf->found = true;
		return 1;
	}
	return 0;
}

static void check_runtime_fn(void *handle, const struct nm_ent *ents, size_t n, const char *fn,
			     uint64_t bias)
{
	const struct nm_ent *e = nm_find(ents, n, fn);
	struct elf_syms *es;
	struct map_line m;
	uint64_t rt, vaddr;

	rt = (uint64_t)(uintptr_t)dlsym(handle, fn);
	assert_true(rt != 0);
	/* the test's own expectation: the loader's bias puts nm's address at rt */
	assert_int_equal(rt - bias, e->addr);
	assert_true(find_map(rt + 7, NULL, &m));
	assert_non_null(strchr(m.perms, 'x'));
	assert_non_null(strstr(m.path, "libcpfix.so"));
	es = open_syms(m.path);
	assert_int_equal(elf_syms__type(es), ET_DYN);
	assert_int_equal(elf_syms__offset_to_vaddr(es, rt + 7 - m.start + m.pgoff, &vaddr), 0);
	assert_int_equal(vaddr, e->addr + 7);
	check_lookup(es, vaddr, fn, 7);
	assert_int_equal(elf_syms__offset_to_vaddr(es, rt - m.start + m.pgoff, &vaddr), 0);
	check_lookup(es, vaddr, fn, 0);
	elf_syms__free(es);
}

static void test_shared_object_runtime(void **state)
{
	struct phdr_find pf = {.suffix = "libcpfix.so"};
	char path[PATH_MAX];
	struct nm_ent *ents;
	struct elf_syms *es;
	void *handle;
	size_t n;

	(void)state;
	fixture(path, sizeof(path), "libcpfix.so");
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		fail_msg("dlopen %s: %s", path, dlerror());
	dl_iterate_phdr(phdr_cb, &pf);
	assert_true(pf.found);
	assert_true(pf.bias != 0);
	n = nm_list(path, false, &ents);
	check_runtime_fn(handle, ents, n, "cp_lib_work", pf.bias);
	check_runtime_fn(handle, ents, n, "cp_lib_leaf", pf.bias);
	es = open_syms(path);
	assert_int_equal(elf_syms__count(es), readelf_func_addrs(path));
	elf_syms__free(es);
	free(ents);
	dlclose(handle);
}

/* ---- vDSO and libc ------------------------------------------------------------------------ */

static void test_vdso(void **state)
{
	char tmp[] = "/tmp/cpuprof_vdso_XXXXXX";
	const struct nm_ent *g, *w;
	struct nm_ent *ents;
	struct elf_syms *es;
	struct map_line m;
	uint64_t base;
	size_t n;
	int fd;

	(void)state;
	base = getauxval(AT_SYSINFO_EHDR);
	if (!base)
		cp_skip("no vDSO in this process");
	assert_true(find_map(0, "[vdso]", &m));
	assert_int_equal(m.start, base);
	es = elf_syms__from_mem((const void *)(uintptr_t)base, m.end - m.start);
	assert_non_null(es);
	assert_int_equal(elf_syms__type(es), ET_DYN);

	/* nm reads a copy of the image written to a file */
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, (const void *)(uintptr_t)base, m.end - m.start),
			 (ssize_t)(m.end - m.start));
	close(fd);
	n = nm_list(tmp, true, &ents);
	g = nm_find(ents, n, "__vdso_clock_gettime");
	w = nm_find(ents, n, "clock_gettime");
	/* global __vdso_clock_gettime and weak clock_gettime alias each other: global wins */
	assert_int_equal(g->addr, w->addr);
	assert_int_equal(g->type, 'T');
	assert_int_equal(w->type, 'W');
	check_lookup(es, g->addr, "__vdso_clock_gettime", 0);
	check_lookup(es, g->addr + g->size - 1, "__vdso_clock_gettime", g->size - 1);
	check_build_id(es, tmp);
	assert_int_equal(elf_syms__count(es), readelf_func_addrs(tmp));
	unlink(tmp);
	free(ents);
	elf_syms__free(es);
}

static int nm_rank(char type)
{
	/* upper case is global; W and V are weak; i (ifunc) in a dynamic table is exported */
	if (type == 'W' || type == 'V')
		return 1;
	if ((type >= 'A' && type <= 'Z') || type == 'i')
		return 0;
	return 2;
}

static void test_libc(void **state)
{
	const struct nm_ent *m, *best = NULL;
	struct nm_ent *ents;
	struct elf_syms *es;
	size_t n, i;

	(void)state;
	if (access(LIBC_PATH, R_OK))
		cp_skip(LIBC_PATH " not installed");
	es = open_syms(LIBC_PATH);
	n = nm_list(LIBC_PATH, true, &ents);
	m = nm_find(ents, n, "malloc");
	/* the alias winner by the documented rule, from nm's view of that address */
	for (i = 0; i < n; i++) {
		const struct nm_ent *e = &ents[i];

		if (e->addr != m->addr || !strchr("TtWi", e->type))
			continue;
		if (!best || nm_rank(e->type) < nm_rank(best->type) ||
		    (nm_rank(e->type) == nm_rank(best->type) &&
		     (strlen(e->name) < strlen(best->name) ||
		      (strlen(e->name) == strlen(best->name) && strcmp(e->name, best->name) < 0))))
			best = e;
	}
	assert_non_null(best);
	/* on Debian 12 that is malloc itself, over its global alias __libc_malloc */
	assert_string_equal(best->name, "malloc");
	check_lookup(es, m->addr, best->name, 0);
	check_lookup(es, m->addr + 1, best->name, 1);
	assert_int_equal(elf_syms__count(es), readelf_func_addrs(LIBC_PATH));
	check_build_id(es, LIBC_PATH);
	assert_int_equal(elf_syms__type(es), ET_DYN);
	free(ents);
	elf_syms__free(es);
}

/* ---- not ELF ------------------------------------------------------------------------------ */

static struct elf_syms *from_bytes_file(const void *bytes, size_t len)
{
	char tmp[] = "/tmp/cpuprof_notelf_XXXXXX";
	struct elf_syms *es;
	int fd = mkstemp(tmp);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, len), (ssize_t)len);
	errno = 0;
	es = elf_syms__from_fd(fd);
	close(fd);
	unlink(tmp);
	return es;
}

static void test_not_elf(void **state)
{
	static const char text[] = "this is a text file, not an ELF object\n";
	static const char short_elf[] = "\177ELF\2\1\1";
	int fd;

	(void)state;
	assert_null(from_bytes_file(text, sizeof(text) - 1));
	assert_int_equal(errno, ENOEXEC);
	assert_null(from_bytes_file("", 0));
	assert_int_equal(errno, ENOEXEC);
	/* right magic, truncated header */
	assert_null(from_bytes_file(short_elf, sizeof(short_elf) - 1));
	assert_int_equal(errno, ENOEXEC);

	errno = 0;
	assert_null(elf_syms__from_mem(text, sizeof(text) - 1));
	assert_int_equal(errno, ENOEXEC);
	errno = 0;
	assert_null(elf_syms__from_mem(short_elf, sizeof(short_elf) - 1));
	assert_int_equal(errno, ENOEXEC);
	errno = 0;
	assert_null(elf_syms__from_mem(NULL, 0));
	assert_int_equal(errno, EINVAL);

	/* unreadable: a directory */
	fd = open("/", O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	errno = 0;
	assert_null(elf_syms__from_fd(fd));
	assert_int_equal(errno, EIO);
	close(fd);
}

static void test_null_safe(void **state)
{
	uint64_t v = 0;
	size_t len = 1;

	(void)state;
	elf_syms__free(NULL);
	assert_int_equal(elf_syms__count(NULL), 0);
	assert_null(elf_syms__lookup(NULL, 0x1000, &v));
	assert_int_equal(elf_syms__offset_to_vaddr(NULL, 0, &v), -EINVAL);
	assert_null(elf_syms__build_id(NULL, &len));
	assert_int_equal(len, 0);
}

/* ---- a hand-built image: the exact rules ---------------------------------------------------- */

enum { S_NULL, S_TEXT, S_NOTE, S_SYMTAB, S_STRTAB, S_DYNSYM, S_DYNSTR, S_SHSTRTAB, S_NUM };

#define IMG_SIZE  0x10000
#define TEXT_OFF  0x1000
#define TEXT_ADDR 0x401000
/* shorter than its segment, so a section bound differs from a segment bound */
#define TEXT_SEC_SIZE 0xff0
#define NOTE_OFF      0x200

struct tsym {
	const char *name;
	uint64_t value;
	uint64_t size;
	unsigned char bind;
	unsigned char type;
	uint16_t shndx;
};

#define FN(n, v, s, b)                             \
	{                                          \
		n, v, s, STB_##b, STT_FUNC, S_TEXT \
	}
#define SYM(n, v, s, b, t, x)                \
	{                                    \
		n, v, s, STB_##b, STT_##t, x \
	}

static const struct tsym t_symtab[] = {
	SYM("crafted.c", 0, 0, LOCAL, FILE, SHN_ABS), /* the source file of the locals after it */
	FN("fa_local_alias", 0x401000, 0x10, LOCAL),
	FN("fa", 0x401000, 0x10, GLOBAL),
	FN("zz", 0x401020, 0x18, LOCAL),
	FN("wb", 0x401020, 0x10, WEAK),
	FN("gb_long_name", 0x401020, 0x10, GLOBAL),
	FN("bbb", 0x401040, 0x10, GLOBAL),
	FN("aaa", 0x401040, 0x10, GLOBAL),
	FN("w", 0x401040, 0x10, WEAK),
	FN("cc", 0x401040, 0x10, GLOBAL),
	FN("xb", 0x401060, 0x10, GLOBAL),
	FN("z0", 0x401080, 0, GLOBAL),
	SYM("obj", 0x401090, 8, GLOBAL, OBJECT, S_TEXT),
	SYM("ifn", 0x4010a0, 8, GLOBAL, GNU_IFUNC, S_TEXT),
	FN("outer", 0x401100, 0x100, GLOBAL),
	FN("inner", 0x401140, 0x20, LOCAL),
	SYM("und", 0x401300, 0x10, GLOBAL, FUNC, SHN_UNDEF),
	SYM("nt", 0x401310, 0x10, GLOBAL, NOTYPE, S_TEXT),
	FN(NULL, 0x401320, 0x10, GLOBAL),
	SYM("lbl", 0x401400, 0, LOCAL, NOTYPE, S_TEXT),
	SYM("lbl_at_outer", 0x401100, 0, LOCAL, NOTYPE, S_TEXT),
	FN("", 0x401500, 0x10, GLOBAL), /* a name offset that is not 0, to an empty string */
	FN("zero", 0, 0x10, GLOBAL),
	FN("tail0", 0x401f00, 0, LOCAL),
};

static const struct tsym t_dynsym[] = {
	FN("fa", 0x401000, 0x10, GLOBAL),
	FN("xa", 0x401060, 0x10, GLOBAL),
	FN("dyn_only", 0x401200, 0x10, GLOBAL),
};

/* Tables without a single indexable function. */
static const struct tsym t_nofunc[] = {
	SYM("obj", 0x401090, 8, GLOBAL, OBJECT, S_TEXT),
	SYM("und", 0x401300, 0x10, GLOBAL, FUNC, SHN_UNDEF),
	FN("zero", 0, 0x10, GLOBAL),
};

static const struct {
	uint64_t addr;
	const char *name;
	uint64_t off;
} t_expect[] = {
	{0x400fff, NULL, 0},
	{0x401000, "fa", 0}, /* global over local; in both tables once */
	{0x40100f, "fa", 0xf},
	{0x401010, NULL, 0},
	{0x401020, "gb_long_name", 0},	  /* global over weak and local, despite its length */
	{0x401037, "gb_long_name", 0x17}, /* as far as the largest alias reaches */
	{0x401038, NULL, 0},
	{0x401040, "cc", 0},	/* shortest global; the shorter weak "w" loses */
	{0x401060, "xa", 0},	/* bytewise first, across .symtab and .dynsym */
	{0x401080, "z0", 0},	/* size 0: up to the next function */
	{0x401090, "z0", 0x10}, /* an object does not end it */
	{0x40109f, "z0", 0x1f},
	{0x4010a0, "ifn", 0},
	{0x4010a7, "ifn", 7},
	{0x4010a8, NULL, 0},
	{0x401100, "outer", 0}, /* a function over a code label at its address */
	{0x40113f, "outer", 0x3f},
	{0x401140, "inner", 0}, /* nested: the inner one wins inside */
	{0x40115f, "inner", 0x1f},
	{0x401160, "outer", 0x60}, /* and the outer one resumes after it */
	{0x4011ff, "outer", 0xff},
	{0x401200, "dyn_only", 0},
	{0x40120f, "dyn_only", 0xf},
	{0x401210, NULL, 0},
	{0x401300, NULL, 0},	  /* undefined */
	{0x401310, NULL, 0},	  /* NOTYPE, global and sized: data, not code */
	{0x401320, NULL, 0},	  /* unnamed */
	{0x401400, "lbl", 0},	  /* a local code label (hand-written entry code) */
	{0x401480, "lbl", 0x80},  /* up to the next function */
	{0x401500, "lbl", 0x100}, /* an empty name is no name, as for dwarf_index before */
	{0, NULL, 0},
	{5, NULL, 0}, /* value 0 */
	{0x401f00, "tail0", 0},
	{0x401fef, "tail0", 0xef}, /* last size-0 symbol: to its section's end ... */
	{0x401ff0, NULL, 0},	   /* ... not to its segment's */
	{UINT64_MAX, NULL, 0},
};

#define T_COUNT 11

static const uint8_t t_build_id[] = {0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04};

struct img_opts {
	bool zlib;
	bool pt_note;
	bool note_sec;
	bool funcs;
	const struct tsym *symtab; /* else t_symtab or t_nofunc (funcs); .dynsym then t_nofunc */
	size_t n_symtab;
};

struct img {
	unsigned char *buf;
	size_t pos;
};

static size_t img_put(struct img *im, const void *p, size_t n, size_t align)
{
	size_t at = (im->pos + align - 1) & ~(align - 1);

	assert_true(at + n <= IMG_SIZE);
	memcpy(im->buf + at, p, n);
	im->pos = at + n;
	return at;
}

static size_t str_add(char *tab, size_t *len, const char *s)
{
	size_t at = *len;

	strcpy(tab + at, s);
	*len += strlen(s) + 1;
	return at;
}

/* Section contents, zlib-compressed behind an Elf64_Chdr when asked. */
static void put_section(struct img *im, Elf64_Shdr *sh, const void *data, size_t n, size_t align,
			bool zlib)
{
	Elf64_Chdr ch = {.ch_type = ELFCOMPRESS_ZLIB, .ch_size = n, .ch_addralign = align};
	uLongf zlen = compressBound(n);
	unsigned char *z;

	if (!zlib) {
		sh->sh_offset = img_put(im, data, n, align);
		sh->sh_size = n;
		sh->sh_addralign = align;
		return;
	}
	z = malloc(sizeof(ch) + zlen);
	assert_non_null(z);
	memcpy(z, &ch, sizeof(ch));
	assert_int_equal(compress2(z + sizeof(ch), &zlen, data, n, 9), Z_OK);
	sh->sh_offset = img_put(im, z, sizeof(ch) + zlen, 8);
	sh->sh_size = sizeof(ch) + zlen;
	sh->sh_flags |= SHF_COMPRESSED;
	sh->sh_addralign = 8;
	free(z);
}

static void put_symtab(struct img *im, Elf64_Shdr *sh, Elf64_Shdr *strsh, const struct tsym *ts,
		       size_t n, bool zlib)
{
	Elf64_Sym syms[32] = {{0}};
	char strs[1024] = "";
	size_t slen = 1, i;

	assert_true(n < 32);
	for (i = 0; i < n; i++) {
		syms[i + 1] = (Elf64_Sym){
			.st_name = ts[i].name ? str_add(strs, &slen, ts[i].name) : 0,
			.st_info = ELF64_ST_INFO(ts[i].bind, ts[i].type),
			.st_shndx = ts[i].shndx,
			.st_value = ts[i].value,
			.st_size = ts[i].size,
		};
	}
	sh->sh_entsize = sizeof(Elf64_Sym);
	sh->sh_info = 1;
	put_section(im, sh, syms, (n + 1) * sizeof(Elf64_Sym), 8, zlib);
	put_section(im, strsh, strs, slen, 1, zlib);
}

static size_t put_note(unsigned char *p, const char *owner, uint32_t type, const void *desc,
		       uint32_t descsz)
{
	Elf64_Nhdr nh = {.n_namesz = strlen(owner) + 1, .n_descsz = descsz, .n_type = type};
	size_t pos = sizeof(nh);

	memcpy(p, &nh, sizeof(nh));
	memcpy(p + pos, owner, nh.n_namesz);
	pos += (nh.n_namesz + 3) & ~3u;
	memcpy(p + pos, desc, descsz);
	return pos + ((descsz + 3) & ~3u);
}

/* An x86-64 ET_EXEC: R segment (notes) at 0x400000, RX segment (.text) at 0x401000. */
static unsigned char *make_image(const struct img_opts *o, size_t *size)
{
	static const uint32_t abi_tag[4] = {0, 3, 2, 0};
	static const uint8_t other[4] = {9, 9, 9, 9};
	struct img im = {.buf = calloc(1, IMG_SIZE)};
	Elf64_Shdr sh[S_NUM] = {{0}};
	Elf64_Phdr ph[3] = {{0}};
	unsigned char notes[256] = {0};
	char shstr[256] = "";
	size_t notelen = 0, shlen = 1;
	Elf64_Ehdr eh = {0};

	assert_non_null(im.buf);
	/* only the last note is the build-id: wrong type, then wrong owner, first */
	notelen += put_note(notes + notelen, "GNU", NT_GNU_ABI_TAG, abi_tag, sizeof(abi_tag));
	notelen += put_note(notes + notelen, "XYZ", NT_GNU_BUILD_ID, other, sizeof(other));
	notelen +=
		put_note(notes + notelen, "GNU", NT_GNU_BUILD_ID, t_build_id, sizeof(t_build_id));

	ph[0] = (Elf64_Phdr){.p_type = PT_LOAD,
			     .p_flags = PF_R,
			     .p_offset = 0,
			     .p_vaddr = 0x400000,
			     .p_paddr = 0x400000,
			     .p_filesz = 0x1000,
			     .p_memsz = 0x1000,
			     .p_align = 0x1000};
	ph[1] = (Elf64_Phdr){.p_type = PT_LOAD,
			     .p_flags = PF_R | PF_X,
			     .p_offset = TEXT_OFF,
			     .p_vaddr = TEXT_ADDR,
			     .p_paddr = TEXT_ADDR,
			     .p_filesz = 0x1000,
			     .p_memsz = 0x1000,
			     .p_align = 0x1000};
	ph[2] = (Elf64_Phdr){.p_type = PT_NOTE,
			     .p_flags = PF_R,
			     .p_offset = NOTE_OFF,
			     .p_vaddr = 0x400000 + NOTE_OFF,
			     .p_filesz = notelen,
			     .p_memsz = notelen,
			     .p_align = 4};
	im.pos = sizeof(eh);
	img_put(&im, ph, sizeof(ph), 8);

	im.pos = NOTE_OFF;
	sh[S_NOTE] = (Elf64_Shdr){.sh_name = str_add(shstr, &shlen, ".note.gnu.build-id"),
				  .sh_type = o->note_sec ? SHT_NOTE : SHT_PROGBITS,
				  .sh_flags = SHF_ALLOC,
				  .sh_addr = 0x400000 + NOTE_OFF};
	put_section(&im, &sh[S_NOTE], notes, notelen, 4, false);

	sh[S_TEXT] = (Elf64_Shdr){.sh_name = str_add(shstr, &shlen, ".text"),
				  .sh_type = SHT_PROGBITS,
				  .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
				  .sh_addr = TEXT_ADDR,
				  .sh_offset = TEXT_OFF,
				  .sh_size = TEXT_SEC_SIZE,
				  .sh_addralign = 16};
	im.pos = TEXT_OFF + 0x1000;

	sh[S_SYMTAB] = (Elf64_Shdr){.sh_name = str_add(shstr, &shlen, ".symtab"),
				    .sh_type = SHT_SYMTAB,
				    .sh_link = S_STRTAB};
	sh[S_STRTAB] =
		(Elf64_Shdr){.sh_name = str_add(shstr, &shlen, ".strtab"), .sh_type = SHT_STRTAB};
	sh[S_DYNSYM] = (Elf64_Shdr){.sh_name = str_add(shstr, &shlen, ".dynsym"),
				    .sh_type = SHT_DYNSYM,
				    .sh_link = S_DYNSTR};
	sh[S_DYNSTR] =
		(Elf64_Shdr){.sh_name = str_add(shstr, &shlen, ".dynstr"), .sh_type = SHT_STRTAB};
	if (o->symtab) {
		put_symtab(&im, &sh[S_SYMTAB], &sh[S_STRTAB], o->symtab, o->n_symtab, o->zlib);
		put_symtab(&im, &sh[S_DYNSYM], &sh[S_DYNSTR], t_nofunc,
			   sizeof(t_nofunc) / sizeof(t_nofunc[0]), o->zlib);
	} else if (o->funcs) {
		put_symtab(&im, &sh[S_SYMTAB], &sh[S_STRTAB], t_symtab,
			   sizeof(t_symtab) / sizeof(t_symtab[0]), o->zlib);
		put_symtab(&im, &sh[S_DYNSYM], &sh[S_DYNSTR], t_dynsym,
			   sizeof(t_dynsym) / sizeof(t_dynsym[0]), o->zlib);
	} else {
		put_symtab(&im, &sh[S_SYMTAB], &sh[S_STRTAB], t_nofunc,
			   sizeof(t_nofunc) / sizeof(t_nofunc[0]), o->zlib);
		put_symtab(&im, &sh[S_DYNSYM], &sh[S_DYNSTR], t_nofunc,
			   sizeof(t_nofunc) / sizeof(t_nofunc[0]), o->zlib);
	}
	sh[S_SHSTRTAB] =
		(Elf64_Shdr){.sh_name = str_add(shstr, &shlen, ".shstrtab"), .sh_type = SHT_STRTAB};
	put_section(&im, &sh[S_SHSTRTAB], shstr, shlen, 1, false);

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_entry = 0; /* no entry point: the tests count symbols (test_entry_point has one) */
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = o->pt_note ? 3 : 2;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = S_NUM;
	eh.e_shstrndx = S_SHSTRTAB;
	eh.e_shoff = img_put(&im, sh, sizeof(sh), 8);
	memcpy(im.buf, &eh, sizeof(eh));
	*size = im.pos;
	return im.buf;
}

/* The image is scribbled over and freed before any lookup: the index owns its strings. */
static struct elf_syms *crafted(const struct img_opts *o)
{
	struct elf_syms *es;
	unsigned char *img;
	size_t size;

	img = make_image(o, &size);
	es = elf_syms__from_mem(img, size);
	assert_non_null(es);
	memset(img, 0xa5, size);
	free(img);
	return es;
}

static void check_crafted(const struct img_opts *o)
{
	struct elf_syms *es = crafted(o);
	const uint8_t *id;
	uint64_t vaddr;
	size_t len, i;

	assert_int_equal(elf_syms__type(es), ET_EXEC);
	assert_int_equal(elf_syms__count(es), T_COUNT);
	for (i = 0; i < sizeof(t_expect) / sizeof(t_expect[0]); i++)
		check_lookup(es, t_expect[i].addr, t_expect[i].name, t_expect[i].off);
	id = elf_syms__build_id(es, &len);
	assert_int_equal(len, sizeof(t_build_id));
	assert_memory_equal(id, t_build_id, sizeof(t_build_id));
	assert_int_equal(elf_syms__offset_to_vaddr(es, 0x1010, &vaddr), 0);
	assert_int_equal(vaddr, 0x401010);
	assert_int_equal(elf_syms__offset_to_vaddr(es, 0x10, &vaddr), 0);
	assert_int_equal(vaddr, 0x400010);
	assert_int_equal(elf_syms__offset_to_vaddr(es, 0x1fff, &vaddr), 0);
	assert_int_equal(vaddr, 0x401fff);
	assert_int_equal(elf_syms__offset_to_vaddr(es, 0x2000, &vaddr), -ENOENT);
	elf_syms__free(es);
}

static void test_crafted_rules(void **state)
{
	struct img_opts o = {.pt_note = true, .note_sec = true, .funcs = true};

	(void)state;
	check_crafted(&o);
}

static void test_crafted_compressed(void **state)
{
	struct img_opts o = {.zlib = true, .pt_note = true, .note_sec = true, .funcs = true};

	(void)state;
	check_crafted(&o);
}

/* Without PT_NOTE the build-id comes from the note section. */
static void test_crafted_note_section(void **state)
{
	struct img_opts o = {.note_sec = true, .funcs = true};

	(void)state;
	check_crafted(&o);
}

/* Without a SHT_NOTE section it comes from PT_NOTE. */
static void test_crafted_pt_note(void **state)
{
	struct img_opts o = {.pt_note = true, .funcs = true};

	(void)state;
	check_crafted(&o);
}

/*
 * ELF_SYMS_LLVM on the same tables: what llvm-symbolizer (and dwarf_index before it read
 * symbols here) answers. Where it differs from t_expect it says why.
 */
static const struct {
	uint64_t addr;
	const char *name;
	uint64_t start;
	const char *file;
} t_expect_llvm[] = {
	{0x400fff, NULL, 0, NULL},
	{0x401000, "fa", 0x401000, NULL}, /* same size: the last in the table */
	{0x40100f, "fa", 0x401000, NULL},
	{0x401010, NULL, 0, NULL},
	{0x401020, "zz", 0x401020, "crafted.c"}, /* the largest, a local: with its file */
	{0x401037, "zz", 0x401020, "crafted.c"},
	{0x401038, NULL, 0, NULL},
	{0x401040, "cc", 0x401040, NULL}, /* the last of four of one size */
	{0x401060, "xb", 0x401060, NULL}, /* .symtab alone: .dynsym's xa is not read */
	{0x401080, "z0", 0x401080, NULL},
	{0x40109f, "z0", 0x401080, NULL},
	{0x4010a7, "ifn", 0x4010a0, NULL},
	{0x4010a8, NULL, 0, NULL},
	{0x401100, "outer", 0x401100, NULL},
	{0x40115f, "inner", 0x401140, "crafted.c"},
	{0x401160, NULL, 0, NULL}, /* the outer function does not resume */
	{0x401200, NULL, 0, NULL}, /* dyn_only: .dynsym */
	{0x401310, NULL, 0, NULL},
	{0x401400, "lbl", 0x401400, "crafted.c"},
	{0x401500, "lbl", 0x401400, "crafted.c"},
	{0x401f00, "tail0", 0x401f00, "crafted.c"},
	{0x401ff0, "tail0", 0x401f00, "crafted.c"}, /* size 0 and last: no end */
	{0x7fffffffffffffff, "tail0", 0x401f00, "crafted.c"},
};

static void test_crafted_llvm_rules(void **state)
{
	struct img_opts o = {.pt_note = true, .note_sec = true, .funcs = true};
	const struct elf_sym *sym;
	struct elf_syms *es;
	unsigned char *img;
	void *copy = NULL;
	Elf *elf = NULL;
	size_t size, i, len;

	(void)state;
	img = make_image(&o, &size);
	assert_int_equal(elf_image_open(img, size, &elf, &copy), 0);
	free(img);
	es = elf_syms__from_elf(elf, NULL, ELF_SYMS_LLVM);
	assert_non_null(es);
	assert_int_equal(elf_syms__count(es), 10);
	assert_int_equal(elf_syms__tables(es), ELF_SYMS_SYMTAB | ELF_SYMS_DYNSYM);
	for (i = 0; i < sizeof(t_expect_llvm) / sizeof(t_expect_llvm[0]); i++) {
		sym = elf_syms__find(es, t_expect_llvm[i].addr);
		if (!t_expect_llvm[i].name) {
			if (sym)
				fail_msg("0x%llx: expected no symbol, got %s",
					 (unsigned long long)t_expect_llvm[i].addr, sym->name);
			continue;
		}
		if (!sym)
			fail_msg("0x%llx: expected %s, got nothing",
				 (unsigned long long)t_expect_llvm[i].addr, t_expect_llvm[i].name);
		assert_string_equal(sym->name, t_expect_llvm[i].name);
		assert_int_equal(sym->addr, t_expect_llvm[i].start);
		if (t_expect_llvm[i].file)
			assert_string_equal(sym->file, t_expect_llvm[i].file);
		else
			assert_null(sym->file);
	}
	assert_non_null(elf_syms__build_id(es, &len));
	assert_int_equal(len, sizeof(t_build_id));
	elf_syms__free(es);
	elf_end(elf);
	free(copy);
}

/*
 * Ten aliases at one address (more than the sort orders by insertion), in no rule's order,
 * among other functions; the same with one function 4 GiB higher (the sort of wide address
 * ranges). Both rules must pick the same winners either way.
 */
static const struct tsym t_many[] = {
	FN("a_local", 0x401000, 0x10, LOCAL),	 FN("b_weak", 0x401000, 0x10, WEAK),
	FN("ccc", 0x401000, 0x10, GLOBAL),	 FN("hh", 0x401000, 0x10, GLOBAL),
	FN("ee_global", 0x401000, 0x30, GLOBAL), FN("f", 0x401000, 0x10, WEAK),
	FN("gg", 0x401000, 0x10, LOCAL),	 FN("dd", 0x401000, 0x10, GLOBAL),
	FN("zz_local", 0x401000, 0x10, LOCAL),	 FN("dd", 0x401000, 0x10, GLOBAL),
	FN("f8", 0x4011e0, 0x10, GLOBAL),	 FN("f7", 0x4011c0, 0x10, GLOBAL),
	FN("f6", 0x4011a0, 0x10, GLOBAL),	 FN("f5", 0x401180, 0x10, GLOBAL),
	FN("p1", 0x401400, 0x10, GLOBAL),	 FN("f4", 0x401160, 0x10, GLOBAL),
	FN("f3", 0x401140, 0x10, GLOBAL),	 FN("f2", 0x401120, 0x10, GLOBAL),
	FN("f1", 0x401100, 0x10, GLOBAL),	 FN("p2", 0x401400, 0x10, GLOBAL),
	FN("far", 0x100401000, 0x10, GLOBAL), /* left out of the first variant */
};

static const struct {
	uint64_t addr;
	const char *name, *llvm_name; /* ELF_SYMS_PROFILE's, ELF_SYMS_LLVM's */
	uint64_t off;		      /* from ELF_SYMS_PROFILE's */
} t_expect_many[] = {
	{0x400fff, NULL, NULL, 0x0},
	/* global, then the shorter name, then bytewise; for llvm the largest */
	{0x401000, "dd", "ee_global", 0x0},
	{0x40102f, "dd", "ee_global", 0x2f}, /* as far as the largest alias reaches */
	{0x401030, NULL, NULL, 0x0},
	{0x401105, "f1", "f1", 0x5},
	{0x401125, "f2", "f2", 0x5},
	{0x401145, "f3", "f3", 0x5},
	{0x401165, "f4", "f4", 0x5},
	{0x401185, "f5", "f5", 0x5},
	{0x4011a5, "f6", "f6", 0x5},
	{0x4011c5, "f7", "f7", 0x5},
	{0x4011e5, "f8", "f8", 0x5},
	{0x4011f0, NULL, NULL, 0x0},
	{0x401405, "p1", "p2", 0x5}, /* bytewise first; for llvm the last of one size */
	{0x401410, NULL, NULL, 0x0},
};

static void check_many(bool far)
{
	size_t n = sizeof(t_many) / sizeof(t_many[0]) - !far, i, size;
	struct img_opts o = {.pt_note = true, .note_sec = true, .symtab = t_many, .n_symtab = n};
	struct elf_syms *es = crafted(&o), *ll;
	const struct elf_sym *sym;
	unsigned char *img;
	void *copy = NULL;
	Elf *elf = NULL;

	img = make_image(&o, &size);
	assert_int_equal(elf_image_open(img, size, &elf, &copy), 0);
	free(img);
	ll = elf_syms__from_elf(elf, NULL, ELF_SYMS_LLVM);
	assert_non_null(ll);
	assert_int_equal(elf_syms__count(es), 10 + far);
	assert_int_equal(elf_syms__count(ll), 10 + far);
	for (i = 0; i < sizeof(t_expect_many) / sizeof(t_expect_many[0]); i++) {
		uint64_t a = t_expect_many[i].addr;
		const char *want = t_expect_many[i].llvm_name;

		check_lookup(es, a, t_expect_many[i].name, t_expect_many[i].off);
		sym = elf_syms__find(ll, a);
		if (!want != !sym || (sym && strcmp(sym->name, want)))
			fail_msg("0x%llx: llvm rules gave %s, want %s", (unsigned long long)a,
				 sym ? sym->name : "nothing", want ? want : "nothing");
	}
	check_lookup(es, 0x10040100f, far ? "far" : NULL, 0xf);
	sym = elf_syms__find(ll, 0x10040100f);
	assert_true(far ? sym && !strcmp(sym->name, "far") : !sym);
	elf_syms__free(es);
	elf_syms__free(ll);
	elf_end(elf);
	free(copy);
}

static void test_crafted_many_aliases(void **state)
{
	(void)state;
	check_many(false);
	check_many(true);
}

/* The profiler's index gives the same files through elf_syms__find. */
static void test_crafted_files(void **state)
{
	struct img_opts o = {.pt_note = true, .note_sec = true, .funcs = true};
	struct elf_syms *es = crafted(&o);
	const struct elf_sym *sym;

	(void)state;
	sym = elf_syms__find(es, 0x401150);
	assert_non_null(sym);
	assert_string_equal(sym->name, "inner");
	assert_int_equal(sym->addr, 0x401140);
	assert_string_equal(sym->file, "crafted.c");
	sym = elf_syms__find(es, 0x401160);
	assert_non_null(sym);
	assert_string_equal(sym->name, "outer");
	assert_null(sym->file);
	assert_null(elf_syms__find(es, 0x401010));
	assert_null(elf_syms__find(NULL, 0x401000));
	/* elf_syms__get: the same answers into the caller's struct, none when nothing covers */
	{
		struct elf_sym got = {.name = "(untouched)"};

		assert_true(elf_syms__get(es, 0x401150, &got));
		assert_string_equal(got.name, "inner");
		assert_int_equal(got.addr, 0x401140);
		assert_string_equal(got.file, "crafted.c");
		assert_true(elf_syms__get(es, 0x401160, &got));
		assert_string_equal(got.name, "outer");
		assert_int_equal(got.addr, 0x401100); /* resumed after the nested one */
		assert_null(got.file);
		got.name = "(untouched)";
		assert_false(elf_syms__get(es, 0x401010, &got));
		assert_string_equal(got.name, "(untouched)");
	}
	elf_syms__free(es);
}

/*
 * Names of 48 KiB each, over 1 MiB in all (as a Rust library's mangled names), read from a file:
 * the index reads them in the file's mapping rather than copying them to the heap, and they stay
 * right after the file is closed and unlinked.
 */
#define LONG_NAME 49152

static void test_big_strtab_borrowed(void **state)
{
	char tmp[] = "/tmp/cpuprof_bigstr_XXXXXX";
	const size_t nsym = sizeof(t_symtab) / sizeof(t_symtab[0]);
	size_t size, strsize = 1 + (nsym + 1) * (LONG_NAME + 64), used = 1, total, heap;
	unsigned char *img = make_image(&(struct img_opts){.funcs = true}, &size);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + eh->e_shoff);
	Elf64_Sym *sym = (Elf64_Sym *)(img + sh[S_SYMTAB].sh_offset);
	const char *old = (const char *)img + sh[S_STRTAB].sh_offset;
	char *strs = calloc(1, strsize), *want = malloc(LONG_NAME + 64);
	struct mallinfo2 before, after;
	struct elf_syms *es;
	int fd;

	(void)state;
	assert_non_null(strs);
	assert_non_null(want);
	/* every name made LONG_NAME bytes longer, the new table after the image */
	for (size_t i = 1; i <= nsym; i++) {
		if (!sym[i].st_name)
			continue;
		size_t len = strlen(old + sym[i].st_name);

		memcpy(strs + used, old + sym[i].st_name, len);
		memset(strs + used + len, 'x', LONG_NAME);
		sym[i].st_name = (uint32_t)used;
		used += len + LONG_NAME + 1;
	}
	assert_true(used > (1u << 20));
	sh[S_STRTAB].sh_offset = (size + 7) & ~(size_t)7;
	sh[S_STRTAB].sh_size = used;
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, img, size, 0), (ssize_t)size);
	assert_int_equal(pwrite(fd, strs, used, (off_t)sh[S_STRTAB].sh_offset), (ssize_t)used);
	before = mallinfo2();
	es = elf_syms__from_fd(fd);
	after = mallinfo2();
	close(fd);
	unlink(tmp);
	assert_non_null(es);
	total = used;
	heap = (after.uordblks + after.hblkhd) - (before.uordblks + before.hblkhd);
	/* the copy would take the whole of the names */
	assert_true(heap < total / 4);
	/* one more than check_crafted: the empty name at 0x401500 is a name of x's here */
	assert_int_equal(elf_syms__count(es), T_COUNT + 1);
	snprintf(want, LONG_NAME + 64, "outer%0*d", LONG_NAME, 0);
	memset(want + 5, 'x', LONG_NAME);
	check_lookup(es, 0x4011ff, want, 0xff);
	snprintf(want, LONG_NAME + 64, "dyn_only");
	check_lookup(es, 0x401200, want, 0); /* .dynstr: small, copied or not */
	elf_syms__free(es);
	free(want);
	free(strs);
	free(img);
}

static void test_crafted_no_symbols(void **state)
{
	struct img_opts o = {.pt_note = true, .note_sec = true};
	struct elf_syms *es = crafted(&o);
	size_t len, i;

	(void)state;
	assert_int_equal(elf_syms__count(es), 0);
	for (i = 0; i < sizeof(t_expect) / sizeof(t_expect[0]); i++)
		check_lookup(es, t_expect[i].addr, NULL, 0);
	assert_non_null(elf_syms__build_id(es, &len));
	assert_int_equal(len, sizeof(t_build_id));
	elf_syms__free(es);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crafted_rules),
		cmocka_unit_test(test_crafted_compressed),
		cmocka_unit_test(test_crafted_llvm_rules),
		cmocka_unit_test(test_crafted_files),
		cmocka_unit_test(test_big_strtab_borrowed),
		cmocka_unit_test(test_crafted_note_section),
		cmocka_unit_test(test_crafted_pt_note),
		cmocka_unit_test(test_crafted_no_symbols),
		cmocka_unit_test(test_pie_lookup),
		cmocka_unit_test(test_nopie_lookup),
		cmocka_unit_test(test_offset_to_vaddr),
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_headers_only),
		cmocka_unit_test(test_nothing_kept),
		cmocka_unit_test(test_stripped),
		cmocka_unit_test(test_shared_object_runtime),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_crafted_many_aliases),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_null_safe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
