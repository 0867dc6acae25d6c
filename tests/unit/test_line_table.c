// SPDX-License-Identifier: GPL-2.0
/*
 * line_table against libdw: for every CU of an object, the file table and the row found at
 * every row address of libdw's dwarf_getsrclines (and one byte below and above each) must be
 * libdw's, found the way dwarf_index found rows in libdw's sorted table (the last row at or
 * below the address; none when that row ends a sequence). Run on the fixtures; with
 * CPUPROF_LINE_CHECK=FILE, also on every object listed in FILE (bench/line_check.sh lists the
 * objects of the machine that have .debug_line).
 */
#include <dirent.h>
#include <inttypes.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "cmocka_inc.h"
#include "symbol/line_table.h"

static const char *fixdir(void)
{
	const char *d = getenv("CPUPROF_FIXTURES");

	return d ? d : "build/rel/fixtures";
}

struct tally {
	size_t cus, own, unsupported, rows, probes, mismatches, trimmed;
};

/* The sections, found here independently of dwarf_index (after libdw decompressed them). */
static bool sections(Elf *elf, struct lt_sections *sec)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	*sec = (struct lt_sections){};
	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (sh.sh_flags & SHF_COMPRESSED)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		if (!strcmp(name, ".debug_line"))
			sec->line = d->d_buf, sec->line_size = d->d_size;
		else if (!strcmp(name, ".debug_line_str"))
			sec->line_str = d->d_buf, sec->line_str_size = d->d_size;
		else if (!strcmp(name, ".debug_str"))
			sec->str = d->d_buf, sec->str_size = d->d_size;
	}
	return sec->line != NULL;
}

static void report(struct tally *t, const char *path, const char *what, uint64_t addr)
{
	if (t->mismatches++ < 20)
		fprintf(stderr, "line_table: %s: %s at %#" PRIx64 "\n", path, what, addr);
}

/* libdw's answer: index of the row, or -1. */
static ssize_t libdw_find(Dwarf_Lines *lines, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;
	Dwarf_Addr a;
	bool end = false;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		dwarf_lineaddr(dwarf_onesrcline(lines, mid), &a);
		if (a <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	dwarf_lineendsequence(dwarf_onesrcline(lines, lo - 1), &end);
	return end ? -1 : (ssize_t)(lo - 1);
}

static void probe(struct tally *t, const char *path, struct line_table *lt, Dwarf_Lines *lines,
		  size_t n, uint64_t addr)
{
	ssize_t i = libdw_find(lines, n, addr);
	struct lt_row r;
	int err = line_table__find(lt, addr, &r);
	Dwarf_Line *l;
	Dwarf_Addr a;
	int line = 0, col = 0;
	const char *f, *g;

	t->probes++;
	if (i < 0 || err) {
		if ((i < 0) != (err == -ENOENT))
			report(t, path, i < 0 ? "a row libdw has not" : "no row", addr);
		return;
	}
	l = dwarf_onesrcline(lines, (size_t)i);
	dwarf_lineaddr(l, &a);
	dwarf_lineno(l, &line);
	dwarf_linecol(l, &col);
	f = dwarf_linesrc(l, NULL, NULL);
	g = line_table__file(lt, r.file);
	if (a != r.addr || (uint32_t)(line > 0 ? line : 0) != r.line ||
	    (uint32_t)(col > 0 ? col : 0) != r.col || (!f != !g) || (f && strcmp(f, g)))
		report(t, path, "a different row", addr);
}

static void check_cu(struct tally *t, const char *path, const struct lt_sections *sec,
		     Dwarf_Die *cudie)
{
	size_t held, n_trim;
	Dwarf_Attribute attr;
	Dwarf_Word off;
	Dwarf_Die die;
	uint8_t asize, osize;
	Dwarf_Lines *lines = NULL;
	Dwarf_Files *files = NULL;
	size_t n = 0, nf = 0;
	struct line_table *lt = NULL;
	bool dw_ok;
	int err;

	if (!dwarf_attr(cudie, DW_AT_stmt_list, &attr) || dwarf_formudata(&attr, &off) ||
	    !dwarf_diecu(cudie, &die, &asize, &osize))
		return;
	t->cus++;
	dw_ok = dwarf_getsrclines(cudie, &lines, &n) == 0 &&
		dwarf_getsrcfiles(cudie, &files, &nf) == 0;
	err = line_table__open(sec, off, asize,
			       dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &attr)), &lt);
	if (err == -ENOTSUP) {
		t->unsupported++;
		return;
	}
	if (dw_ok != !err) {
		report(t, path,
		       dw_ok ? "line_table refuses a table libdw reads"
			     : "line_table reads a table libdw refuses",
		       off);
		line_table__free(lt);
		return;
	}
	if (err)
		return;
	t->own++;
	t->rows += n;
	if (line_table__n_files(lt) != nf)
		report(t, path, "a different number of files, table", off);
	for (size_t i = 0; i < nf && i < line_table__n_files(lt); i++) {
		const char *f = dwarf_filesrc(files, i, NULL, NULL), *g = line_table__file(lt, i);

		if (!f != !g || (f && strcmp(f, g)))
			report(t, path, "a different file name, table", off);
	}
	for (size_t i = 0; i < n; i++) {
		Dwarf_Addr a;

		dwarf_lineaddr(dwarf_onesrcline(lines, i), &a);
		probe(t, path, lt, lines, n, a);
		probe(t, path, lt, lines, n, a + 1);
		if (a)
			probe(t, path, lt, lines, n, a - 1);
	}
	/*
	 * the decoded rows forgotten: kept by the first trim (looked up since), freed by the
	 * second; the same answers, decoded again
	 */
	held = line_table__held(lt);
	assert_int_equal(line_table__trim(lt, false), 0);
	assert_int_equal(line_table__held(lt), held);
	n_trim = line_table__trim(lt, false);
	/* what it held, it counted */
	assert_int_equal(n_trim, held);
	assert_int_equal(line_table__held(lt), 0);
	t->trimmed += n_trim;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Addr a;

		dwarf_lineaddr(dwarf_onesrcline(lines, i), &a);
		probe(t, path, lt, lines, n, a);
	}
	line_table__free(lt);
}

