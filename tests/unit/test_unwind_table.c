// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_table against readelf: for every CFA row readelf --debug-dump=frames-interp prints
 * for an object, the table's row at the row's first and last byte must say the same (CFA
 * rule, saved rbp, return address). readelf's output is parsed here, independently of the
 * code under test. Fixtures: -O2 with and without frame pointers, an IBT PLT, .debug_frame
 * only, non-PIE; system objects: libc, ld.so, python3.11. Plus the table's own invariants
 * (sorted, unique pcs, no redundant row, one end row per gap), the PLT rows, glibc's
 * __restore_rt and a CFA offset beyond 32 KiB.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmocka_inc.h"
#include "unwind/unwind_table.h"

#define LIBC_PATH   "/lib/x86_64-linux-gnu/libc.so.6"
#define LDSO_PATH   "/lib64/ld-linux-x86-64.so.2"
#define PYTHON_PATH "/usr/bin/python3.11"

/* ---- helpers ------------------------------------------------------------------------------ */

static struct unwind_table *open_table(const char *path)
{
	struct unwind_table *ut;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	ut = unwind_table__from_fd(fd);
	if (!ut)
		fail_msg("%s: %s", path, strerror(errno));
	/* the fd is the caller's: still open afterwards */
	assert_int_not_equal(fcntl(fd, F_GETFD), -1);
	close(fd);
	return ut;
}

/* Address of a symbol as nm prints it; 0 when absent. */
static uint64_t nm_addr(const char *path, const char *name)
{
	unsigned long long a;
	char line[512], sym[256], type;
	uint64_t addr = 0;
	FILE *f = tool_output("nm '%s' 2>/dev/null", path);

	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && !strcmp(sym, name))
			addr = a;
	pclose(f);
	return addr;
}

/* Address of a section from readelf -SW; 0 when absent. */
static uint64_t section_addr(const char *path, const char *name)
{
	unsigned long long a;
	char line[512], sec[64], type[64];
	uint64_t addr = 0;
	FILE *f = tool_output("readelf -SW '%s'", path);

	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ']');

		if (p && sscanf(p + 1, " %63s %63s %llx", sec, type, &a) == 3 && !strcmp(sec, name))
			addr = a;
	}
	tool_done(f);
	return addr;
}

struct seg {
	uint64_t lo, hi;
};

/* Executable PT_LOAD ranges of readelf -lW. */
static size_t exec_segments(const char *path, struct seg *segs, size_t max)
{
	unsigned long long off, va, pa, fs, ms;
	char line[512], flags[16];
	size_t n = 0;
	FILE *f = tool_output("readelf -lW '%s'", path);

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " LOAD 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx %15[RWE ]", &off, &va,
			   &pa, &fs, &ms, flags) != 6 ||
		    !strchr(flags, 'E'))
			continue;
		assert_true(n < max);
		segs[n++] = (struct seg){va, va + ms};
	}
	tool_done(f);
	assert_true(n > 0);
	return n;
}

/* ---- readelf --debug-dump=frames-interp --------------------------------------------------- */

struct re_row {
	uint64_t loc;
	char cfa[32];
	char rbp[16];
	char ra[16];
};

struct re_cie {
	unsigned int off;
	char aug[16];
	struct re_row init;
};

struct re_fde {
	uint64_t lo, hi;
	unsigned int cie;
	size_t first, n; /* rows[first, first + n) */
	bool skip;	 /* empty, outside executable code, or overlapping an earlier FDE */
};

struct re_cfi {
	struct re_row *rows;
	size_t nr_rows, cap_rows;
	struct re_cie *cies;
	size_t nr_cies, cap_cies;
	struct re_fde *fdes;
	size_t nr_fdes, cap_fdes;
};

#define GROW(arr, nr, cap)                                              \
	do {                                                            \
		if ((nr) == (cap)) {                                    \
			(cap) = (cap) ? 2 * (cap) : 64;                 \
			(arr) = realloc((arr), (cap) * sizeof(*(arr))); \
			assert_non_null(arr);                           \
		}                                                       \
	} while (0)

static const struct re_cie *re_find_cie(const struct re_cfi *c, unsigned int off)
{
	for (size_t i = 0; i < c->nr_cies; i++)
		if (c->cies[i].off == off)
			return &c->cies[i];
	fail_msg("readelf: no CIE at %#x", off);
	abort();
}

static int cmp_re_fde(const void *x, const void *y)
{
	const struct re_fde *a = x, *b = y;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->hi > b->hi ? -1 : a->hi < b->hi;
}

/*
 * The CIEs, FDEs and rows of one section (".eh_frame" or ".debug_frame"). An FDE without
 * rows (nothing but nops) has its CIE's initial row. FDEs are sorted by start and marked
 * skip as the table builder must skip them.
 */
