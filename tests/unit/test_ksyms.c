// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include "cmocka_inc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/ksyms.h"

/* Text symbols (t T w W) in tests/data/kallsyms_basic.txt; the other ten lines are data. */
#define BASIC_TEXT_SYMS	     19
#define RESTRICTED_TEXT_SYMS 7

static struct ksyms *load_file(const char *name)
{
	FILE *f = open_data(name);
	struct ksyms *ks = ksyms__load(f);

	fclose(f);
	return ks;
}

static struct ksyms *load_string(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct ksyms *ks;

	assert_non_null(f);
	ks = ksyms__load(f);
	fclose(f);
	return ks;
}

static int setup_basic(void **state)
{
	*state = load_file("kallsyms_basic.txt");
	return *state ? 0 : -1;
}

static int teardown_basic(void **state)
{
	ksyms__free(*state);
	return 0;
}

/* Looks addr up and checks the symbol name, module (NULL for the kernel) and offset. */
static void check_lookup(const struct ksyms *ks, uint64_t addr, const char *name,
			 const char *module, uint64_t offset)
{
	uint64_t off = 0xbad;
	struct ksym sym = {.name = "(untouched)"};
	bool found = ksyms__lookup(ks, addr, &sym, &off);

	if (!name) {
		if (found)
			fail_msg("%#llx: got %s, want nothing", (unsigned long long)addr, sym.name);
		assert_true(off == 0xbad); /* untouched on a miss */
		assert_string_equal(sym.name, "(untouched)");
		return;
	}
	if (!found)
		fail_msg("%#llx: got nothing, want %s", (unsigned long long)addr, name);
	assert_string_equal(sym.name, name);
	if (module)
		assert_string_equal(sym.module, module);
	else
		assert_null(sym.module);
	if (off != offset)
		fail_msg("%#llx: offset %#llx, want %#llx", (unsigned long long)addr,
			 (unsigned long long)off, (unsigned long long)offset);
	assert_true(sym.addr == addr - offset);
}

static void test_basic_count(void **state)
{
	const struct ksyms *ks = *state;

	assert_int_equal(ksyms__count(ks), BASIC_TEXT_SYMS);
	assert_false(ksyms__restricted(ks));
}

static void test_lookup_exact_and_offset(void **state)
{
	const struct ksyms *ks = *state;

	check_lookup(ks, 0xffffffff81a3c2d0, "vfs_read", NULL, 0);
	check_lookup(ks, 0xffffffff81a3c2d5, "vfs_read", NULL, 5);
	check_lookup(ks, 0xffffffff81a3c4ef, "vfs_read", NULL, 0x21f);
	check_lookup(ks, 0xffffffff81a3c4f0, "vfs_write", NULL, 0);
	check_lookup(ks, 0xffffffff81001000, "x86_64_start_kernel", NULL, 0);
	check_lookup(ks, 0xffffffff81000fff, "startup_64", NULL, 0xfff);
	check_lookup(ks, 0xffffffff81c30000, "schedule_tail", NULL, 0);
	/* past the last kernel text symbol, the last one is still the answer */
	check_lookup(ks, 0xffffffff82a00000, "schedule_tail", NULL, 0xdd0000);
}

static void test_lookup_skips_data(void **state)
{
	const struct ksyms *ks = *state;

	/* vfs_read_cache (d) sits at this address; it must not be returned */
	check_lookup(ks, 0xffffffff81a3c300, "vfs_read", NULL, 0x30);
	/* ext4_sb_cache (b) in a module */
	check_lookup(ks, 0xffffffffc0a05000, "ext4_read_inode_bitmap", "ext4", 0x3e00);
	/* the A (percpu) symbols at 0 and 0x1a000 are not text */
	check_lookup(ks, 0x1a000, NULL, NULL, 0);
}

static void test_lookup_below_first(void **state)
{
	const struct ksyms *ks = *state;

	check_lookup(ks, 0, NULL, NULL, 0);
	check_lookup(ks, 0xffffffff80ffffff, NULL, NULL, 0);
	check_lookup(ks, 0xffffffff81000000 - 1, NULL, NULL, 0);
	/* offset may be NULL */
	assert_true(ksyms__lookup(ks, 0xffffffff81000000, NULL, NULL));
	assert_false(ksyms__lookup(ks, 0x1000, NULL, NULL));
}