static void check_object(struct tally *t, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct lt_sections sec;
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie;
	Dwarf *dw;
	Elf *elf;

	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	if (dw && sections(elf, &sec)) {
		while (dwarf_get_units(dw, cu, &next, NULL, NULL, &cudie, NULL) == 0) {
			cu = next;
			check_cu(t, path, &sec, &cudie);
		}
	}
	if (dw)
		dwarf_end(dw);
	if (elf)
		elf_end(elf);
	close(fd);
}

/* Every fixture with line tables agrees exactly, and line_table takes them all. */
static void test_fixtures_agree(void **state)
{
	struct tally t = {};
	struct dirent *e;
	DIR *d = opendir(fixdir());
	char path[4096];

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", fixdir(), e->d_name);
		check_object(&t, path);
	}
	closedir(d);
	assert_int_equal(t.mismatches, 0);
	assert_int_equal(t.unsupported, 0);
	/* inl_fix, inl_fix_cxx, the -g fixtures: dozens of CUs, thousands of rows */
	assert_true(t.own >= 10);
	assert_true(t.rows >= 1000);
	/* the rows line_table__trim forgot were decoded: it frees them all */
	assert_true(t.trimmed >= 1000);
}

/* CPUPROF_LINE_CHECK=FILE: the objects listed in FILE, one path a line. */
static void test_listed_objects_agree(void **state)
{
	const char *list = getenv("CPUPROF_LINE_CHECK");
	struct tally t = {};
	char line[4096];
	size_t objects = 0;
	FILE *f;

	(void)state;
	f = fopen(list, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!*line)
			continue;
		check_object(&t, line);
		objects++;
	}
	fclose(f);
	printf("line_table vs libdw: %zu objects, %zu CUs with line programs, %zu decoded by "
	       "line_table (%zu left to libdw), %zu rows, %zu addresses probed, %zu differences\n",
	       objects, t.cus, t.own, t.unsupported, t.rows, t.probes, t.mismatches);
	assert_int_equal(t.mismatches, 0);
}

/* Append a little-endian value. */
static size_t put(uint8_t *b, size_t at, uint64_t v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		b[at + i] = (uint8_t)(v >> (8 * i));
	return at + n;
}

