// SPDX-License-Identifier: GPL-2.0
/*
 * Files that shrink while cpuprof reads them (util/fmap.h, elf/elf_file.h): a user truncates a
 * library or debug file that cpuprof has mapped. Each case maps a copy of a fixture, truncates
 * the copy before the read that would go past its new end, and checks that the read answers
 * an error instead of the process dying of SIGBUS, and that another object still names fine.
 */
#include <sys/mman.h>
#include <sys/wait.h>
#include "cmocka_inc.h"
#include "elf/elf_file.h"
#include "elf/elf_named.h"
#include "elf/elf_syms.h"
#include "symbol/dwarf_index.h"
#include "util/fmap.h"

static const char *fixdir(void)
{
	const char *d = getenv("CPUPROF_FIXTURES");

	return d ? d : "build/rel/fixtures";
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

/* A temporary directory with copies of the fixtures named (NULL-terminated). */
static void copy_fixtures(char *dir, const char *const *names)
{
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; names[i]; i++)
		assert_int_equal(run("cp %s/%s %s/", fixdir(), names[i], dir), 0);
}

/* A symbol's address from nm, independently of the code under test. */
static uint64_t nm_addr(const char *file, const char *sym)
{
	char cmd[1024];
	unsigned long a = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s/%s | awk '$3 == \"%s\" { print $1 }'", fixdir(), file,
		 sym);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%lx", &a), 1);
	pclose(p);
	return a;
}

static struct dwarf_index *open_index(const char *dir, const char *name)
{
	char path[4096];
	struct dwarf_index *di;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	di = dwarf_index__open(fd, path, NULL);
	close(fd);
	assert_non_null(di);
	return di;
}

/* The fixture itself still names cp_inl_local: one shrunk object spoils no other. */
static void assert_names_fine(void)
{
	char dir[PATH_MAX];
	struct dwarf_index *di;
	struct di_frame f[8];
	size_t n = 0;

	snprintf(dir, sizeof(dir), "%s", fixdir());
	di = open_index(dir, "inl_fix");
	assert_int_equal(dwarf_index__lookup(di, nm_addr("inl_fix", "cp_inl_local"), f, 8, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].name, "cp_inl_local");
	dwarf_index__free(di);
}

static void shrink(const char *dir, const char *name, off_t size)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(truncate(path, size), 0);
}

/* The object itself truncated between its opening and the first lookup into its DWARF. */
static void test_object_truncated(void **state)
{
	const char *names[] = {"inl_fix", NULL};
	char dir[] = "/tmp/cpuprof-fmap.XXXXXX";
	uint64_t a = nm_addr("inl_fix", "cp_inl_local");
	struct dwarf_index *di;
	struct di_frame f[8];
	struct di_batch *b = (struct di_batch *)1;
	size_t n = 7;

	(void)state;
	copy_fixtures(dir, names);
	di = open_index(dir, "inl_fix");
	assert_true(dwarf_index__flags(di) & DI_DWARF);
	shrink(dir, "inl_fix", 4096);
	assert_int_equal(dwarf_index__lookup(di, a, f, 8, &n), -ESTALE);
	assert_int_equal(n, 0);
	assert_true(dwarf_index__flags(di) & DI_CHANGED);
	/* poisoned: nothing is read from it again */
	assert_int_equal(dwarf_index__lookup(di, a, f, 8, &n), -ESTALE);
	assert_int_equal(dwarf_index__lookup_batch(di, &a, 1, 8, 2, &b), -ESTALE);
	assert_null(b);
	assert_null(dwarf_index__debug_symbol(di, a));
	dwarf_index__free(di);
	assert_names_fine();
	run("rm -rf %s", dir);
}

/* A separate debug file (found through .gnu_debuglink) truncated under the index. */
static void test_debug_file_truncated(void **state)
{
	const char *names[] = {"inl_fix.stripped", "inl_fix.debug", NULL};
	char dir[] = "/tmp/cpuprof-fmap.XXXXXX";
	uint64_t a = nm_addr("inl_fix", "cp_inl_local");
	struct dwarf_index *di;
	struct di_frame f[8];
	size_t n = 7;

	(void)state;
	copy_fixtures(dir, names);
	di = open_index(dir, "inl_fix.stripped");
	assert_true(dwarf_index__flags(di) & DI_DEBUG_FILE);
	/* to 0: a tail cut inside its first page would read as zeros, no fault */
	shrink(dir, "inl_fix.debug", 0);
	assert_int_equal(dwarf_index__lookup(di, a, f, 8, &n), -ESTALE);
	assert_int_equal(n, 0);
	dwarf_index__free(di);
	assert_names_fine();
	run("rm -rf %s", dir);
}

