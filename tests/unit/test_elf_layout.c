// SPDX-License-Identifier: GPL-2.0
/*
 * elf_layout_map_vaddr on program headers as the linkers lay them out (copied from readelf -lW
 * of the tree fixture built each way), with the mappings the loader makes of them: the vaddr
 * at a mapping's start must be the segment's, whichever other segment shares its first page.
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include "cmocka_inc.h"
#include "elf/elf_layout.h"

#define R    PF_R
#define RX   (PF_R | PF_X)
#define RW   (PF_R | PF_W)
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A PIE's or library's load bias: any page-aligned address */
#define BIAS 0x7f3a12340000ull

/* The vaddr at the start of an executable mapping [start, end) of file offset pgoff. */
static uint64_t vaddr_at(const struct elf_load *s, size_t n, bool fixed, uint64_t start,
			 uint64_t end, uint64_t pgoff)
{
	struct elf_map m = {.start = start, .end = end, .pgoff = pgoff, .exec = true};
	uint64_t v = 0xdeadbeef;

	assert_int_equal(elf_layout_map_vaddr(s, n, fixed, &m, &v), 0);
	return v;
}

/* GNU ld, -z separate-code (Debian's default): every segment starts on its own page */
static void test_gnu_ld(void **state)
{
	static const struct elf_load s[] = {
		{0x0, 0x758, 0x0, 0x758, R},
		{0x1000, 0x33d, 0x1000, 0x33d, RX},
		{0x2000, 0x1a4, 0x2000, 0x1a4, R},
		{0x2dd0, 0x268, 0x3dd0, 0x288, RW},
	};

	(void)state;
	assert_int_equal(vaddr_at(s, N(s), false, BIAS + 0x1000, BIAS + 0x2000, 0x1000), 0x1000);
}

/* GNU ld -z noseparate-code, and gold: the code shares its segment with the headers */
static void test_noseparate_code(void **state)
{
	static const struct elf_load ld[] = {
		{0x0, 0xbc4, 0x0, 0xbc4, RX},
		{0xdd0, 0x268, 0x1dd0, 0x288, RW},
	};
	static const struct elf_load gold[] = {
		{0x0, 0xba0, 0x0, 0xba0, RX},
		{0xdc0, 0x280, 0x1dc0, 0x2a8, RW},
	};

	(void)state;
	assert_int_equal(vaddr_at(ld, N(ld), false, BIAS, BIAS + 0x1000, 0), 0);
	assert_int_equal(vaddr_at(gold, N(gold), false, BIAS, BIAS + 0x1000, 0), 0);
}

/*
 * lld (and so rustc's default linking) and mold: the executable segment starts in the page
 * where the read-only one ends, one page further in memory. The page at pgoff 0 is the
 * read-only segment's first, and the executable mapping's too, at vaddr 0x1000, not 0.
 */
static void test_lld_small(void **state)
{
	static const struct elf_load lld[] = {
		{0x0, 0x82c, 0x0, 0x82c, R},
		{0x830, 0x340, 0x1830, 0x340, RX},
		{0xb70, 0x1d8, 0x2b70, 0x1d8, RW},
		{0xd48, 0x58, 0x3d48, 0x80, RW},
	};
	static const struct elf_load mold[] = {
		{0x0, 0x756, 0x0, 0x756, R},
		{0x760, 0x351, 0x1760, 0x351, RX},
		{0xab8, 0x220, 0x2ab8, 0x548, RW},
		{0xcd8, 0x50, 0x3cd8, 0x80, RW},
	};
	struct elf_map ro = {.start = BIAS, .end = BIAS + 0x1000, .pgoff = 0, .exec = false};
	uint64_t v = 1;

	(void)state;
	assert_int_equal(vaddr_at(lld, N(lld), false, BIAS + 0x1000, BIAS + 0x2000, 0), 0x1000);
	assert_int_equal(vaddr_at(mold, N(mold), false, BIAS + 0x1000, BIAS + 0x2000, 0), 0x1000);
	/* the read-only mapping of the same page is the first segment's */
	assert_int_equal(elf_layout_map_vaddr(lld, N(lld), false, &ro, &v), 0);
	assert_int_equal(v, 0);
}

/* rustc -O -g (lld): the same on a larger program, the shared page in the middle of the file */
static void test_lld_rust(void **state)
{
	static const struct elf_load s[] = {
		{0x0, 0x16a88, 0x0, 0x16a88, R},
		{0x16a90, 0x3f0b0, 0x17a90, 0x3f0b0, RX},
		{0x55b40, 0x2918, 0x57b40, 0x34c0, RW},
		{0x58458, 0x9c0, 0x5b458, 0xa8a, RW},
	};
	uint64_t v = vaddr_at(s, N(s), false, BIAS + 0x17000, BIAS + 0x57000, 0x16000);

	(void)state;
	assert_int_equal(v, 0x17000);
	/* the first instruction of the segment, at runtime BIAS + 0x17a90 */
	assert_int_equal(BIAS + 0x17a90 - (BIAS + 0x17000) + v, 0x17a90);
}