static size_t set_address(uint8_t *b, size_t at, uint64_t a)
{
	b[at++] = 0;
	b[at++] = 9;
	b[at++] = DW_LNE_set_address;
	return put(b, at, a, 8);
}

static size_t end_sequence(uint8_t *b, size_t at)
{
	b[at++] = 0;
	b[at++] = 1;
	b[at++] = DW_LNE_end_sequence;
	return at;
}

static void expect_row(struct line_table *lt, uint64_t addr, int line)
{
	struct lt_row r;
	int err = line_table__find(lt, addr, &r);

	if (line < 0) {
		assert_int_equal(err, -ENOENT);
		return;
	}
	assert_int_equal(err, 0);
	assert_int_equal(r.line, line);
	assert_string_equal(line_table__file(lt, r.file), "/src/a.c");
}

/*
 * A hand-made DWARF 4 program: a sequence whose rows go back in address (set_address lower),
 * then a sequence starting where the first ends. Answers as libdw's sorted rows give them:
 * by address, an end before a row at the same address, nothing past the last end.
 */
static void test_backwards_sequence(void **state)
{
	static const uint8_t std_len[12] = {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};
	uint8_t b[256] = {};
	size_t at = 10, hdr;
	struct lt_sections sec = {.line = b};
	struct line_table *lt;

	(void)state;
	/* unit_length and header_length are filled in below */
	put(b, 4, 4, 2); /* version */
	hdr = at;
	b[at++] = 1;	/* minimum_instruction_length */
	b[at++] = 1;	/* maximum_operations_per_instruction */
	b[at++] = 1;	/* default_is_stmt */
	b[at++] = 0xfb; /* line_base -5 */
	b[at++] = 14;	/* line_range */
	b[at++] = 13;	/* opcode_base */
	memcpy(b + at, std_len, sizeof(std_len));
	at += sizeof(std_len);
	b[at++] = 0; /* no include_directories */
	memcpy(b + at, "a.c", 4);
	at += 4;
	b[at++] = 0; /* directory 0: the CU's comp_dir */
	b[at++] = 0;
	b[at++] = 0;
	b[at++] = 0; /* end of file_names */
	put(b, 6, at - hdr, 4);
	at = set_address(b, at, 0x1000);
	b[at++] = DW_LNS_copy; /* 0x1000 line 1 */
	b[at++] = DW_LNS_advance_pc;
	b[at++] = 0x10;
	b[at++] = DW_LNS_advance_line;
	b[at++] = 1;
	b[at++] = DW_LNS_copy; /* 0x1010 line 2 */
	at = set_address(b, at, 0xff0);
	b[at++] = DW_LNS_advance_line;
	b[at++] = 1;
	b[at++] = DW_LNS_copy; /* 0xff0 line 3: back in address */
	b[at++] = DW_LNS_advance_pc;
	b[at++] = 0x40;
	at = end_sequence(b, at); /* 0x1030 */
	at = set_address(b, at, 0x1030);
	b[at++] = DW_LNS_copy; /* 0x1030 line 1 */
	b[at++] = DW_LNS_advance_pc;
	b[at++] = 8;
	at = end_sequence(b, at); /* 0x1038 */
	put(b, 0, at - 4, 4);
	sec.line_size = at;

	assert_int_equal(line_table__open(&sec, 0, 8, "/src", &lt), 0);
	assert_int_equal(line_table__n_files(lt), 2);
	assert_string_equal(line_table__file(lt, 0), "???");
	expect_row(lt, 0xfef, -1);
	expect_row(lt, 0xff0, 3);
	expect_row(lt, 0xff8, 3);
	expect_row(lt, 0x1000, 1);
	expect_row(lt, 0x1020, 2);
	expect_row(lt, 0x1030, 1); /* the second sequence's row, not the first's end */
	expect_row(lt, 0x1037, 1);
	expect_row(lt, 0x1038, -1);
	expect_row(lt, 0x5000, -1);
	line_table__free(lt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures_agree),
		cmocka_unit_test(test_backwards_sequence),
	};
	const struct CMUnitTest listed[] = {
		cmocka_unit_test(test_listed_objects_agree),
	};

	if (getenv("CPUPROF_LINE_CHECK"))
		return cmocka_run_group_tests(listed, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
