// SPDX-License-Identifier: GPL-2.0
/*
 * elf_named's lookups by name (elf/elf_named.h) through .dynsym's GNU hash table: on the
 * machine's node (75,000 dynamic symbols, a .gnu.hash), every 61st defined dynamic symbol is
 * found at the address of its first definition in .dynsym (what a pass over it finds), and names
 * that are not there are not found (the table's answer, then a pass over .symtab).
 */
#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include "cmocka_inc.h"
#include "elf/elf_named.h"

#define NODE "/usr/bin/node"

static void test_dynsym_by_hash(void **state)
{
	struct elf_named *en = NULL;
	struct elf_named_sym s;
	Elf_Scn *scn = NULL, *dyn = NULL;
	size_t checked = 0, n;
	bool hashed = false;
	GElf_Shdr sh, dsh = {0};
	Elf_Data *data;
	Elf *elf;
	int fd;

	(void)state;
	fd = open(NODE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		cp_skip(NODE " is missing (Debian package nodejs)");
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM) {
			dyn = scn;
			dsh = sh;
		}
		hashed |= sh.sh_type == SHT_GNU_HASH;
	}
	assert_non_null(dyn);
	assert_true(hashed);
	assert_int_equal(elf_named__open(fd, &en), 0);
	data = elf_getdata(dyn, NULL);
	assert_non_null(data);
	n = dsh.sh_size / dsh.sh_entsize;
	assert_true(n > 10000);
	for (size_t i = 1; i < n; i += 61) {
		GElf_Sym sym, first;
		const char *name;
		size_t j;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF || !sym.st_name)
			continue;
		name = elf_strptr(elf, dsh.sh_link, sym.st_name);
		assert_non_null(name);
		assert_int_equal(elf_named__sym(en, name, &s), 0);
		assert_true(s.dynamic);
		checked++;
		if (s.value == sym.st_value)
			continue;
		/* another address: the name's first definition in the table must have it */
		for (j = 1; j < i; j++) {
			const char *t;

			if (!gelf_getsym(data, (int)j, &first) || first.st_shndx == SHN_UNDEF ||
			    !first.st_name)
				continue;
			t = elf_strptr(elf, dsh.sh_link, first.st_name);
			if (t && !strcmp(t, name))
				break;
		}
		assert_true(j < i);
		assert_int_equal(s.value, first.st_value);
	}
	assert_true(checked > 100);
	assert_int_equal(elf_named__sym(en, "cpuprof_no_such_symbol", &s), -ENOENT);
	assert_int_equal(elf_named__sym(en, "", &s), -ENOENT);
	/* a .symtab symbol (not exported) is still found, by the pass over .symtab */
	assert_int_equal(elf_named__sym(en, "v8_Default_embedded_blob_code_", &s), 0);
	assert_false(s.dynamic);
	elf_named__free(en);
	elf_end(elf);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dynsym_by_hash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