static void readelf_cfi(const char *path, const char *section, struct re_cfi *c)
{
	enum { NONE, CIE, FDE } cur = NONE;
	int rbp_col = -1, ra_col = -1;
	bool in = false, header = false;
	char line[1024], kind[16], *tok[64], *save;
	unsigned long long len, lo, hi;
	unsigned int off, id, cie;
	struct seg segs[16];
	size_t nsegs = exec_segments(path, segs, 16);
	uint64_t end = 0;
	FILE *f;

	memset(c, 0, sizeof(*c));
	f = tool_output("readelf --debug-dump=no-follow-links --debug-dump=frames-interp '%s'",
			path);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Contents of the ", 16)) {
			in = !strncmp(line + 16, section, strlen(section)) &&
			     line[16 + strlen(section)] == ' ';
			cur = NONE;
			continue;
		}
		if (!in)
			continue;
		if (sscanf(line, "%x %llx %x %15s", &off, &len, &id, kind) == 4 &&
		    !strcmp(kind, "CIE")) {
			char *q = strchr(line, '"');

			GROW(c->cies, c->nr_cies, c->cap_cies);
			memset(&c->cies[c->nr_cies], 0, sizeof(c->cies[0]));
			c->cies[c->nr_cies].off = off;
			if (q)
				sscanf(q + 1, "%15[^\"]", c->cies[c->nr_cies].aug);
			c->nr_cies++;
			cur = CIE;
			header = false;
			continue;
		}
		if (sscanf(line, "%x %llx %x %15s cie=%x pc=%llx..%llx", &off, &len, &id, kind,
			   &cie, &lo, &hi) == 7 &&
		    !strcmp(kind, "FDE")) {
			GROW(c->fdes, c->nr_fdes, c->cap_fdes);
			c->fdes[c->nr_fdes++] = (struct re_fde){lo, hi, cie, c->nr_rows, 0, false};
			cur = FDE;
			header = false;
			continue;
		}
		if (strstr(line, "ZERO terminator")) {
			cur = NONE;
			continue;
		}
		if (cur == NONE)
			continue;
		size_t nt = 0;

		/* a register rule reads "r10 (r10)": the name in parentheses is not a column */
		for (char *t = strtok_r(line, " \t\n", &save); t && nt < 64;
		     t = strtok_r(NULL, " \t\n", &save))
			if (t[0] != '(')
				tok[nt++] = t;
		if (nt >= 2 && !strcmp(tok[0], "LOC") && !strcmp(tok[1], "CFA")) {
			rbp_col = ra_col = -1;
			for (size_t i = 2; i < nt; i++) {
				if (!strcmp(tok[i], "rbp"))
					rbp_col = (int)i;
				if (!strcmp(tok[i], "ra"))
					ra_col = (int)i;
			}
			header = true;
			continue;
		}
		if (!header || nt < 2 || !isxdigit((unsigned char)tok[0][0]))
			continue;
		struct re_row r = {strtoull(tok[0], NULL, 16), "", "u", "u"};

		snprintf(r.cfa, sizeof(r.cfa), "%s", tok[1]);
		if (rbp_col > 0 && (size_t)rbp_col < nt)
			snprintf(r.rbp, sizeof(r.rbp), "%s", tok[rbp_col]);
		if (ra_col > 0 && (size_t)ra_col < nt)
			snprintf(r.ra, sizeof(r.ra), "%s", tok[ra_col]);
		if (cur == CIE) {
			c->cies[c->nr_cies - 1].init = r;
		} else {
			GROW(c->rows, c->nr_rows, c->cap_rows);
			c->rows[c->nr_rows++] = r;
			c->fdes[c->nr_fdes - 1].n++;
		}
	}
	tool_done(f);
	assert_true(c->nr_fdes > 0);

	/* FDEs of nops: the CIE's row (appended: rows of an FDE stay contiguous) */
	for (size_t i = 0; i < c->nr_fdes; i++) {
		struct re_fde *fd = &c->fdes[i];

		if (fd->n)
			continue;
		GROW(c->rows, c->nr_rows, c->cap_rows);
		c->rows[c->nr_rows] = re_find_cie(c, fd->cie)->init;
		c->rows[c->nr_rows].loc = fd->lo;
		fd->first = c->nr_rows++;
		fd->n = 1;
	}
	qsort(c->fdes, c->nr_fdes, sizeof(*c->fdes), cmp_re_fde);
	for (size_t i = 0; i < c->nr_fdes; i++) {
		struct re_fde *fd = &c->fdes[i];
		bool exec = false;

		for (size_t s = 0; s < nsegs; s++)
			exec |= fd->lo >= segs[s].lo && fd->lo < segs[s].hi;
		fd->skip = fd->hi <= fd->lo || !exec || fd->lo < end;
		if (!fd->skip)
			end = fd->hi;
	}
}

static void re_free(struct re_cfi *c)
{
	free(c->rows);
	free(c->cies);
	free(c->fdes);
}

/* ---- what readelf's row says, in table terms ---------------------------------------------- */

static bool strict_int(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return !errno && end != s && !*end;
}

/* Does row r agree with readelf's row e (of an FDE whose CIE has augmentation aug)? */
static bool agrees(const struct cp_unwind_row *r, const struct re_row *e, const char *aug)
{
	long off;

	if (!strcmp(e->ra, "u"))
		return r->cfa_type == CP_CFA_END_STACK;
	if (strchr(aug, 'S'))
		return r->cfa_type == CP_CFA_SIGNAL;
	if (!strcmp(e->cfa, "exp")) {
		if (r->cfa_type == CP_CFA_UNSUPPORTED)
			return r->reason == CP_UNW_CFA_EXPR;
		if (r->cfa_type != CP_CFA_PLT1 && r->cfa_type != CP_CFA_PLT2)
			return false;
	} else if (!strncmp(e->cfa, "rsp", 3) || !strncmp(e->cfa, "rbp", 3)) {
		if (!strict_int(e->cfa + 3, &off))
			return false;
		if (r->cfa_type != (e->cfa[1] == 's' ? CP_CFA_RSP : CP_CFA_RBP) ||
		    r->cfa_off != off)
			return false;
	} else {
		return r->cfa_type == CP_CFA_UNSUPPORTED && r->reason == CP_UNW_CFA_REG;
	}
	if (strcmp(e->ra, "c-8"))
		return false; /* a supported CFA with RA elsewhere must have been refused */
	if (!strcmp(e->rbp, "u") || !strcmp(e->rbp, "s"))
		return r->rbp_type == CP_RBP_UNCHANGED && r->reason == CP_UNW_OK;
	if (e->rbp[0] == 'c' && strict_int(e->rbp + 1, &off))
		return r->rbp_type == CP_RBP_CFA_OFF && r->rbp_off == off;
	return r->rbp_type == CP_RBP_UNSUPPORTED && r->reason == CP_UNW_RBP;
}

/* RA not at CFA-8 shows up as an unsupported row rather than as agreement above. */
static bool agrees_ra(const struct cp_unwind_row *r, const struct re_row *e, const char *aug)
{
	if (strcmp(e->ra, "u") && strcmp(e->ra, "c-8") && !strchr(aug, 'S') &&
	    (!strncmp(e->cfa, "rsp", 3) || !strncmp(e->cfa, "rbp", 3) || !strcmp(e->cfa, "exp")))
		return r->cfa_type == CP_CFA_UNSUPPORTED && r->reason == CP_UNW_RA;
	return agrees(r, e, aug);
}