/* elf_named (interpreter detection) keeps its object open: truncated after the opening. */
static void test_named_truncated(void **state)
{
	const char *names[] = {"libcpfix.so", NULL};
	char dir[] = "/tmp/cpuprof-fmap.XXXXXX", path[4096];
	struct elf_named_sym sym;
	struct elf_named *en;
	uint64_t lo, hi;
	int fd;

	(void)state;
	copy_fixtures(dir, names);
	snprintf(path, sizeof(path), "%s/libcpfix.so", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(elf_named__open(fd, &en), 0);
	shrink(dir, "libcpfix.so", 1024);
	assert_int_equal(elf_named__sym(en, "cp_lib_work", &sym), -ESTALE);
	assert_int_equal(elf_named__section(en, ".text", &lo, &hi), -ESTALE);
	elf_named__free(en);
	close(fd);
	run("rm -rf %s", dir);
}

/*
 * elf_file, which elf_syms__from_fd and unwind_table__from_fd read through: the symbol tables
 * read after the cut are zeros (no symbol, no SIGBUS) and the file says it changed.
 */
static void test_elf_file_truncated(void **state)
{
	const char *names[] = {"libcpfix.so", NULL};
	char dir[] = "/tmp/cpuprof-fmap.XXXXXX", path[4096];
	struct elf_file ef;
	struct elf_syms *es;
	uint64_t off;
	int fd;

	(void)state;
	copy_fixtures(dir, names);
	snprintf(path, sizeof(path), "%s/libcpfix.so", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(elf_file_open(fd, &ef), 0);
	assert_false(elf_file_changed(&ef));
	shrink(dir, "libcpfix.so", 0);
	es = elf_syms__from_elf(ef.elf, NULL, ELF_SYMS_PROFILE);
	assert_true(elf_file_changed(&ef));
	if (es)
		assert_null(elf_syms__lookup(es, nm_addr("libcpfix.so", "cp_lib_work"), &off));
	elf_syms__free(es);
	elf_file_close(&ef);
	/* the descriptor reads the truncated file from now on: nothing, and no fault */
	assert_null(elf_syms__from_fd(fd));
	close(fd);
	run("rm -rf %s", dir);
}

/* The mapping itself: zeros past the new end, the fault noted, the mapping freed as usual. */
static void test_fmap_zeros(void **state)
{
	char path[] = "/tmp/cpuprof-fmap.XXXXXX";
	unsigned long before = fmap_fault_count();
	unsigned char buf[3 * 4096];
	struct fmap m;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	memset(buf, 0xab, sizeof(buf));
	assert_int_equal(write(fd, buf, sizeof(buf)), sizeof(buf));
	assert_int_equal(fmap_open(fd, &m), 0);
	assert_false(fmap_faulted(&m));
	assert_int_equal(((volatile unsigned char *)m.p)[5000], 0xab);
	assert_int_equal(ftruncate(fd, 4096), 0);
	assert_int_equal(((volatile unsigned char *)m.p)[100], 0xab);
	assert_int_equal(((volatile unsigned char *)m.p)[9000], 0);
	assert_true(fmap_faulted(&m));
	assert_int_equal(fmap_fault_count(), before + 1);
	fmap_close(&m);
	assert_null(m.p);
	close(fd);
	unlink(path);
}

/* A SIGBUS at an address of no guarded mapping still kills, as it did without the handler. */
static void test_other_fault_kills(void **state)
{
	char path[] = "/tmp/cpuprof-fmap.XXXXXX";
	unsigned char buf[2 * 4096] = {1};
	int fd = mkstemp(path), status;
	pid_t pid;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, sizeof(buf)), sizeof(buf));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct fmap m;
		volatile unsigned char *p;

		signal(SIGBUS, SIG_DFL); /* not cmocka's */
		if (fmap_open(fd, &m))
			_exit(2);
		p = mmap(NULL, sizeof(buf), PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED || ftruncate(fd, 0))
			_exit(3);
		(void)p[4096];
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGBUS);
	close(fd);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_object_truncated),
		cmocka_unit_test(test_debug_file_truncated),
		cmocka_unit_test(test_named_truncated),
		cmocka_unit_test(test_elf_file_truncated),
		cmocka_unit_test(test_fmap_zeros),
		cmocka_unit_test(test_other_fault_kills),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