static void test_lookup_modules(void **state)
{
	const struct ksyms *ks = *state;

	check_lookup(ks, 0xffffffffc0a01000, "ext4_iget", "ext4", 0);
	check_lookup(ks, 0xffffffffc0a011ff, "ext4_iget", "ext4", 0x1ff);
	check_lookup(ks, 0xffffffffc0a01234, "ext4_read_inode_bitmap", "ext4", 0x34);
	check_lookup(ks, 0xffffffffc0b00010, "xfs_buf_get", "xfs", 0x10);
	check_lookup(ks, 0xffffffffc0c00000, "bpf_prog_6deef7357e7b4530_sd_devices", "bpf", 0);
	check_lookup(ks, 0xffffffffc0d00042, "ftrace_trampoline", "__builtin__ftrace", 0x42);
	check_lookup(ks, UINT64_MAX, "ftrace_trampoline", "__builtin__ftrace",
		     UINT64_MAX - 0xffffffffc0d00000);
}

static void test_lookup_aliases(void **state)
{
	const struct ksyms *ks = *state;

	/* _stext, _text, startup_64 (all T): fewest leading underscores wins */
	check_lookup(ks, 0xffffffff81000000, "startup_64", NULL, 0);
	check_lookup(ks, 0xffffffff81000010, "startup_64", NULL, 0x10);
	/* __memcpy and memcpy (both T) */
	check_lookup(ks, 0xffffffff81b00010, "memcpy", NULL, 0);
	check_lookup(ks, 0xffffffff81b00020, "memcpy", NULL, 0x10);
	/* T beats t, even against an earlier name */
	check_lookup(ks, 0xffffffff81c00000, "zzz_global", NULL, 0);
	/* W beats t */
	check_lookup(ks, 0xffffffff81c10008, "arch_weak_fn", NULL, 8);
	/* w alone */
	check_lookup(ks, 0xffffffff81c20004, "weak_local_fn", NULL, 4);
}

/* The winner among aliases must not depend on the order of the input lines. */
static void test_aliases_order_independent(void **state)
{
	static const char *const orders[][4] = {
		{"ffffffff81000000 T _text\n", "ffffffff81000000 T startup_64\n",
		 "ffffffff81000000 t a_local\n", "ffffffff81000000 T _stext\n"},
		{"ffffffff81000000 T _stext\n", "ffffffff81000000 t a_local\n",
		 "ffffffff81000000 T startup_64\n", "ffffffff81000000 T _text\n"},
		{"ffffffff81000000 t a_local\n", "ffffffff81000000 T _stext\n",
		 "ffffffff81000000 T _text\n", "ffffffff81000000 T startup_64\n"},
	};
	static const char *const ties[][2] = {
		/* same binding and underscores: strcmp decides */
		{"ffffffff81000000 T beta\n", "ffffffff81000000 T alpha\n"},
		{"ffffffff81000000 T alpha\n", "ffffffff81000000 T beta\n"},
	};
	char text[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		struct ksyms *ks;

		snprintf(text, sizeof(text), "%s%s%s%s", orders[i][0], orders[i][1], orders[i][2],
			 orders[i][3]);
		ks = load_string(text);
		assert_non_null(ks);
		assert_int_equal(ksyms__count(ks), 4);
		check_lookup(ks, 0xffffffff81000004, "startup_64", NULL, 4);
		ksyms__free(ks);
	}
	for (i = 0; i < sizeof(ties) / sizeof(ties[0]); i++) {
		struct ksyms *ks;

		snprintf(text, sizeof(text), "%s%s", ties[i][0], ties[i][1]);
		ks = load_string(text);
		assert_non_null(ks);
		check_lookup(ks, 0xffffffff81000000, "alpha", NULL, 0);
		ksyms__free(ks);
	}
}