static void describe(const struct cp_unwind_row *r, char *buf, size_t len)
{
	if (!r) {
		snprintf(buf, len, "(no row)");
		return;
	}
	snprintf(buf, len, "%s%+d rbp type %u %+d reason %s", unwind_table_cfa_name(r->cfa_type),
		 r->cfa_off, r->rbp_type, r->rbp_off, unwind_table_reason_name(r->reason));
}

struct agreement {
	size_t fdes, pcs, agreed;
};

/* Every readelf row, at its first and its last byte. */
static void check_agreement(const struct unwind_table *ut, const struct re_cfi *c,
			    struct agreement *a)
{
	char got[128];
	size_t shown = 0;

	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < c->nr_fdes; i++) {
		const struct re_fde *fd = &c->fdes[i];
		const char *aug = re_find_cie(c, fd->cie)->aug;

		if (fd->skip)
			continue;
		a->fdes++;
		for (size_t k = 0; k < fd->n; k++) {
			const struct re_row *e = &c->rows[fd->first + k];
			uint64_t next = k + 1 < fd->n ? c->rows[fd->first + k + 1].loc : fd->hi;
			uint64_t pcs[2];

			if (next > fd->hi)
				next = fd->hi;
			if (e->loc >= next || e->loc < fd->lo)
				continue; /* empty row: a later one at the same pc wins */
			pcs[0] = e->loc;
			pcs[1] = next - 1;
			for (int j = 0; j < 2; j++) {
				const struct cp_unwind_row *r = unwind_table__lookup(ut, pcs[j]);

				a->pcs++;
				if (r && agrees_ra(r, e, aug)) {
					a->agreed++;
					continue;
				}
				describe(r, got, sizeof(got));
				if (shown++ < 10)
					print_message("mismatch at %#lx: readelf %s rbp %s ra %s, "
						      "table %s\n",
						      (unsigned long)pcs[j], e->cfa, e->rbp, e->ra,
						      got);
			}
		}
	}
}

/* Sorted, unique pcs, no redundant row, fields in range, one END_FUNC per gap and at the end. */
static void check_invariants(const struct unwind_table *ut, const struct re_cfi *c)
{
	const struct cp_unwind_row *rows;
	struct unwind_table_stats st;
	size_t n, gaps = 0, kept = 0;
	uint64_t end = 0;

	rows = unwind_table__rows(ut, &n);
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		const struct cp_unwind_row *r = &rows[i];

		assert_true(r->cfa_type <= CP_CFA_SIGNAL);
		assert_true(r->rbp_type <= CP_RBP_UNSUPPORTED);
		assert_true(r->reason < CP_UNW_MAX);
		assert_int_equal(r->pad, 0);
		/* a reason exactly when something is unsupported */
		if (r->cfa_type == CP_CFA_UNSUPPORTED)
			assert_true(r->reason != CP_UNW_OK && r->reason != CP_UNW_RBP);
		else if (r->rbp_type == CP_RBP_UNSUPPORTED)
			assert_true(r->reason == CP_UNW_RBP || r->reason == CP_UNW_RANGE);
		else
			assert_int_equal(r->reason, CP_UNW_OK);
		if (!i)
			continue;
		assert_true(rows[i - 1].pc < r->pc);
		assert_false(rows[i - 1].cfa_type == r->cfa_type &&
			     rows[i - 1].rbp_type == r->rbp_type &&
			     rows[i - 1].cfa_off == r->cfa_off &&
			     rows[i - 1].rbp_off == r->rbp_off && rows[i - 1].reason == r->reason);
	}
	assert_int_equal(rows[n - 1].cfa_type, CP_CFA_END_FUNC);

	/* from readelf's ranges: where a function ends without another starting there */
	for (size_t i = 0; i < c->nr_fdes; i++) {
		const struct re_fde *fd = &c->fdes[i];
		const struct cp_unwind_row *r;

		if (fd->skip)
			continue;
		if (kept++ && fd->lo > end)
			gaps++;
		end = fd->hi;
		/* covered from its first byte (its first row may equal the previous function's) */
		r = unwind_table__lookup(ut, fd->lo);
		assert_non_null(r);
		assert_int_not_equal(r->cfa_type, CP_CFA_END_FUNC);
		r = unwind_table__lookup(ut, fd->hi - 1);
		assert_int_not_equal(r->cfa_type, CP_CFA_END_FUNC);
		r = unwind_table__lookup(ut, fd->hi);
		if (i + 1 == c->nr_fdes || c->fdes[i + 1].lo != fd->hi)
			assert_int_equal(r->cfa_type, CP_CFA_END_FUNC);
	}
	unwind_table__stats(ut, &st);
	assert_int_equal(st.end_func, gaps + 1);
	assert_int_equal(st.fdes, kept);
	assert_int_equal(st.rows, n);
	assert_true(st.raw_rows >= n - st.end_func);
}

/* Invariants and agreement with readelf for one object; the table is returned for more. */
static struct unwind_table *check_object(const char *path, const char *section, struct re_cfi *c)
{
	struct unwind_table *ut = open_table(path);
	struct unwind_table_stats st;
	struct agreement a;

	readelf_cfi(path, section, c);
	check_invariants(ut, c);
	check_agreement(ut, c, &a);
	unwind_table__stats(ut, &st);
	print_message("%s: %zu rows, %zu FDEs, readelf agrees at %zu/%zu PCs, built in %.2f ms\n",
		      path, st.rows, a.fdes, a.agreed, a.pcs, st.build_ns / 1e6);
	assert_int_equal(st.debug_frame, !strcmp(section, ".debug_frame"));
	assert_true(a.pcs > 0);
	assert_int_equal(a.agreed, a.pcs);
	return ut;
}

static const struct cp_unwind_row *lookup_sym(const struct unwind_table *ut, const char *path,
					      const char *sym, uint64_t off)
{
	uint64_t addr = nm_addr(path, sym);

	if (!addr)
		fail_msg("%s: no symbol %s", path, sym);
	return unwind_table__lookup(ut, addr + off);
}

