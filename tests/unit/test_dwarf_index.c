// SPDX-License-Identifier: GPL-2.0
/*
 * dwarf_index and debug_find on fixtures built by the Makefile (tests/fixtures/inl_fix.c,
 * inl_fix_cxx.cpp): exact inline chains with files and lines, a separate debug file through
 * .gnu_debuglink (build-id and CRC checks), a .build-id tree under a temporary root,
 * MiniDebugInfo, compressed debug sections, C++ and Rust names.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>
#include <sys/vfs.h>
#include "cmocka_inc.h"
#include "symbol/dwarf_index.h"

static const char *fixdir(void)
{
	const char *d = getenv("CPUPROF_FIXTURES");

	return d ? d : "build/rel/fixtures";
}

/* A symbol's address and size from nm, independently of the code under test. */
static uint64_t nm_addr(const char *file, const char *sym, uint64_t *size)
{
	char cmd[1024];
	unsigned long a = 0, s = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S %s/%s | awk '$4 == \"%s\" { print $1, $2 }'", fixdir(),
		 file, sym);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%lx %lx", &a, &s), 2);
	pclose(p);
	if (size)
		*size = s;
	return a;
}

/* A directory on disk for the unpacked files (cmocka_inc.h). */
static const char *disk_dir(void)
{
	return cp_disk_dir(fixdir());
}

static struct dwarf_index *open_fix(const char *name, const struct debug_paths *dp)
{
	char path[4096];
	struct dwarf_index *di;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fixdir(), name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	/* the path given must be absolute for .gnu_debuglink */
	{
		char *abs = realpath(path, NULL);