/* The whole fixture loaded in reverse line order gives the same answers. */
static void test_reversed_fixture(void **state)
{
	const struct ksyms *ks = *state;
	static const uint64_t probes[] = {
		0xffffffff81000000, 0xffffffff81b00010, 0xffffffff81c00000,
		0xffffffff81c10000, 0xffffffffc0a01000, 0xffffffff81a3c300,
	};
	char *lines[64], buf[256], *text;
	struct ksyms *rev;
	size_t n = 0, i, len = 0;
	FILE *f = open_data("kallsyms_basic.txt");

	while (n < 64 && fgets(buf, sizeof(buf), f)) {
		lines[n] = strdup(buf);
		assert_non_null(lines[n]);
		len += strlen(buf);
		n++;
	}
	fclose(f);
	text = calloc(1, len + 1);
	assert_non_null(text);
	for (i = n; i > 0; i--)
		strcat(text, lines[i - 1]);
	rev = load_string(text);
	assert_non_null(rev);
	assert_int_equal(ksyms__count(rev), BASIC_TEXT_SYMS);
	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		uint64_t o1, o2;
		struct ksym a, b;

		assert_true(ksyms__lookup(ks, probes[i], &a, &o1));
		assert_true(ksyms__lookup(rev, probes[i], &b, &o2));
		assert_string_equal(a.name, b.name);
		assert_true(o1 == o2);
	}
	ksyms__free(rev);
	free(text);
	for (i = 0; i < n; i++)
		free(lines[i]);
}

static void test_restricted(void **state)
{
	struct ksyms *ks = load_file("kallsyms_restricted.txt");

	(void)state;
	assert_non_null(ks);
	assert_true(ksyms__restricted(ks));
	assert_int_equal(ksyms__count(ks), RESTRICTED_TEXT_SYMS);
	check_lookup(ks, 0, NULL, NULL, 0);
	check_lookup(ks, 0xffffffff81a3c2d0, NULL, NULL, 0);
	check_lookup(ks, UINT64_MAX, NULL, NULL, 0);
	ksyms__free(ks);
}

static void test_partly_zero_is_not_restricted(void **state)
{
	/* percpu symbols are legitimately at 0 on an unrestricted system */
	struct ksyms *ks = load_string("0000000000000000 A fixed_percpu_data\n"
				       "0000000000000000 T zero_text\n"
				       "ffffffff81000000 T startup_64\n");

	(void)state;
	assert_non_null(ks);
	assert_false(ksyms__restricted(ks));
	assert_int_equal(ksyms__count(ks), 2);
	check_lookup(ks, 0x10, "zero_text", NULL, 0x10);
	ksyms__free(ks);
}

static void test_empty(void **state)
{
	struct ksyms *ks = load_string("");

	(void)state;
	assert_non_null(ks);
	assert_int_equal(ksyms__count(ks), 0);
	assert_false(ksyms__restricted(ks));
	check_lookup(ks, 0, NULL, NULL, 0);
	check_lookup(ks, 0xffffffff81000000, NULL, NULL, 0);
	ksyms__free(ks);

	/* only data symbols: loads, nothing to look up */
	ks = load_string("ffffffff82a00000 D init_task\n");
	assert_non_null(ks);
	assert_int_equal(ksyms__count(ks), 0);
	check_lookup(ks, 0xffffffff82a00000, NULL, NULL, 0);
	ksyms__free(ks);

	/* NULL table */
	assert_false(ksyms__lookup(NULL, 0, NULL, NULL));
	assert_int_equal(ksyms__count(NULL), 0);
	assert_false(ksyms__restricted(NULL));
	ksyms__free(NULL);
}

static void test_last_line_without_newline(void **state)
{
	struct ksyms *ks = load_string("ffffffff81000000 T startup_64\n"
				       "ffffffffc0a01000 t ext4_iget\t[ext4]");

	(void)state;
	assert_non_null(ks);
	assert_int_equal(ksyms__count(ks), 2);
	check_lookup(ks, 0xffffffffc0a01001, "ext4_iget", "ext4", 1);
	ksyms__free(ks);
}