/* The PLT: PLT0 pushes twice on rsp, then the expression rows; readelf -wf names litN. */
static void check_plt(const struct unwind_table *ut, const char *path, int type)
{
	uint64_t plt = section_addr(path, ".plt");
	const struct cp_unwind_row *r;
	char line[512], *p;
	int lit = -1;
	FILE *f;

	assert_true(plt != 0);
	f = tool_output("readelf --debug-dump=no-follow-links --debug-dump=frames '%s'", path);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "DW_CFA_def_cfa_expression") && strstr(line, "DW_OP_breg16") &&
		    (p = strstr(line, "DW_OP_and; DW_OP_lit")))
			lit = atoi(p + strlen("DW_OP_and; DW_OP_lit"));
	tool_done(f);
	assert_true(lit > 0);
	r = unwind_table__lookup(ut, plt);
	assert_int_equal(r->cfa_type, CP_CFA_RSP);
	assert_int_equal(r->cfa_off, 16);
	/* the first PLT entry after PLT0, and its last byte */
	r = unwind_table__lookup(ut, plt + 16);
	assert_int_equal(r->cfa_type, type);
	assert_int_equal(r->cfa_off, lit);
	assert_ptr_equal(unwind_table__lookup(ut, plt + 31), r);
}

/* ---- tests -------------------------------------------------------------------------------- */

static void test_nofp(void **state)
{
	char path[PATH_MAX];
	struct re_cfi c;
	struct unwind_table *ut;
	const struct cp_unwind_row *r, *rows;
	bool big = false, rbp_cfa = false;
	uint64_t lo, hi;
	size_t n;

	(void)state;
	fixture(path, sizeof(path), "unw_nofp");
	ut = check_object(path, ".eh_frame", &c);
	check_plt(ut, path, CP_CFA_PLT1);

	/* _start: return address undefined, the outermost frame */
	r = lookup_sym(ut, path, "_start", 0);
	assert_int_equal(r->cfa_type, CP_CFA_END_STACK);

	/* cp_unw_big's 40000-byte array: an rsp offset a 16-bit field would wrap */
	lo = nm_addr(path, "cp_unw_big");
	hi = nm_addr(path, "cp_unw_recurse");
	rows = unwind_table__rows(ut, &n);
	for (size_t i = 0; i < n; i++) {
		uint64_t pc = unwind_table__base(ut) + rows[i].pc;

		if (pc >= lo && pc < hi && rows[i].cfa_type == CP_CFA_RSP &&
		    rows[i].cfa_off > 32768)
			big = true;
	}
	assert_true(big);

	/* alloca: the CFA moves to rbp even without frame pointers elsewhere */
	lo = nm_addr(path, "cp_unw_alloca");
	for (uint64_t pc = lo; pc < lo + 64; pc++) {
		r = unwind_table__lookup(ut, pc);
		rbp_cfa |= r->cfa_type == CP_CFA_RBP && r->cfa_off == 16;
	}
	assert_true(rbp_cfa);
	unwind_table__free(ut);
	re_free(&c);
}

static void test_fp(void **state)
{
	char path[PATH_MAX];
	struct re_cfi c;
	struct unwind_table *ut;
	const struct cp_unwind_row *r;
	bool framed = false;
	uint64_t lo;

	(void)state;
	fixture(path, sizeof(path), "unw_fp");
	ut = check_object(path, ".eh_frame", &c);
	check_plt(ut, path, CP_CFA_PLT1);
	/* after push rbp; mov rsp,rbp: CFA = rbp + 16, caller's rbp at CFA - 16 */
	lo = nm_addr(path, "cp_unw_recurse");
	for (uint64_t pc = lo; pc < lo + 32; pc++) {
		r = unwind_table__lookup(ut, pc);
		framed |= r->cfa_type == CP_CFA_RBP && r->cfa_off == 16 &&
			  r->rbp_type == CP_RBP_CFA_OFF && r->rbp_off == -16;
	}
	assert_true(framed);
	unwind_table__free(ut);
	re_free(&c);
}

static void test_ibt_plt(void **state)
{
	char path[PATH_MAX];
	struct re_cfi c;
	struct unwind_table *ut;

	(void)state;
	fixture(path, sizeof(path), "unw_ibt");
	ut = check_object(path, ".eh_frame", &c);
	check_plt(ut, path, CP_CFA_PLT2);
	unwind_table__free(ut);
	re_free(&c);
}

static void test_debug_frame(void **state)
{
	char path[PATH_MAX];
	struct re_cfi c;
	struct unwind_table *ut;
	const struct cp_unwind_row *r;

	(void)state;
	fixture(path, sizeof(path), "unw_dbgframe");
	assert_int_equal(section_addr(path, ".eh_frame"), 0);
	ut = check_object(path, ".debug_frame", &c);
	r = lookup_sym(ut, path, "cp_unw_leaf", 0);
	assert_int_equal(r->cfa_type, CP_CFA_RSP);
	assert_int_equal(r->cfa_off, 8);
	unwind_table__free(ut);
	re_free(&c);
}

/* ET_EXEC: rows are relative to the first PT_LOAD, lookups take file vaddrs */
static void test_nopie(void **state)
{
	char path[PATH_MAX];
	struct re_cfi c;
	struct unwind_table *ut;

	(void)state;
	fixture(path, sizeof(path), "fix_nopie");
	ut = check_object(path, ".eh_frame", &c);
	assert_int_equal(unwind_table__base(ut), 0x400000);
	assert_null(unwind_table__lookup(ut, 0x1000));
	assert_null(unwind_table__lookup(ut, 0x400000)); /* before the first function */
	unwind_table__free(ut);
	re_free(&c);
}

