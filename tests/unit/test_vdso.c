// SPDX-License-Identifier: GPL-2.0
/*
 * vdso: the size of an ELF image from its headers (fixture files read into memory: the file's
 * size), and this process's vDSO: where the auxiliary vector says, as long as its [vdso]
 * mapping in /proc/self/maps, an x86-64 ELF object for libelf whose unwind table is sorted, has
 * no duplicate pcs and covers __vdso_clock_gettime (found in its .dynsym with libelf here).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmocka_inc.h"
#include "unwind/unwind_table.h"
#include "proc/vdso.h"

#define LIBC_PATH "/lib/x86_64-linux-gnu/libc.so.6"

static void *read_file(const char *path, size_t *size)
{
	void *p;

	*size = file_size(path);
	p = malloc(*size);
	assert_non_null(p);
	read_whole(path, p, *size);
	return p;
}

/* ld and objcopy write the section headers last: the image is the whole file */
static void check_file_size(const char *path)
{
	size_t size, got = 0;
	void *image = read_file(path, &size);

	assert_int_equal(vdso_elf_size(image, size, &got), 0);
	assert_int_equal(got, size);
	/* one byte short of the section headers */
	assert_int_equal(vdso_elf_size(image, size - 1, &got), -ENOEXEC);
	free(image);
}

static void test_elf_size(void **state)
{
	static const char *const names[] = {"unw_nofp", "unw_dbgframe", "fix_nopie", "libcpfix.so"};
	static const char text[] =
		"not an ELF image, but long enough to hold a whole ELF header..........";
	char path[PATH_MAX];
	size_t got;

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		fixture(path, sizeof(path), names[i]);
		check_file_size(path);
	}
	check_file_size(LIBC_PATH);
	assert_true(sizeof(text) >= 64);
	assert_int_equal(vdso_elf_size(text, sizeof(text), &got), -ENOEXEC);
	assert_int_equal(vdso_elf_size("\177ELF", 4, &got), -ENOEXEC);
	assert_int_equal(vdso_elf_size(NULL, 4096, &got), -ENOEXEC);
}

static void test_image_vaddr(void **state)
{
	char path[PATH_MAX];
	const void *image;
	size_t size;
	void *file;

	(void)state;
	/* a non-PIE program's first byte is mapped at its link address; a PIE's at 0 */
	fixture(path, sizeof(path), "fix_nopie");
	file = read_file(path, &size);
	assert_int_equal(vdso_image_vaddr(file, size), 0x400000);
	free(file);
	fixture(path, sizeof(path), "unw_nofp");
	file = read_file(path, &size);
	assert_int_equal(vdso_image_vaddr(file, size), 0);
	/* headers cut off: nothing is read past size */
	assert_int_equal(vdso_image_vaddr(file, 32), 0);
	free(file);
	assert_int_equal(vdso_image_vaddr(NULL, 4096), 0);
	/* the x86-64 vDSO is linked at 0 */
	assert_int_equal(vdso_image(&image, &size), 0);
	assert_int_equal(vdso_image_vaddr(image, size), 0);
}

/* The [vdso] line of /proc/self/maps: its start and end. */
static void vdso_mapping(uint64_t *start, uint64_t *end)
{
	unsigned long long s, e;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	assert_non_null(f);
	*start = *end = 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " [vdso]") && sscanf(line, "%llx-%llx", &s, &e) == 2) {
			*start = s;
			*end = e;
		}
	fclose(f);
	assert_true(*start != 0);
}

static void test_image(void **state)
{
	const void *image = NULL;
	uint64_t start, end;
	long page = sysconf(_SC_PAGESIZE);
	size_t size = 0;
	GElf_Ehdr eh;
	Elf *elf;
	void *copy;

	(void)state;
	assert_int_equal(vdso_image(&image, &size), 0);
	assert_ptr_equal(image, (const void *)getauxval(AT_SYSINFO_EHDR));
	vdso_mapping(&start, &end);
	assert_int_equal((uint64_t)(uintptr_t)image, start);
	/* the kernel maps the image padded to whole pages */
	assert_true(size <= end - start);
	assert_true(size > end - start - (uint64_t)page);
	print_message("vDSO at %p: %zu bytes, mapped %llu\n", image, size,
		      (unsigned long long)(end - start));

	copy = malloc(size);
	assert_non_null(copy);
	memcpy(copy, image, size);
	elf_version(EV_CURRENT);
	elf = elf_memory(copy, size);
	assert_non_null(elf);
	assert_int_equal(elf_kind(elf), ELF_K_ELF);
	assert_non_null(gelf_getehdr(elf, &eh));
	assert_int_equal(eh.e_type, ET_DYN);
	assert_int_equal(eh.e_machine, EM_X86_64);
	elf_end(elf);
	free(copy);
}

/* The value of a symbol of the image's .dynsym; 0 when absent. */
static uint64_t dynsym(const void *image, size_t size, const char *name)
{
	void *copy = malloc(size);
	Elf_Scn *scn = NULL;
	uint64_t addr = 0;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf *elf;

	assert_non_null(copy);
	memcpy(copy, image, size);
	elf_version(EV_CURRENT);
	elf = elf_memory(copy, size);
	assert_non_null(elf);
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		assert_non_null(d);
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			n = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name) && sym.st_shndx != SHN_UNDEF)
				addr = sym.st_value;
		}
	}
	elf_end(elf);
	free(copy);
	return addr;
}

static void test_table(void **state)
{
	const struct cp_unwind_row *rows, *r;
	struct unwind_table_stats st;
	struct unwind_table *ut;
	const void *image;
	uint64_t base, fn;
	size_t size, n;

	(void)state;
	assert_int_equal(vdso_image(&image, &size), 0);
	ut = unwind_table__from_mem(image, size);
	if (!ut)
		fail_msg("vDSO: %s", strerror(errno));
	rows = unwind_table__rows(ut, &n);
	base = unwind_table__base(ut);
	assert_true(n > 1);
	for (size_t i = 1; i < n; i++)
		assert_true(rows[i - 1].pc < rows[i].pc); /* sorted, no pc twice */
	assert_int_equal(rows[n - 1].cfa_type, CP_CFA_END_FUNC);
	unwind_table__stats(ut, &st);
	assert_false(st.debug_frame);
	assert_true(st.fdes > 0);
	print_message("vDSO: %zu rows, %zu FDEs\n", n, st.fdes);

	fn = dynsym(image, size, "__vdso_clock_gettime");
	assert_true(fn != 0);
	assert_true(fn >= base + rows[0].pc && fn < base + rows[n - 1].pc);
	/* its first byte: the CFA just above the return address */
	r = unwind_table__lookup(ut, fn);
	assert_non_null(r);
	assert_int_equal(r->cfa_type, CP_CFA_RSP);
	assert_int_equal(r->cfa_off, 8);
	unwind_table__free(ut);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elf_size),
		cmocka_unit_test(test_image),
		cmocka_unit_test(test_image_vaddr),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