/*
 * Names that end the one before them share its bytes in the table: each still reads whole,
 * whichever comes first, and a data symbol in between does not join them.
 */
static void test_shared_suffixes(void **state)
{
	struct ksyms *ks = load_string("ffffffff81000000 t __pfx_vfs_read\n"
				       "ffffffff81000010 T vfs_read\n"
				       "ffffffff81000100 T read\n"
				       "ffffffff81000200 T ad\n"
				       "ffffffff81000300 T vfs_write\n"
				       "ffffffff81000310 t __pfx_vfs_write\n"
				       "ffffffff81000400 T sys_open\n"
				       "ffffffff82000000 D open\n"
				       "ffffffff81000500 T open\n"
				       "ffffffffc0000000 t __pfx_m_init\t[mod]\n"
				       "ffffffffc0000010 t m_init\t[mod]\n");

	(void)state;
	assert_non_null(ks);
	assert_int_equal(ksyms__count(ks), 10);
	check_lookup(ks, 0xffffffff81000001, "__pfx_vfs_read", NULL, 1);
	check_lookup(ks, 0xffffffff81000012, "vfs_read", NULL, 2);
	check_lookup(ks, 0xffffffff81000100, "read", NULL, 0);
	check_lookup(ks, 0xffffffff81000203, "ad", NULL, 3);
	check_lookup(ks, 0xffffffff81000300, "vfs_write", NULL, 0);
	check_lookup(ks, 0xffffffff81000311, "__pfx_vfs_write", NULL, 1);
	check_lookup(ks, 0xffffffff81000400, "sys_open", NULL, 0);
	check_lookup(ks, 0xffffffff81000504, "open", NULL, 4);
	check_lookup(ks, 0xffffffffc0000000, "__pfx_m_init", "mod", 0);
	check_lookup(ks, 0xffffffffc0000011, "m_init", "mod", 1);
	ksyms__free(ks);
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"\n",
		"garbage\n",
		"ffffffff81000000\n",
		"ffffffff81000000 T\n",
		"ffffffff81000000 T \n",
		"ffffffff81000000 T  foo\n",
		"ffffffff81000000T foo\n",
		"ffffffff81000000  T foo\n",
		" ffffffff81000000 T foo\n",
		"0xffffffff81000000 T foo\n",
		"-ffffffff81000000 T foo\n",
		"ffffffff8100000g T foo\n",
		"1ffffffff81000000 T foo\n", /* 65 bits */
		"ffffffff81000000 1 foo\n",
		"ffffffff81000000 TT foo\n",
		"ffffffff81000000 T foo bar\n",
		"ffffffff81000000 T foo \n",
		"ffffffff81000000 T foo\t\n",
		"ffffffff81000000 T foo\text4\n",
		"ffffffff81000000 T foo [ext4]\n",
		"ffffffff81000000 T foo\t[ext4\n",
		"ffffffff81000000 T foo\t[]\n",
		"ffffffff81000000 T foo\t[ext4] \n",
		"ffffffff81000000 T foo\t[ext4]x\n",
		"ffffffff81000000 T foo\t[ex t4]\n",
		"ffffffff81000000 T foo\t[[ext4]]\n",
		"ffffffff81000000\tT foo\n",
		/* a bad line after good ones still fails the load */
		"ffffffff81000000 T ok\nffffffff81000010 T\n",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ksyms *ks;

		errno = 0;
		ks = load_string(bad[i]);
		if (ks) {
			ksyms__free(ks);
			fail_msg("line %zu \"%s\" was accepted", i, bad[i]);
		}
		if (errno != EINVAL)
			fail_msg("line %zu \"%s\": errno %d, want EINVAL", i, bad[i], errno);
	}
}

static void test_embedded_nul(void **state)
{
	static const char text[] = "ffffffff81000000 T foo\0bar\n";
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");
	struct ksyms *ks;

	(void)state;
	assert_non_null(f);
	errno = 0;
	ks = ksyms__load(f);
	fclose(f);
	assert_null(ks);
	assert_int_equal(errno, EINVAL);
}