static void test_libc(void **state)
{
	struct re_cfi c;
	struct unwind_table *ut;
	struct unwind_table_stats st;
	const struct re_fde *sig = NULL;
	const struct cp_unwind_row *r;
	char line[512];
	long cfa = -1, rbp = -1;
	bool mov = false, sys = false, in_fde = false;
	FILE *f;

	(void)state;
	ut = check_object(LIBC_PATH, ".eh_frame", &c);
	check_plt(ut, LIBC_PATH, CP_CFA_PLT1);

	/* __restore_rt: the one FDE whose CIE has the S augmentation */
	for (size_t i = 0; i < c.nr_fdes; i++) {
		if (!strchr(re_find_cie(&c, c.fdes[i].cie)->aug, 'S'))
			continue;
		assert_null(sig);
		sig = &c.fdes[i];
	}
	assert_non_null(sig);
	/* its expressions, as readelf decodes them */
	f = tool_output("readelf --debug-dump=no-follow-links --debug-dump=frames '" LIBC_PATH "'");
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		char *p;

		if (strstr(line, " FDE ")) {
			p = strstr(line, "pc=");
			in_fde = p && sscanf(p, "pc=%llx..%llx", &lo, &hi) == 2 && lo == sig->lo;
			continue;
		}
		if (!in_fde)
			continue;
		if ((p = strstr(line, "DW_CFA_def_cfa_expression (DW_OP_breg7 (rsp): ")))
			cfa = atol(p + strlen("DW_CFA_def_cfa_expression (DW_OP_breg7 (rsp): "));
		if (strstr(line, "DW_CFA_expression: r6 (rbp) (DW_OP_breg7 (rsp): "))
			rbp = atol(strstr(line, "(rsp): ") + 7);
	}
	tool_done(f);
	assert_true(cfa > 0 && rbp > 0);
	/* the FDE starts one byte early: a return-address lookup (pc - 1) still lands in it */
	for (uint64_t pc = sig->lo; pc < sig->hi; pc++) {
		r = unwind_table__lookup(ut, pc);
		assert_int_equal(r->cfa_type, CP_CFA_SIGNAL);
		assert_int_equal(r->cfa_off, cfa);
		assert_int_equal(r->rbp_off, rbp);
	}
	/* and it is the rt_sigreturn trampoline: mov $15, %rax; syscall */
	f = tool_output("objdump -d --start-address=%#llx --stop-address=%#llx '" LIBC_PATH "'",
			(unsigned long long)sig->lo + 1, (unsigned long long)sig->hi);
	while (fgets(line, sizeof(line), f)) {
		mov |= strstr(line, "mov    $0xf,%rax") != NULL;
		sys |= strstr(line, "syscall") != NULL;
	}
	tool_done(f);
	assert_true(mov && sys);

	unwind_table__stats(ut, &st);
	assert_int_equal(st.signal, 1);
	assert_true(st.end_stack >= 1); /* clone / thread start: RA undefined */
	/* libc has a few hand-written functions with CFA on other registers: counted */
	assert_true(st.unsupported[CP_UNW_CFA_REG] > 0);
	unwind_table__free(ut);
	re_free(&c);
}

static void test_ld_so(void **state)
{
	struct re_cfi c;
	struct unwind_table *ut;

	(void)state;
	ut = check_object(LDSO_PATH, ".eh_frame", &c);
	unwind_table__free(ut);
	re_free(&c);
}

static void test_python(void **state)
{
	struct re_cfi c;
	struct unwind_table *ut;

	(void)state;
	if (access(PYTHON_PATH, R_OK)) {
		cp_skip(PYTHON_PATH " not installed");
	}
	ut = check_object(PYTHON_PATH, ".eh_frame", &c);
	check_plt(ut, PYTHON_PATH, CP_CFA_PLT1);
	unwind_table__free(ut);
	re_free(&c);
}

static void expect_error(const char *path, int err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	errno = 0;
	assert_null(unwind_table__from_fd(fd));
	assert_int_equal(errno, err);
	close(fd);
}

static void test_take_rows(void **state)
{
	const struct cp_unwind_row *rows;
	struct cp_unwind_row *taken;
	struct unwind_table *ut;
	char path[PATH_MAX];
	size_t n, m;

	(void)state;
	fixture(path, sizeof(path), "unw_nofp");
	ut = open_table(path);
	rows = unwind_table__rows(ut, &n);
	assert_true(n > 0);
	/* the same rows, now the caller's; the table is left without any */
	taken = unwind_table__take_rows(ut, &m);
	assert_ptr_equal(taken, rows);
	assert_int_equal(m, n);
	unwind_table__rows(ut, &m);
	assert_int_equal(m, 0);
	assert_null(unwind_table__take_rows(ut, &m));
	assert_int_equal(m, 0);
	unwind_table__free(ut);
	free(taken);
}

/* A sink of streamed rows: their copy, the calls, and a failure at a call on demand. */
struct stream {
	struct cp_unwind_row *rows;
	size_t n, cap, calls, fail_at;
};

static int stream_rows(void *ctx, const struct cp_unwind_row *rows, size_t n)
{
	struct stream *s = ctx;

	assert_true(n > 0);
	if (++s->calls == s->fail_at)
		return -EIO;
	if (s->n + n > s->cap) {
		s->cap = 2 * (s->n + n);
		s->rows = realloc(s->rows, s->cap * sizeof(*s->rows));
		assert_non_null(s->rows);
	}
	memcpy(s->rows + s->n, rows, n * sizeof(*rows));
	s->n += n;
	return 0;
}

/*
 * Streamed (unwind_table__stream_fd), libc's table and a fixture's come in batches (of about
 * 1 row: at each FDE's start; and of 1000) that together are the rows and the stats of the
 * table built whole; the table keeps none. An error of the sink fails the build with it.
 */
static void check_stream(const char *path, size_t batch)
{
	struct unwind_table_stats whole, st;
	const struct cp_unwind_row *rows;
	struct unwind_table *ut, *us;
	struct stream s = {0};
	size_t n, m;
	int fd;

	ut = open_table(path);
	rows = unwind_table__rows(ut, &n);
	unwind_table__stats(ut, &whole);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	us = unwind_table__stream_fd(fd, batch, stream_rows, &s);
	assert_non_null(us);
	assert_true(s.calls > 1 && s.calls <= n / batch + 1);
	assert_int_equal(s.n, n);
	assert_memory_equal(s.rows, rows, n * sizeof(*rows));
	unwind_table__rows(us, &m);
	assert_int_equal(m, 0);
	assert_int_equal(unwind_table__base(us), unwind_table__base(ut));
	unwind_table__stats(us, &st);
	st.build_ns = whole.build_ns;
	assert_memory_equal(&st, &whole, sizeof(st));
	unwind_table__free(us);
	/* the sink fails at its second call */
	free(s.rows);
	s = (struct stream){.fail_at = 2};
	errno = 0;
	assert_null(unwind_table__stream_fd(fd, batch, stream_rows, &s));
	assert_int_equal(errno, EIO);
	close(fd);
	free(s.rows);
	unwind_table__free(ut);
}