		assert_non_null(abs);
		di = dwarf_index__open(fd, abs, dp);
		free(abs);
	}
	close(fd);
	assert_non_null(di);
	return di;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return s && a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The first address of cp_inl_outer whose chain is leaf <- mid <- outer. */
static void assert_inline_chain(struct dwarf_index *di)
{
	uint64_t size, start = nm_addr("inl_fix", "cp_inl_outer", &size);
	struct di_frame f[8];
	size_t n = 0;
	uint64_t a;

	for (a = start; a < start + size; a++) {
		assert_int_equal(dwarf_index__lookup(di, a, f, 8, &n), 0);
		if (n == 3)
			break;
	}
	assert_int_equal(n, 3);
	assert_string_equal(f[0].name, "cp_inl_leaf");
	assert_string_equal(f[1].name, "cp_inl_mid");
	assert_string_equal(f[2].name, "cp_inl_outer");
	assert_true(f[0].inlined && f[1].inlined && !f[2].inlined);
	/* the leaf's own line, then the call sites in its callers */
	assert_int_equal(f[0].line, 13);
	assert_int_equal(f[1].line, 18);
	assert_int_equal(f[2].line, 23);
	assert_true(f[0].column > 0 && f[1].column > 0 && f[2].column > 0);
	for (int i = 0; i < 3; i++) {
		assert_true(ends_with(f[i].file, "/tests/fixtures/inl_fix.c"));
		assert_true(f[i].file[0] == '/');
		assert_null(f[i].mangled);
	}
	/* the chain is cut to max, keeping the outermost frame */
	assert_int_equal(dwarf_index__lookup(di, a, f, 2, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(f[0].name, "cp_inl_leaf");
	assert_string_equal(f[1].name, "cp_inl_outer");
	assert_int_equal(dwarf_index__lookup(di, a, f, 0, &n), -EINVAL);
}

static void test_inline_chain(void **state)
{
	struct dwarf_index *di = open_fix("inl_fix", NULL);
	struct di_frame f[8];
	uint64_t a;
	size_t n;

	(void)state;
	assert_true(dwarf_index__flags(di) & DI_DWARF);
	assert_false(dwarf_index__flags(di) & DI_DEBUG_FILE);
	assert_null(dwarf_index__debug_path(di));
	assert_inline_chain(di);
	/* a function without inlining: one frame at its first line */
	a = nm_addr("inl_fix", "cp_inl_local", NULL);
	assert_int_equal(dwarf_index__lookup(di, a, f, 8, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].name, "cp_inl_local");
	assert_false(f[0].inlined);
	/* its first row at -O2 is its statement, as llvm-symbolizer also says */
	assert_int_equal(f[0].line, 29);
	/* nothing is known below the first section */
	assert_int_equal(dwarf_index__lookup(di, 0x10, f, 8, &n), 0);
	assert_int_equal(n, 0);
	dwarf_index__free(di);
}

/*
 * The decoded line rows are capped: with a cap of 1 row, a lookup in another sequence (main is
 * in .text.startup) forgets the rows of the first (not looked up since the last trim), and both
 * answer as before.
 */
static void test_held_rows(void **state)
{
	struct dwarf_index *di = open_fix("inl_fix", NULL), *all = open_fix("inl_fix", NULL);
	uint64_t a = nm_addr("inl_fix", "cp_inl_local", NULL), b = nm_addr("inl_fix", "main", NULL);
	struct di_frame f[8], g[8];
	size_t n, m, one;

	(void)state;
	dwarf_index__set_held_rows(di, 1);
	assert_int_equal(dwarf_index__held_rows(di), 0);
	assert_int_equal(dwarf_index__lookup(di, a, f, 8, &n), 0);
	one = dwarf_index__held_rows(di);
	assert_true(one > 0);
	/* the other object, uncapped, keeps both sequences' rows */
	assert_int_equal(dwarf_index__lookup(all, a, g, 8, &m), 0);
	assert_int_equal(dwarf_index__lookup(all, b, g, 8, &m), 0);
	assert_true(dwarf_index__held_rows(all) > one);
	assert_int_equal(dwarf_index__lookup(di, b, f, 8, &n), 0);
	assert_int_equal(n, m);
	assert_string_equal(f[n - 1].name, g[m - 1].name);
	assert_int_equal(f[0].line, g[0].line);
	assert_true(dwarf_index__held_rows(di) < dwarf_index__held_rows(all));
	/* the first again: decoded again, the same answer */
	assert_int_equal(dwarf_index__lookup(di, a, f, 8, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].name, "cp_inl_local");
	assert_int_equal(f[0].line, 29);
	dwarf_index__free(di);
	dwarf_index__free(all);
}

static void test_debuglink(void **state)
{
	struct dwarf_index *di = open_fix("inl_fix.stripped", NULL);

	(void)state;
	assert_true(dwarf_index__flags(di) & DI_DEBUG_FILE);
	assert_true(ends_with(dwarf_index__debug_path(di), "/inl_fix.debug"));
	assert_inline_chain(di);
	dwarf_index__free(di);
}

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* A stripped object found only by build-id, in a .build-id tree of a temporary root. */
static void test_build_id_tree(void **state)
{
	char dir[] = "/tmp/cpuprof-dwi.XXXXXX", debugdir[256], hex[128] = "";
	const char *none[] = {"/nonexistent/debug", NULL};
	struct debug_paths dp = {NULL, none, false, NULL, NULL};
	struct dwarf_index *di;
	FILE *p;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* the build-id as readelf prints it */
	assert_int_equal(
		run("readelf -n %s/inl_fix | awk '/Build ID/ { print $3 }' > %s/id", fixdir(), dir),
		0);
	snprintf(debugdir, sizeof(debugdir), "%s/id", dir);
	p = fopen(debugdir, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%127s", hex), 1);
	fclose(p);
	assert_int_equal(strlen(hex), 40);
	snprintf(debugdir, sizeof(debugdir), "%s/usr/lib/debug/.build-id/%.2s", dir, hex);
	assert_int_equal(run("mkdir -p %s && cp %s/inl_fix.debug %s", debugdir, fixdir(), debugdir),
			 0);
	snprintf(debugdir + strlen(debugdir), sizeof(debugdir) - strlen(debugdir), "/%s.debug",
		 hex + 2);
	assert_int_equal(
		run("mv %s/usr/lib/debug/.build-id/%.2s/inl_fix.debug %s", dir, hex, debugdir), 0);

	/* not found where it is not */
	di = open_fix("inl_fix.nolink", &dp);
	assert_false(dwarf_index__flags(di) & DI_DWARF);
	dwarf_index__free(di);

	/* a global debug directory */
	snprintf(debugdir, sizeof(debugdir), "%s/usr/lib/debug", dir);
	{
		const char *dirs[] = {debugdir, NULL};
		struct debug_paths d2 = {NULL, dirs, false, NULL, NULL};

		di = open_fix("inl_fix.nolink", &d2);
		assert_true(dwarf_index__flags(di) & DI_DEBUG_FILE);
		assert_inline_chain(di);
		dwarf_index__free(di);
	}
	/* the default directory under a root, as for /proc/PID/root */
	{
		const char *roots[] = {"/nonexistent-root", dir, NULL};
		struct debug_paths d3 = {roots, NULL, false, NULL, NULL};

		di = open_fix("inl_fix.nolink", &d3);
		assert_true(dwarf_index__flags(di) & DI_DEBUG_FILE);
		assert_true(strncmp(dwarf_index__debug_path(di), dir, strlen(dir)) == 0);
		assert_inline_chain(di);
		dwarf_index__free(di);
	}
	assert_int_equal(run("rm -rf %s", dir), 0);
}

/* Without a build-id, the debuglink's CRC decides. */
static void test_debuglink_crc(void **state)
{
	char dir[] = "/tmp/cpuprof-dwi.XXXXXX", path[512];
	const char *none[] = {"/nonexistent/debug", NULL};
	struct debug_paths dp = {NULL, none, false, NULL, NULL};
	struct dwarf_index *di;
	int fd;

	(void)state;
	di = open_fix("inl_fix.nobid.stripped", &dp);
	assert_true(dwarf_index__flags(di) & DI_DEBUG_FILE);
	assert_true(ends_with(dwarf_index__debug_path(di), "/inl_fix.nobid.debug"));
	dwarf_index__free(di);

	/* a debug file of another build under the right name is refused */
	assert_non_null(mkdtemp(dir));
	assert_int_equal(run("cp %s/inl_fix.nobid.stripped %s/ && cp %s/inl_fix.debug "
			     "%s/inl_fix.nobid.debug",
			     fixdir(), dir, fixdir(), dir),
			 0);
	snprintf(path, sizeof(path), "%s/inl_fix.nobid.stripped", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	di = dwarf_index__open(fd, path, &dp);
	close(fd);
	assert_non_null(di);
	assert_false(dwarf_index__flags(di) & DI_DEBUG_FILE);
	dwarf_index__free(di);
	assert_int_equal(run("rm -rf %s", dir), 0);
}

static void test_minidebuginfo(void **state)
{
	const char *none[] = {"/nonexistent/debug", NULL};
	struct debug_paths dp = {NULL, none, false, NULL, NULL};
	struct dwarf_index *di = open_fix("inl_fix.mini", &dp);
	uint64_t a = nm_addr("inl_fix", "cp_inl_local", NULL);
	struct di_frame f[4];
	size_t n;

	(void)state;
	assert_true(dwarf_index__flags(di) & DI_MINIDEBUG);
	assert_false(dwarf_index__flags(di) & DI_DWARF);
	/* a local function only MiniDebugInfo names; no lines without DWARF */
	assert_int_equal(dwarf_index__lookup(di, a + 1, f, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].name, "cp_inl_local");
	assert_null(f[0].file);
	assert_int_equal(f[0].line, 0);
	dwarf_index__free(di);
}

static void test_compressed(void **state)
{
	struct dwarf_index *di = open_fix("inl_fix.zlib", NULL);
	struct debug_paths dp = {.unpack_dir = disk_dir()};

	(void)state;
	assert_false(dwarf_index__flags(di) & DI_ZSTD);
	assert_false(dwarf_index__flags(di) & DI_UNPACKED);
	assert_inline_chain(di);
	dwarf_index__free(di);
	di = open_fix("inl_fix.zstd", NULL);
	assert_true(dwarf_index__flags(di) & DI_ZSTD);
	dwarf_index__free(di);
	if (!dp.unpack_dir)
		cp_skip("no directory on disk to unpack to");
	/* inflated to a file of a directory on disk (the fixtures'): the same answers */
	di = open_fix("inl_fix.zlib", &dp);
	assert_true(dwarf_index__flags(di) & DI_UNPACKED);
	assert_true(dwarf_index__flags(di) & DI_DWARF);
	assert_false(dwarf_index__flags(di) & DI_DAMAGED);
	assert_inline_chain(di);
	dwarf_index__free(di);
	/* nothing compressed: nothing to unpack */
	di = open_fix("inl_fix", &dp);
	assert_false(dwarf_index__flags(di) & DI_UNPACKED);
	assert_inline_chain(di);
	dwarf_index__free(di);
}

/*
 * A copy of inl_fix without DWARF (so only symbols name functions), its .symtab then
 * zlib-compressed in place with libelf. Returns the path, to be unlinked.
 */
static void make_compressed_symtab(char *path, size_t len)
{
	char cmd[8192];
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	bool done = false;
	Elf *elf;
	int fd;

	snprintf(path, len, "/tmp/cpuprof_zsymtab_%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "objcopy --strip-debug %s/inl_fix %s", fixdir(), path);
	if (system(cmd))
		cp_skip("objcopy failed");
	fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_RDWR, NULL);
	assert_non_null(elf);
	while ((scn = elf_nextscn(elf, scn))) {
		assert_non_null(gelf_getshdr(scn, &sh));
		if (sh.sh_type == SHT_SYMTAB) {
			assert_int_equal(elf_compress(scn, ELFCOMPRESS_ZLIB, 0), 1);
			done = true;
		}
	}
	assert_true(done);
	assert_true(elf_update(elf, ELF_C_WRITE) > 0);
	elf_end(elf);
	close(fd);
}

/*
 * A compressed .symtab (SHF_COMPRESSED) is inflated before its symbols are read: dwarf_index
 * used to read the compressed bytes as symbols when it had a reader of its own, while
 * elf_syms inflated them. Answers as for the plain table.
 */
static void test_compressed_symtab(void **state)
{
	uint64_t size, a = nm_addr("inl_fix", "cp_inl_local", &size);
	char path[256];
	struct dwarf_index *di;
	struct di_frame f[4];
	size_t n = 0;
	int fd;

	(void)state;
	make_compressed_symtab(path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	di = dwarf_index__open(fd, path, NULL);
	close(fd);
	unlink(path);
	assert_non_null(di);
	assert_false(dwarf_index__flags(di) & DI_DWARF);
	assert_true(dwarf_index__flags(di) & DI_SYMBOLS);
	assert_int_equal(dwarf_index__lookup(di, a + size - 1, f, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].name, "cp_inl_local");
	assert_int_equal(dwarf_index__lookup(di, a + size, f, 4, &n), 0);
	assert_true(n == 0 || !f[0].name || strcmp(f[0].name, "cp_inl_local"));
	dwarf_index__free(di);
}

/*
 * A copy of inl_fix whose section named sec is damaged in its header only: its type set to
 * NOBITS (nobits) or SHF_COMPRESSED set on bytes that are not compressed. The layout is kept
 * (ELF_F_LAYOUT), so only the header lies. The path is to be unlinked.
 */
static void make_damaged(char *path, size_t len, const char *sec, bool nobits)
{
	char cmd[8192];
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	bool done = false;
	Elf *elf;
	int fd;

	snprintf(path, len, "/tmp/cpuprof_damaged_%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "cp %s/inl_fix %s", fixdir(), path);
	assert_int_equal(system(cmd), 0);
	fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_RDWR, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		assert_non_null(gelf_getshdr(scn, &sh));
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, sec))
			continue;
		if (nobits)
			sh.sh_type = SHT_NOBITS;
		else
			sh.sh_flags |= SHF_COMPRESSED;
		assert_true(gelf_update_shdr(scn, &sh));
		done = true;
	}
	assert_true(done);
	assert_true(elf_update(elf, ELF_C_WRITE) > 0);
	elf_end(elf);
	close(fd);
}

/*
 * Debug sections whose headers lie (found by fuzzing: a NOBITS .debug_line, raw bytes marked
 * SHF_COMPRESSED) cost the lines or the DWARF they describe, not the symbols, and the index
 * says so (DI_DAMAGED) instead of answering as if the object had no lines. (A NOBITS
 * .debug_info is how a stripped object points to a debug file: not damage.)
 */
static void test_damaged_sections(void **state)
{
	static const struct {
		const char *sec;
		bool nobits;
	} cases[] = {
		{".debug_line", true},
		{".debug_line", false},
		{".debug_info", false},
		{".debug_abbrev", false},
	};
	uint64_t a = nm_addr("inl_fix", "cp_inl_local", NULL);

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dwarf_index *di;
		struct di_frame f[8];
		char path[256];
		size_t n = 0;
		int fd;

		make_damaged(path, sizeof(path), cases[i].sec, cases[i].nobits);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		di = dwarf_index__open(fd, path, NULL);
		close(fd);
		unlink(path);
		assert_non_null(di);
		assert_int_equal(dwarf_index__lookup(di, a, f, 8, &n), 0);
		/* the symbol table still names the function */
		assert_int_equal(n, 1);
		assert_string_equal(f[0].name, "cp_inl_local");
		if (!(dwarf_index__flags(di) & DI_DAMAGED))
			fail_msg("%s %s: not reported damaged", cases[i].sec,
				 cases[i].nobits ? "NOBITS" : "SHF_COMPRESSED");
		dwarf_index__free(di);
	}
}

static void test_cxx(void **state)
{
	struct dwarf_index *di = open_fix("inl_fix_cxx", NULL);
	uint64_t size, a, start = nm_addr("inl_fix_cxx", "_ZN5cpfix3runERKNS_3BoxIlEE", &size);
	struct di_frame f[4];
	size_t n = 0;

	(void)state;
	for (a = start; a < start + size; a++) {
		assert_int_equal(dwarf_index__lookup(di, a, f, 4, &n), 0);
		if (n == 2)
			break;
	}
	assert_int_equal(n, 2);
	assert_string_equal(f[0].name, "cpfix::Box<long>::twice() const");
	assert_string_equal(f[0].mangled, "_ZNK5cpfix3BoxIlE5twiceEv");
	assert_int_equal(f[0].line, 13);
	assert_true(f[0].inlined);
	assert_string_equal(f[1].name, "cpfix::run(cpfix::Box<long> const&)");
	assert_string_equal(f[1].mangled, "_ZN5cpfix3runERKNS_3BoxIlEE");
	assert_int_equal(f[1].line, 19);
	assert_true(ends_with(f[1].file, "/tests/fixtures/inl_fix_cxx.cpp"));
	dwarf_index__free(di);
}

static void test_rust_names(void **state)
{
	struct dwarf_index *di = open_fix("inl_fix", NULL);
	uint64_t legacy = nm_addr("inl_fix", "_ZN4core3fmt5write17h0123456789abcdefE", NULL);
	uint64_t v0 = nm_addr("inl_fix", "_RNvNtCs1234_7mycrate3foo3bar", NULL);
	struct di_frame f[4];
	size_t n;

	(void)state;
	/* rustfilt's form: no hash */
	assert_int_equal(dwarf_index__lookup(di, legacy, f, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].name, "core::fmt::write");
	assert_string_equal(f[0].mangled, "_ZN4core3fmt5write17h0123456789abcdefE");
	assert_int_equal(dwarf_index__lookup(di, v0, f, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].name, "mycrate::foo::bar");
	assert_string_equal(f[0].mangled, "_RNvNtCs1234_7mycrate3foo3bar");
	dwarf_index__free(di);
}

static void test_not_elf(void **state)
{
	int fd = open("/dev/null", O_RDONLY);

	(void)state;
	assert_true(fd >= 0);
	assert_null(dwarf_index__open(fd, "/dev/null", NULL));
	assert_int_equal(errno, ENOEXEC);
	close(fd);
	dwarf_index__free(NULL);
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The batch answers of path (every 7th byte of .text) with jobs threads equal lookups'. */
static size_t check_batch(const char *path, unsigned int jobs)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct dwarf_index *one, *many;
	uint64_t lo = 0, hi = 0, *addrs;
	struct di_batch *b;
	size_t n = 0, frames = 0;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *elf;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		gelf_getshdr(scn, &sh);
		if (!strcmp(elf_strptr(elf, shstrndx, sh.sh_name), ".text"))
			lo = sh.sh_addr, hi = sh.sh_addr + sh.sh_size;
	}
	elf_end(elf);
	assert_true(hi > lo);
	one = dwarf_index__open(fd, path, NULL);
	many = dwarf_index__open(fd, path, NULL);
	close(fd);
	assert_non_null(one);
	assert_non_null(many);
	addrs = calloc((hi - lo) / 7 + 1, sizeof(*addrs));
	assert_non_null(addrs);
	/* from the end, so that the batch's order is not the address order */
	for (uint64_t a = hi - 1; a >= lo && a < hi; a -= 7)
		addrs[n++] = a;
	/* threads for however few DIEs: this test is about them */
	dwarf_index__set_thread_bytes(many, 1);
	assert_int_equal(dwarf_index__lookup_batch(many, addrs, n, 16, jobs, &b), 0);
	for (size_t i = 0; i < n; i++) {
		struct di_frame f[16];
		const struct di_frame *g;
		size_t k, m = di_batch__frames(b, i, &g);

		assert_int_equal(dwarf_index__lookup(one, addrs[i], f, 16, &k), 0);
		assert_int_equal(k, m);
		for (size_t j = 0; j < k; j++) {
			assert_true(same_str(f[j].name, g[j].name));
			assert_true(same_str(f[j].mangled, g[j].mangled));
			assert_true(same_str(f[j].file, g[j].file));
			assert_int_equal(f[j].line, g[j].line);
			assert_int_equal(f[j].column, g[j].column);
			assert_int_equal(f[j].inlined, g[j].inlined);
		}
		frames += k;
	}
	di_batch__free(b);
	free(addrs);
	dwarf_index__free(one);
	dwarf_index__free(many);
	return frames;
}

/*
 * Batches answer as single lookups do, whatever the number of threads: on this test program
 * (-O2 -g, one CU per source file of the modules it links) and on the zlib fixture (compressed
 * sections, one thread).
 */
static void test_batch_threads(void **state)
{
	char *self = realpath("/proc/self/exe", NULL);
	char path[4096];

	(void)state;
	assert_non_null(self);
	assert_true(check_batch(self, 1) > 1000);
	assert_true(check_batch(self, 3) > 1000);
	free(self);
	snprintf(path, sizeof(path), "%s/inl_fix.zlib", fixdir());
	assert_true(check_batch(path, 4) > 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inline_chain),	  cmocka_unit_test(test_held_rows),
		cmocka_unit_test(test_debuglink),	  cmocka_unit_test(test_build_id_tree),
		cmocka_unit_test(test_debuglink_crc),	  cmocka_unit_test(test_minidebuginfo),
		cmocka_unit_test(test_compressed),	  cmocka_unit_test(test_cxx),
		cmocka_unit_test(test_compressed_symtab), cmocka_unit_test(test_rust_names),
		cmocka_unit_test(test_damaged_sections),  cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_batch_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