/*
 * A table in address order, as kernels list it, of more lines than one read takes (so lines
 * cross the reads' boundaries), with aliases in an order that is not the one a lookup prefers:
 * only the runs of aliases are sorted then, and they must be.
 */
static void test_sorted_input_with_aliases(void **state)
{
	const size_t n = 100000; /* some 3.5 MB of text */
	FILE *f = tmpfile();
	struct ksyms *ks;
	size_t i;

	(void)state;
	assert_non_null(f);
	for (i = 0; i < n; i++) {
		unsigned long long addr = 0xffffffff81000000ull + i * 0x20;

		/* every 10th address has aliases; T first, then fewer underscores, then strcmp */
		if (i % 10 == 3) {
			fprintf(f, "%016llx t local_fn_%zu\n", addr, i);
			fprintf(f, "%016llx T __y_fn_%zu\n", addr, i);
			fprintf(f, "%016llx W weak_fn_%zu\n", addr, i);
			fprintf(f, "%016llx T __x64_sys_fn_%zu\n", addr, i);
		} else {
			fprintf(f, "%016llx T fn_%zu\n", addr, i);
		}
	}
	fprintf(f, "ffffffffc0000000 t m_local\t[mod]\nffffffffc0000000 T m_global\t[mod]\n");
	rewind(f);
	ks = ksyms__load(f);
	fclose(f);
	assert_non_null(ks);
	assert_int_equal(ksyms__count(ks), n + 3 * (n / 10) + 2);
	for (i = 0; i < n; i++) {
		uint64_t addr = 0xffffffff81000000ull + i * 0x20;
		char name[64];

		if (i % 10 == 3)
			snprintf(name, sizeof(name), "__x64_sys_fn_%zu", i);
		else
			snprintf(name, sizeof(name), "fn_%zu", i);
		check_lookup(ks, addr + 0x1f, name, NULL, 0x1f);
	}
	check_lookup(ks, 0xffffffffc0000004, "m_global", "mod", 4);
	ksyms__free(ks);
}

/*
 * As kernels list them: the image and modules in address order, then BPF programs and the like
 * in none, some below the modules, one at an address of the ordered part, one an alias there.
 */
static void test_ordered_then_not(void **state)
{
	struct ksyms *ks = load_string("ffffffff81000000 T _stext\n"
				       "ffffffff81000000 t startup_64\n"
				       "ffffffff81000100 T vfs_read\n"
				       "ffffffff81000200 T vfs_write\n"
				       "ffffffffc0100000 t ext4_iget\t[ext4]\n"
				       "ffffffffc0200000 t xfs_iget\t[xfs]\n"
				       "ffffffffc0300000 t bpf_prog_b\t[bpf]\n"
				       "ffffffffc0000000 t bpf_prog_a\t[bpf]\n"
				       "ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]\n"
				       "ffffffffc0100000 T ext4_iget_alias\t[bpf]\n"
				       "ffffffff81000100 t __pfx_z\n"
				       "ffffffff81000100 T aaa\n");

	(void)state;
	assert_non_null(ks);
	assert_int_equal(ksyms__count(ks), 12);
	check_lookup(ks, 0xffffffff81000001, "_stext", NULL, 1);
	check_lookup(ks, 0xffffffff81000101, "aaa", NULL, 1); /* T, no underscore, then bytes */
	check_lookup(ks, 0xffffffff81000201, "vfs_write", NULL, 1);
	check_lookup(ks, 0xffffffffc0000004, "bpf_prog_a", "bpf", 4);
	check_lookup(ks, 0xffffffffc0100004, "ext4_iget_alias", "bpf", 4);
	check_lookup(ks, 0xffffffffc0200004, "xfs_iget", "xfs", 4);
	check_lookup(ks, 0xffffffffc0201004, "ftrace_trampoline", "__builtin__ftrace", 4);
	check_lookup(ks, 0xffffffffc0300004, "bpf_prog_b", "bpf", 4);
	ksyms__free(ks);
}