static void test_stream(void **state)
{
	char path[PATH_MAX];

	(void)state;
	check_stream(LIBC_PATH, 1);
	check_stream(LIBC_PATH, 1000);
	fixture(path, sizeof(path), "unw_nofp");
	check_stream(path, 1);
}

/* ---- hostile CFI: crafted .eh_frame sections in a copy of a fixture ------------------------- */

/* Section addresses of the fixture the crafted sections go into (readelf -S). */
struct eh_layout {
	uint64_t eh_addr, eh_size, text_addr;
};

static void eh_layout(const char *path, struct eh_layout *l)
{
	unsigned long long addr, off, size;
	char line[512], name[64];
	FILE *f = tool_output("readelf -SW '%s'", path);

	memset(l, 0, sizeof(*l));
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ']');

		if (!p || sscanf(p + 1, "%63s %*s %llx %llx %llx", name, &addr, &off, &size) != 4)
			continue;
		if (!strcmp(name, ".eh_frame")) {
			l->eh_addr = addr;
			l->eh_size = size;
		} else if (!strcmp(name, ".text")) {
			l->text_addr = addr;
		}
	}
	tool_done(f);
	assert_true(l->eh_addr && l->eh_size >= 128 && l->text_addr);
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/*
 * A CIE as gcc writes it (augmentation "zR", code factor 1, data factor -8, return address
 * column 16, pc-relative sdata4 pointers; CFA rsp+8, return address at CFA-8): 24 bytes.
 */
static size_t put_cie(uint8_t *p)
{
	static const uint8_t cie[24] = {0x14, 0,    0,	  0,	0,    0,    0,	  0,
					1,    'z',  'R',  0,	1,    0x78, 0x10, 1,
					0x1b, 0x0c, 0x07, 0x08, 0x90, 0x01, 0,	  0};

	memcpy(p, cie, sizeof(cie));
	return sizeof(cie);
}

/*
 * The table of a copy of unw_nofp whose .eh_frame holds eh[0..n) (zeros after: the
 * terminator). Section addresses stay as they were, so pc-relative values can be computed
 * from l.
 */
static struct unwind_table *crafted_table(const uint8_t *eh, size_t n, const struct eh_layout *l)
{
	char path[PATH_MAX], obj[] = "/tmp/cpuprof-unw-XXXXXX", sec[] = "/tmp/cpuprof-eh-XXXXXX";
	uint8_t *buf = calloc(1, l->eh_size);
	struct unwind_table *ut;
	int fd;

	assert_non_null(buf);
	assert_true(n <= l->eh_size);
	memcpy(buf, eh, n);
	fd = mkstemp(sec);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, l->eh_size), (ssize_t)l->eh_size);
	close(fd);
	free(buf);
	fd = mkstemp(obj);
	assert_true(fd >= 0);
	close(fd);
	fixture(path, sizeof(path), "unw_nofp");
	tool_done(tool_output("objcopy --update-section .eh_frame='%s' '%s' '%s'", sec, path, obj));
	ut = open_table(obj);
	unlink(obj);
	unlink(sec);
	return ut;
}

/*
 * DW_CFA_set_loc going backwards (rows for 0x14, then 0x0 again): the rows came out of order
 * (1020, 1000...) and the BPF binary search then picked wrong rows. Now the function's CFI is
 * malformed: one bad-cfi row for it, and the table stays sorted.
 */
static void test_set_loc_backwards(void **state)
{
	struct eh_layout l;
	struct unwind_table_stats st;
	const struct cp_unwind_row *r;
	struct unwind_table *ut;
	char path[PATH_MAX];
	uint8_t eh[64] = {0};
	size_t n, fde, nr;
	uint64_t field;

	(void)state;
	fixture(path, sizeof(path), "unw_nofp");
	eh_layout(path, &l);
	n = put_cie(eh);
	fde = n;
	put32(eh + fde + 4, (uint32_t)(fde + 4)); /* back to the CIE */
	field = l.eh_addr + fde + 8;
	put32(eh + fde + 8, (uint32_t)(l.text_addr - field)); /* pc_begin: .text */
	put32(eh + fde + 12, 0x40);			      /* pc_range */
	n = fde + 16;
	eh[n++] = 0;	       /* augmentation data: none */
	eh[n++] = 0x40 | 0x14; /* advance_loc 0x14 */
	eh[n++] = 0x0e;	       /* def_cfa_offset 16 */
	eh[n++] = 0x10;
	eh[n++] = 0x01; /* set_loc: pcrel sdata4, back to pc_begin */
	field = l.eh_addr + n;
	put32(eh + n, (uint32_t)(l.text_addr - field));
	n += 4;
	eh[n++] = 0x0e; /* def_cfa_offset 8 */
	eh[n++] = 0x08;
	n = (n + 3) & ~(size_t)3; /* DW_CFA_nop up to a 4-byte length */
	put32(eh + fde, (uint32_t)(n - fde - 4));
	ut = crafted_table(eh, n, &l);

	r = unwind_table__rows(ut, &nr);
	assert_int_equal(nr, 2);
	assert_int_equal(unwind_table__base(ut) + r[0].pc, l.text_addr);
	assert_int_equal(r[0].reason, CP_UNW_BAD_CFI);
	assert_int_equal(r[1].cfa_type, CP_CFA_END_FUNC);
	assert_int_equal(unwind_table__base(ut) + r[1].pc, l.text_addr + 0x40);
	unwind_table__stats(ut, &st);
	assert_int_equal(st.unsupported[CP_UNW_BAD_CFI], 1);
	unwind_table__free(ut);
}

/* A CIE and no FDE at all: an empty table (this sorted a NULL array: UB under UBSan). */
static void test_cie_without_fde(void **state)
{
	struct eh_layout l;
	char path[PATH_MAX];
	uint8_t eh[32] = {0};
	struct unwind_table *ut;
	size_t nr;

	(void)state;
	fixture(path, sizeof(path), "unw_nofp");
	eh_layout(path, &l);
	ut = crafted_table(eh, put_cie(eh), &l);
	unwind_table__rows(ut, &nr);
	assert_int_equal(nr, 0);
	unwind_table__free(ut);
}