/* Non-PIE (ET_EXEC) lld: loaded at its link addresses */
static void test_lld_nopie(void **state)
{
	static const struct elf_load s[] = {
		{0x0, 0x77c, 0x200000, 0x77c, R},
		{0x780, 0x320, 0x201780, 0x320, RX},
		{0xaa0, 0x1a0, 0x202aa0, 0x1a0, RW},
		{0xc40, 0x50, 0x203c40, 0x88, RW},
	};

	(void)state;
	assert_int_equal(vaddr_at(s, N(s), true, 0x201000, 0x202000, 0), 0x201000);
}

/*
 * GNU ld -no-pie -Ttext=0x10000000: two executable segments (.init stays at 0x401000), far
 * apart; and a prelinked library (link addresses not 0) that is loaded elsewhere anyway.
 */
static void test_ttext_and_prelinked(void **state)
{
	static const struct elf_load tt[] = {
		{0x0, 0x670, 0x400000, 0x670, R},	{0x1000, 0x80, 0x401000, 0x80, RX},
		{0x2000, 0x295, 0x10000000, 0x295, RX}, {0x3000, 0x194, 0x10001000, 0x194, R},
		{0x3df8, 0x240, 0x10002df8, 0x260, RW},
	};
	static const struct elf_load pre[] = {
		{0x0, 0x5000, 0x3000000000, 0x5000, RX},
		{0x5e00, 0x300, 0x3000006e00, 0x400, RW},
	};

	(void)state;
	assert_int_equal(vaddr_at(tt, N(tt), true, 0x401000, 0x402000, 0x1000), 0x401000);
	assert_int_equal(vaddr_at(tt, N(tt), true, 0x10000000, 0x10001000, 0x2000), 0x10000000);
	assert_int_equal(vaddr_at(pre, N(pre), false, BIAS, BIAS + 0x5000, 0), 0x3000000000);
}

/*
 * Two executable segments with different vaddr - offset sharing a file page: each mapping is
 * the segment its length fits in; and a mapping that starts inside a segment (split off by
 * mprotect) keeps the segment's translation.
 */
static void test_several_exec(void **state)
{
	static const struct elf_load s[] = {
		{0x1000, 0x800, 0x1000, 0x800, RX},
		{0x1800, 0x1000, 0x3800, 0x1000, RX},
	};
	static const struct elf_load big[] = {
		{0x0, 0x600, 0x0, 0x600, R},
		{0x1000, 0x5000, 0x1000, 0x5000, RX},
	};

	(void)state;
	assert_int_equal(vaddr_at(s, N(s), false, BIAS + 0x1000, BIAS + 0x2000, 0x1000), 0x1000);
	assert_int_equal(vaddr_at(s, N(s), false, BIAS + 0x3000, BIAS + 0x5000, 0x1000), 0x3000);
	assert_int_equal(vaddr_at(big, N(big), false, BIAS + 0x3000, BIAS + 0x6000, 0x3000),
			 0x3000);
}

/* What no loader makes is not matched; bad arguments are refused. */
static void test_no_segment(void **state)
{
	static const struct elf_load s[] = {
		{0x0, 0x758, 0x0, 0x758, R},
		{0x1000, 0x33d, 0x1000, 0x33d, RX},
		{0x2000, 0, 0x5000, 0x1000, RW},    /* .bss only: nothing of the file */
		{0x3010, 0x100, 0x7000, 0x100, RX}, /* vaddr and offset disagree mod page */
	};
	struct elf_map m = {.start = BIAS, .end = BIAS + 0x1000, .pgoff = 0x2000, .exec = true};
	uint64_t v = 7;

	(void)state;
	assert_int_equal(elf_layout_map_vaddr(s, N(s), false, &m, &v), -ENOENT);
	m.pgoff = 0x3000;
	assert_int_equal(elf_layout_map_vaddr(s, N(s), false, &m, &v), -ENOENT);
	m.pgoff = 0x100000;
	assert_int_equal(elf_layout_map_vaddr(s, N(s), false, &m, &v), -ENOENT);
	assert_int_equal(v, 7);
	assert_int_equal(elf_layout_map_vaddr(s, 0, false, &m, &v), -ENOENT);
	assert_int_equal(elf_layout_map_vaddr(NULL, 1, false, &m, &v), -EINVAL);
	assert_int_equal(elf_layout_map_vaddr(s, N(s), false, NULL, &v), -EINVAL);
	assert_int_equal(elf_layout_map_vaddr(s, N(s), false, &m, NULL), -EINVAL);
	m.end = m.start - 1;
	assert_int_equal(elf_layout_map_vaddr(s, N(s), false, &m, &v), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gnu_ld),	     cmocka_unit_test(test_noseparate_code),
		cmocka_unit_test(test_lld_small),    cmocka_unit_test(test_lld_rust),
		cmocka_unit_test(test_lld_nopie),    cmocka_unit_test(test_ttext_and_prelinked),
		cmocka_unit_test(test_several_exec), cmocka_unit_test(test_no_segment),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