/* A line longer than the reader takes (no kernel symbol is): malformed. */
static void test_line_too_long(void **state)
{
	const size_t len = 600 * 1024;
	char *name = malloc(len + 1);
	FILE *f = tmpfile();
	struct ksyms *ks;

	(void)state;
	assert_non_null(name);
	assert_non_null(f);
	memset(name, 'x', len);
	name[len] = '\0';
	fprintf(f, "ffffffff81000000 T ok\nffffffff81000010 T %s\nffffffff81000020 T ok2\n", name);
	rewind(f);
	errno = 0;
	ks = ksyms__load(f);
	fclose(f);
	free(name);
	assert_null(ks);
	assert_int_equal(errno, EINVAL);
}

/* Many symbols, shuffled, and one very long name: exercises growth of every buffer. */
static void test_large_table(void **state)
{
	const size_t n = 20000, long_len = 100 * 1024;
	char *long_name = malloc(long_len + 1);
	size_t *order = malloc(n * sizeof(*order));
	FILE *f = tmpfile();
	struct ksyms *ks;
	uint32_t seed = 12345;
	size_t i;

	(void)state;
	assert_non_null(long_name);
	assert_non_null(order);
	assert_non_null(f);
	memset(long_name, 'x', long_len);
	long_name[long_len] = '\0';
	for (i = 0; i < n; i++)
		order[i] = i;
	/* Fisher-Yates with a fixed LCG, so every run sees the same order */
	for (i = n - 1; i > 0; i--) {
		size_t j, t = order[i];

		seed = seed * 1103515245u + 12345u;
		j = (seed >> 8) % (i + 1);

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++) {
		uint64_t addr = 0xffffffff81000000 + order[i] * 0x40;

		if (order[i] % 1000 == 999)
			fprintf(f, "%016llx t mod_fn_%zu\t[mod%zu]\n", (unsigned long long)addr,
				order[i], order[i] / 5000);
		else
			fprintf(f, "%016llx T fn_%zu\n", (unsigned long long)addr, order[i]);
		if (i == n / 2)
			fprintf(f, "ffffffff80000000 T %s\n", long_name);
	}
	rewind(f);
	ks = ksyms__load(f);
	fclose(f);
	assert_non_null(ks);
	assert_int_equal(ksyms__count(ks), n + 1);

	check_lookup(ks, 0xffffffff80000001, long_name, NULL, 1);
	for (i = 0; i < n; i += 7) {
		uint64_t addr = 0xffffffff81000000 + i * 0x40 + 0x3f;
		char name[64], mod[32];

		if (i % 1000 == 999) {
			snprintf(name, sizeof(name), "mod_fn_%zu", i);
			snprintf(mod, sizeof(mod), "mod%zu", i / 5000);
			check_lookup(ks, addr, name, mod, 0x3f);
		} else {
			snprintf(name, sizeof(name), "fn_%zu", i);
			check_lookup(ks, addr, name, NULL, 0x3f);
		}
	}
	ksyms__free(ks);
	free(order);
	free(long_name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_basic_count, setup_basic, teardown_basic),
		cmocka_unit_test_setup_teardown(test_lookup_exact_and_offset, setup_basic,
						teardown_basic),
		cmocka_unit_test_setup_teardown(test_lookup_skips_data, setup_basic,
						teardown_basic),
		cmocka_unit_test_setup_teardown(test_lookup_below_first, setup_basic,
						teardown_basic),
		cmocka_unit_test_setup_teardown(test_lookup_modules, setup_basic, teardown_basic),
		cmocka_unit_test_setup_teardown(test_lookup_aliases, setup_basic, teardown_basic),
		cmocka_unit_test(test_aliases_order_independent),
		cmocka_unit_test_setup_teardown(test_reversed_fixture, setup_basic, teardown_basic),
		cmocka_unit_test(test_restricted),
		cmocka_unit_test(test_partly_zero_is_not_restricted),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_last_line_without_newline),
		cmocka_unit_test(test_shared_suffixes),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_embedded_nul),
		cmocka_unit_test(test_large_table),
		cmocka_unit_test(test_sorted_input_with_aliases),
		cmocka_unit_test(test_line_too_long),
		cmocka_unit_test(test_ordered_then_not),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