/* An entry whose length runs past the section: what follows is lost, and counted. */
static void test_bad_length(void **state)
{
	struct eh_layout l;
	struct unwind_table_stats st;
	char path[PATH_MAX];
	uint8_t eh[32] = {0};
	struct unwind_table *ut;
	size_t n;

	(void)state;
	fixture(path, sizeof(path), "unw_nofp");
	eh_layout(path, &l);
	n = put_cie(eh);
	put32(eh + n, 0x7ffffff0); /* an entry longer than the section */
	ut = crafted_table(eh, n + 8, &l);
	unwind_table__stats(ut, &st);
	assert_int_equal(st.bytes_skipped, l.eh_size - n);
	assert_int_equal(st.fdes, 0);
	unwind_table__free(ut);
}

/*
 * The entry forms a linker may write and the pointers hostile CFI may hold, split as libdw
 * splits them: an FDE in the 64-bit form (length 0xffffffff, then 8-byte length and CIE
 * pointer) is read; an FDE whose CIE pointer lands inside its own header names no CIE
 * (skipped); one pointing before the section's start ends the section there (bytes_skipped).
 */
static void test_entry_forms(void **state)
{
	struct eh_layout l;
	struct unwind_table_stats st;
	const struct cp_unwind_row *r;
	struct unwind_table *ut;
	char path[PATH_MAX];
	uint8_t eh[160] = {0};
	size_t n, fde, nr;
	uint64_t v;

	(void)state;
	fixture(path, sizeof(path), "unw_nofp");
	eh_layout(path, &l);
	n = put_cie(eh);
	/* [text, text + 0x10): no instructions, the CIE's rules */
	fde = n;
	put32(eh + fde + 4, (uint32_t)(fde + 4));
	put32(eh + fde + 8, (uint32_t)(l.text_addr - (l.eh_addr + fde + 8)));
	put32(eh + fde + 12, 0x10);
	n = fde + 20; /* augmentation length 0, 3 nops */
	put32(eh + fde, (uint32_t)(n - fde - 4));
	/* [text + 0x20, text + 0x30) in the 64-bit form: advance_loc 4; def_cfa_offset 16 */
	fde = n;
	put32(eh + fde, 0xffffffffu);
	v = fde + 12; /* the CIE pointer: back from where it is to the CIE at 0 */
	memcpy(eh + fde + 12, &v, 8);
	put32(eh + fde + 20, (uint32_t)(l.text_addr + 0x20 - (l.eh_addr + fde + 20)));
	put32(eh + fde + 24, 0x10);
	n = fde + 28;
	eh[n++] = 0;	       /* augmentation data: none */
	eh[n++] = 0x40 | 0x04; /* advance_loc 4 */
	eh[n++] = 0x0e;	       /* def_cfa_offset 16 */
	eh[n++] = 0x10;
	v = n - fde - 12;
	memcpy(eh + fde + 4, &v, 8);
	/* a CIE pointer of 2: inside the FDE's own header, where no CIE is */
	fde = n;
	put32(eh + fde + 4, 2);
	put32(eh + fde + 8, (uint32_t)(l.text_addr + 0x40 - (l.eh_addr + fde + 8)));
	put32(eh + fde + 12, 0x10);
	n = fde + 20;
	put32(eh + fde, (uint32_t)(n - fde - 4));
	/* a CIE pointer before the section: malformed, nothing from here on is read */
	fde = n;
	put32(eh + fde + 4, (uint32_t)(fde + 8));
	put32(eh + fde + 8, (uint32_t)(l.text_addr + 0x60 - (l.eh_addr + fde + 8)));
	put32(eh + fde + 12, 0x10);
	n = fde + 20;
	put32(eh + fde, (uint32_t)(n - fde - 4));
	ut = crafted_table(eh, n, &l);

	unwind_table__stats(ut, &st);
	assert_int_equal(st.fdes, 2);
	assert_int_equal(st.fdes_skipped, 1);
	assert_int_equal(st.bytes_skipped, l.eh_size - fde);
	r = unwind_table__rows(ut, &nr);
	assert_int_equal(nr, 5);
	assert_int_equal(unwind_table__base(ut) + r[0].pc, l.text_addr);
	assert_int_equal(r[0].cfa_type, CP_CFA_RSP);
	assert_int_equal(r[0].cfa_off, 8);
	assert_int_equal(unwind_table__base(ut) + r[1].pc, l.text_addr + 0x10);
	assert_int_equal(r[1].cfa_type, CP_CFA_END_FUNC);
	assert_int_equal(unwind_table__base(ut) + r[2].pc, l.text_addr + 0x20);
	assert_int_equal(r[2].cfa_off, 8);
	assert_int_equal(unwind_table__base(ut) + r[3].pc, l.text_addr + 0x24);
	assert_int_equal(r[3].cfa_off, 16);
	assert_int_equal(unwind_table__base(ut) + r[4].pc, l.text_addr + 0x30);
	assert_int_equal(r[4].cfa_type, CP_CFA_END_FUNC);
	unwind_table__free(ut);
}

/*
 * An FDE at eh[at] for [lo, lo + range) with CIE 0 and program prog[0, len) (nops up to a
 * 4-byte length); returns the offset after it.
 */
static size_t put_fde(uint8_t *eh, size_t at, const struct eh_layout *l, uint64_t lo,
		      uint32_t range, const uint8_t *prog, size_t len)
{
	size_t n = at + 17;

	put32(eh + at + 4, (uint32_t)(at + 4));
	put32(eh + at + 8, (uint32_t)(lo - (l->eh_addr + at + 8)));
	put32(eh + at + 12, range);
	eh[at + 16] = 0; /* augmentation data: none */
	if (len)
		memcpy(eh + n, prog, len);
	n = (n + len + 3) & ~(size_t)3;
	put32(eh + at, (uint32_t)(n - at - 4));
	return n;
}

/*
 * FDEs of the same start, out of order: the longest one's rows, the others skipped as
 * overlapping it. Ten at .text (more than a few: sorted by qsort), three at .text + 0x40.
 */
static void test_same_start(void **state)
{
	static const uint8_t prog[] = {0x40 | 0x04, 0x0e, 0x10}; /* advance 4; CFA rsp+16 */
	static const uint32_t ten[] = {3, 7, 1, 9, 10, 2, 8, 4, 6, 5};
	struct eh_layout l;
	struct unwind_table_stats st;
	const struct cp_unwind_row *r;
	struct unwind_table *ut;
	char path[PATH_MAX];
	uint8_t eh[512] = {0};
	size_t n, nr;

	(void)state;
	fixture(path, sizeof(path), "unw_nofp");
	eh_layout(path, &l);
	n = put_cie(eh);
	for (size_t i = 0; i < 10; i++)
		n = put_fde(eh, n, &l, l.text_addr, ten[i] * 4, prog, ten[i] == 10 ? 3 : 0);
	n = put_fde(eh, n, &l, l.text_addr + 0x40, 0x8, NULL, 0);
	n = put_fde(eh, n, &l, l.text_addr + 0x40, 0x10, prog, 3);
	n = put_fde(eh, n, &l, l.text_addr + 0x40, 0xc, NULL, 0);
	ut = crafted_table(eh, n, &l);

	unwind_table__stats(ut, &st);
	assert_int_equal(st.fdes, 2);
	assert_int_equal(st.fdes_skipped, 11);
	r = unwind_table__rows(ut, &nr);
	assert_int_equal(nr, 6);
	for (size_t i = 0; i < 2; i++) {
		uint64_t lo = l.text_addr + 0x40 * i, hi = lo + (i ? 0x10 : 40);

		assert_int_equal(unwind_table__base(ut) + r[3 * i].pc, lo);
		assert_int_equal(r[3 * i].cfa_off, 8);
		assert_int_equal(unwind_table__base(ut) + r[3 * i + 1].pc, lo + 4);
		assert_int_equal(r[3 * i + 1].cfa_off, 16);
		assert_int_equal(unwind_table__base(ut) + r[3 * i + 2].pc, hi);
		assert_int_equal(r[3 * i + 2].cfa_type, CP_CFA_END_FUNC);
	}
	unwind_table__free(ut);
}

/*
 * .debug_frame lets an FDE come before its CIE (the CIE pointer is an offset in the section):
 * the FDE is read all the same. unw_dbgframe with its .debug_frame replaced by such a pair.
 */
static void test_debug_frame_cie_after(void **state)
{
	char path[PATH_MAX], obj[] = "/tmp/cpuprof-unw-XXXXXX", sec[] = "/tmp/cpuprof-dbg-XXXXXX";
	struct unwind_table_stats st;
	const struct cp_unwind_row *r;
	struct unwind_table *ut;
	unsigned long long text = 0;
	uint8_t dbg[64] = {0};
	char line[512], name[64];
	size_t n, cie, nr;
	uint64_t v;
	FILE *f;
	int fd;

	(void)state;
	fixture(path, sizeof(path), "unw_dbgframe");
	f = tool_output("readelf -SW '%s'", path);
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ']');
		unsigned long long addr;

		if (p && sscanf(p + 1, "%63s %*s %llx", name, &addr) == 2 && !strcmp(name, ".text"))
			text = addr;
	}
	tool_done(f);
	assert_true(text);
	/* the FDE: [text, text + 0x10), absolute udata8 addresses, no instructions */
	cie = 28;
	put32(dbg + 4, (uint32_t)cie);
	v = text;
	memcpy(dbg + 8, &v, 8);
	v = 0x10;
	memcpy(dbg + 16, &v, 8);
	put32(dbg, 24);
	/* the CIE: version 1, no augmentation, code 1, data -8, ra 16; CFA rsp+8, ra at CFA-8 */
	n = cie;
	put32(dbg + n + 4, 0xffffffffu);
	n += 8;
	dbg[n++] = 1;
	dbg[n++] = 0;
	dbg[n++] = 1;
	dbg[n++] = 0x78;
	dbg[n++] = 16;
	dbg[n++] = 0x0c; /* def_cfa rsp 8 */
	dbg[n++] = 0x07;
	dbg[n++] = 0x08;
	dbg[n++] = 0x90; /* offset ra, 1 * -8 */
	dbg[n++] = 0x01;
	n = (n + 3) & ~(size_t)3;
	put32(dbg + cie, (uint32_t)(n - cie - 4));
	fd = mkstemp(sec);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, dbg, n), (ssize_t)n);
	close(fd);
	fd = mkstemp(obj);
	assert_true(fd >= 0);
	close(fd);
	tool_done(tool_output("objcopy --update-section .debug_frame='%s' '%s' '%s'", sec, path,
			      obj));
	ut = open_table(obj);
	unlink(obj);
	unlink(sec);

	unwind_table__stats(ut, &st);
	assert_true(st.debug_frame);
	assert_int_equal(st.fdes, 1);
	assert_int_equal(st.fdes_skipped, 0);
	r = unwind_table__rows(ut, &nr);
	assert_int_equal(nr, 2);
	assert_int_equal(unwind_table__base(ut) + r[0].pc, text);
	assert_int_equal(r[0].cfa_type, CP_CFA_RSP);
	assert_int_equal(r[0].cfa_off, 8);
	assert_int_equal(r[1].cfa_type, CP_CFA_END_FUNC);
	unwind_table__free(ut);
}

static void test_errors(void **state)
{
	char path[PATH_MAX], tmp[] = "/tmp/cpuprof-unw-XXXXXX";
	int fd;

	(void)state;
	expect_error("/dev/null", ENOEXEC);
	expect_error("/etc/passwd", ENOEXEC);
	/* an object without CFI */
	fixture(path, sizeof(path), "unw_nofp");
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	close(fd);
	tool_done(tool_output("objcopy -R .eh_frame -R .eh_frame_hdr -R .debug_frame '%s' '%s'",
			      path, tmp));
	expect_error(tmp, ENODATA);
	unlink(tmp);
	unwind_table__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nofp),
		cmocka_unit_test(test_fp),
		cmocka_unit_test(test_ibt_plt),
		cmocka_unit_test(test_debug_frame),
		cmocka_unit_test(test_nopie),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_ld_so),
		cmocka_unit_test(test_python),
		cmocka_unit_test(test_take_rows),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_set_loc_backwards),
		cmocka_unit_test(test_cie_without_fde),
		cmocka_unit_test(test_bad_length),
		cmocka_unit_test(test_entry_forms),
		cmocka_unit_test(test_debug_frame_cie_after),
		cmocka_unit_test(test_same_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
