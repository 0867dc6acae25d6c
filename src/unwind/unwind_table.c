// SPDX-License-Identifier: GPL-2.0
/*
 * .eh_frame / .debug_frame -> struct cp_unwind_row, x86-64 only.
 *
 * The section is split into CIEs and FDEs here, in one pass, as libdw's dwarf_next_cfi splits
 * it; CIEs (a few) are parsed by dwarf_next_cfi. The rest of the reading is here too: the
 * augmentation and the pointer encodings of FDE ranges, which FDEs describe loaded code. Each
 * FDE's program is run once by cfi_eval, its rules made rows by unwind_row; rows are compacted
 * as they come (a later row at the same pc wins, an unchanged rule is dropped) and an end row
 * marks where no function follows. Sections are read as little-endian, as x86-64 is.
 */
#include <dwarf.h>
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <elfutils/libdw.h>
#include "unwind/cfi_eval.h"
#include "unwind/unwind_row.h"
#include "elf/elf_file.h"
#include "elf/elf_image.h"
#include "elf/gopclntab.h"
#include "util/clock.h"
#include "unwind/unwind_table.h"

#define MAX_SEGS 16

struct cie {
	Dwarf_Off off;
	uint64_t caf;
	int64_t daf;
	uint8_t enc;   /* pointer encoding of FDE addresses ('R') */
	bool z;	       /* FDEs carry augmentation data */
	bool signal;   /* 'S': a signal trampoline */
	bool bad;      /* augmentation not understood: its FDEs cannot even be located */
	bool bad_init; /* initial instructions not understood: one CP_UNW_BAD_CFI row per FDE */
	bool ra16;     /* return address column is 16 */
	struct cfi_state init;
	struct cp_unwind_row init_row; /* init as a row (not bad_init) */
};

/*
 * 24 bytes, not 48: libLLVM's 95,000 FDEs (in an array grown by doubling) were 6.3 MB of a
 * system-wide recording's peak while its table was built.
 */
struct fde {
	uint32_t lo, hi;    /* from the builder's base (add_fde and add_go check they fit) */
	uint32_t insn, end; /* offsets of the instructions in the CFI section */
	uint32_t cie;
	uint32_t go; /* a Go function (its index in the pclntab + 1), no CFI; 0: an FDE */
};
_Static_assert(sizeof(struct fde) == 24, "FDEs are 24 bytes");

struct seg {
	uint64_t lo;
	uint64_t hi;
};

struct unwind_table {
	struct cp_unwind_row *rows;
	size_t nr_rows;
	uint64_t base;
	struct unwind_table_stats st;
};

/* Scratch state of one construction. */
struct builder {
	struct cfi_section sec; /* data, and sh_addr: pcrel pointers are relative to it */
	size_t sec_size;
	bool eh;
	struct cie *cies;
	size_t nr_cies, cap_cies;
	struct fde *fdes;
	size_t nr_fdes, cap_fdes;
	struct cp_unwind_row *rows;
	size_t nr_rows, cap_rows;
	size_t raw_rows; /* rows made, before compaction (st->raw_rows at the end) */
	/* rows held or emitted by cfa_type and by reason, but for CP_CFA_RSP/RBP ones of reason 0
	 */
	size_t by_type[256], by_reason[256];
	struct seg segs[MAX_SEGS]; /* executable PT_LOADs */
	size_t nr_segs;
	uint64_t base;
	struct unwind_table_stats *st;
	const struct gopclntab *gp; /* Go's function table: rows for Go code, which has no CFI */
	struct gopclntab *gp_own;   /* gp when read here (no go_tables), freed after the build */
	struct go_runtime_offsets go_off;
	uint8_t go_tls_slot; /* g at fsbase - 8 * slot; 0: unknown (no CP_CFA_GO_SWITCH rows) */
	unwind_rows_fn emit; /* streamed: rows go there as they are final, not into the table */
	void *emit_ctx;
	size_t emit_at;	  /* rows held before they are emitted */
	size_t emitted;	  /* rows emitted so far */
	uint32_t last_pc; /* of the last row emitted */
	bool release;	  /* the CFI section lies in a file mapping nothing wrote (release_cfi) */
	size_t released;  /* the section's bytes from the run's start to here were given back */
	size_t releases;  /* madvise calls left (bounds a hostile order of FDEs) */
};

/* The CFI section's pages are given back this many bytes at a time (release_cfi). */
#define RELEASE_STEP (1u << 20)

/*
 * Streamed: rows are emitted at an FDE's start once emit_at are held, but the last KEEP_ROWS:
 * push_row may replace the last row or drop a new one against it.
 */
#define KEEP_ROWS 2

/* ---- CIEs -------------------------------------------------------------------------------- */

/* The augmentation string and data of an .eh_frame CIE: 'R', and the letters before it. */
static void parse_augmentation(const struct builder *b, struct cie *cie, const Dwarf_CIE *e)
{
	struct cfi_cursor c = {e->augmentation_data,
			       e->augmentation_data + e->augmentation_data_size, false};
	const char *a = e->augmentation;
	uint64_t dummy;

	cie->enc = b->eh ? DW_EH_PE_absptr : DW_EH_PE_udata8;
	if (!a[0])
		return;
	if (a[0] != 'z') {
		cie->bad = true; /* "eh" and other pre-'z' forms are not used on x86-64 */
		return;
	}
	cie->z = true;
	for (a++; *a && !c.err; a++) {
		switch (*a) {
		case 'R':
			cie->enc = (uint8_t)cfi_read_fixed(&c, 1);
			break;
		case 'P': /* personality routine: an encoded pointer, skipped */
			if (cfi_read_pointer(&c, (uint8_t)cfi_read_fixed(&c, 1), NULL, &dummy))
				cie->bad = true;
			break;
		case 'L': /* LSDA encoding byte */
			cfi_read_fixed(&c, 1);
			break;
		case 'S':
			cie->signal = true;
			break;
		case 'B': /* AArch64 BTI, G: MTE; no data */
		case 'G':
			break;
		default:
			/* data of an unknown letter has unknown size: 'R' may be lost */
			cie->bad = true;
			return;
		}
	}
	if (c.err)
		cie->bad = true;
}

/* What the CFA programs of cie's FDEs (init: the CIE's rules) or its own (NULL) run with. */
static struct cfi_frame cie_frame(const struct builder *b, const struct cie *cie,
				  const struct cfi_state *init)
{
	return (struct cfi_frame){cie->caf, cie->daf, cie->enc, &b->sec, init};
}

static int add_cie(struct builder *b, Dwarf_Off off, const Dwarf_CIE *e)
{
	struct cfi_frame f;
	struct cie *cie;

	if (b->nr_cies == b->cap_cies) {
		size_t cap = b->cap_cies ? 2 * b->cap_cies : 16;
		struct cie *n = realloc(b->cies, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		b->cies = n;
		b->cap_cies = cap;
	}
	cie = &b->cies[b->nr_cies++];
	memset(cie, 0, sizeof(*cie));
	cie->off = off;
	cie->caf = e->code_alignment_factor;
	cie->daf = e->data_alignment_factor;
	cie->ra16 = e->return_address_register == CFI_REG_RA;
	parse_augmentation(b, cie, e);
	if (cie->bad)
		return 0;
	f = cie_frame(b, cie, NULL);
	if (cfi_eval(&f, e->initial_instructions, e->initial_instructions_end, &cie->init, 0, 0,
		     NULL, NULL))
		cie->bad_init = true;
	else
		cie->init_row = unwind_row_from_cfi(&cie->init, cie->signal, cie->ra16);
	return 0;
}

static const struct cie *find_cie(const struct builder *b, Dwarf_Off off, size_t *idx)
{
	size_t lo = 0, hi = b->nr_cies;

	/* CIEs were recorded in section order, so by offset */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->cies[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == b->nr_cies || b->cies[lo].off != off)
		return NULL;
	*idx = lo;
	return &b->cies[lo];
}

/* ---- FDEs -------------------------------------------------------------------------------- */

static bool in_exec_segment(const struct builder *b, uint64_t lo)
{
	for (size_t i = 0; i < b->nr_segs; i++)
		if (lo >= b->segs[i].lo && lo < b->segs[i].hi)
			return true;
	return false;
}

/* The FDE whose CIE is at cie_off and whose bytes after the CIE pointer are [p, end). */
static int add_fde(struct builder *b, uint64_t cie_off, const uint8_t *p, const uint8_t *end)
{
	struct cfi_cursor c = {p, end, false};
	const struct cie *cie;
	uint64_t lo, len, aug;
	size_t ci;

	cie = find_cie(b, cie_off, &ci);
	if (!cie || cie->bad) {
		b->st->fdes_skipped++;
		return 0;
	}
	if (cie->enc == (DW_EH_PE_pcrel | DW_EH_PE_sdata4) && end - p >= 8) {
		/* what nearly every FDE of .eh_frame has: cfi_read_pointer's result, inline */
		int32_t v[2];

		memcpy(v, p, sizeof(v));
		lo = b->sec.addr + (uint64_t)(p - b->sec.data) + (uint64_t)(int64_t)v[0];
		len = (uint64_t)(int64_t)v[1];
		c.p += 8;
	} else if (cfi_read_pointer(&c, cie->enc, &b->sec, &lo) ||
		   cfi_read_pointer(&c, cie->enc, NULL, &len)) {
		b->st->fdes_skipped++;
		return 0;
	}
	if (cie->z) {
		aug = cfi_read_uleb(&c);
		if (aug > (uint64_t)(c.end - c.p))
			c.err = true;
		else
			c.p += aug;
	}
	/* empty, or for code that is not loaded (discarded sections in .debug_frame) */
	if (c.err || !len || lo + len < lo || !in_exec_segment(b, lo) || lo < b->base ||
	    lo + len - b->base > UINT32_MAX || ci > UINT32_MAX ||
	    (uint64_t)(c.end - b->sec.data) > UINT32_MAX) {
		b->st->fdes_skipped++;
		return 0;
	}
	if (b->nr_fdes == b->cap_fdes) {
		size_t cap = b->cap_fdes ? 2 * b->cap_fdes : 256;
		struct fde *n = realloc(b->fdes, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		b->fdes = n;
		b->cap_fdes = cap;
	}
	b->fdes[b->nr_fdes++] = (struct fde){(uint32_t)(lo - b->base),
					     (uint32_t)(lo + len - b->base),
					     (uint32_t)(c.p - b->sec.data),
					     (uint32_t)(c.end - b->sec.data),
					     (uint32_t)ci,
					     0};
	return 0;
}

/*
 * The order of the FDEs: by start; at the same start the longer one first (the other overlaps
 * it); then by where the instructions are, Go functions (no instructions) by their index. No
 * two are equal: any sort gives this one order.
 */
static inline bool fde_before(const struct fde *a, const struct fde *b)
{
	if (a->lo != b->lo)
		return a->lo < b->lo;
	if (a->hi != b->hi)
		return a->hi > b->hi;
	if (a->insn != b->insn)
		return a->insn < b->insn;
	return a->go < b->go;
}

/*
 * Give back the file pages of the CFI section before offset upto, read so far: a private
 * mapping nobody wrote, so a page read again faults in from the page cache. Whole pages inside
 * the section only, RELEASE_STEP at a time. Building libclang-cpp's table held its 5 MB of
 * .eh_frame in cpuprof's RSS until the end (7.7 MB of file pages at the peak of a recording).
 */
static void release_cfi(struct builder *b, size_t upto)
{
	uintptr_t page, lo, hi;

	if (upto < b->released) /* a new run of the section's order */
		b->released = upto;
	if (!b->release || !b->releases || upto > b->sec_size || upto < b->released + RELEASE_STEP)
		return;
	/* here only: a call per FDE, and sysconf is no cheap load */
	page = (uintptr_t)sysconf(_SC_PAGESIZE);
	b->releases--;
	lo = ((uintptr_t)b->sec.data + b->released + page - 1) & ~(page - 1);
	hi = ((uintptr_t)b->sec.data + upto) & ~(page - 1);
	if (lo < hi)
		(void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
	b->released = upto;
}

/* fde_before for qsort */
static int cmp_fde(const void *x, const void *y)
{
	return fde_before(x, y) ? -1 : fde_before(y, x);
}

#define RADIX_BITS 11 /* three passes cover a 32-bit start */
#define RADIX_SIZE (1u << RADIX_BITS)

/*
 * Sort the FDEs (fde_before). A linker writes them in address order as a rule, or in runs of
 * it (libLLVM's 94,994 come in 595, cc1's 45,201 in 7,317): by start first, a stable radix sort
 * (three passes of 11 bits, between v and a copy; a pass whose digit is the same everywhere is
 * skipped), then the FDEs of one start put in order (a few at most: insertion; more, only in
 * hostile CFI: qsort). 0 or -ENOMEM.
 */
static int sort_fdes(struct fde *v, size_t n)
{
	struct fde *tmp, *from = v, *to;
	uint32_t(*count)[RADIX_SIZE];
	size_t descents = 0;

	for (size_t i = 1; i < n; i++)
		descents += fde_before(&v[i], &v[i - 1]);
	if (!descents)
		return 0;
	/* qsort would take such a copy too (1.5 MB for libLLVM's, at a recording's peak) */
	tmp = malloc(n * sizeof(*tmp));
	count = calloc(3, sizeof(*count));
	if (!tmp || !count || n > UINT32_MAX) {
		free(tmp);
		free(count);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		for (unsigned int d = 0; d < 3; d++)
			count[d][v[i].lo >> (RADIX_BITS * d) & (RADIX_SIZE - 1)]++;
	to = tmp;
	for (unsigned int d = 0; d < 3; d++) {
		unsigned int shift = RADIX_BITS * d;
		uint32_t sum = 0;

		if (count[d][from[0].lo >> shift & (RADIX_SIZE - 1)] == n)
			continue;
		for (size_t k = 0; k < RADIX_SIZE; k++) {
			uint32_t c = count[d][k];

			count[d][k] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			to[count[d][from[i].lo >> shift & (RADIX_SIZE - 1)]++] = from[i];
		from = to;
		to = to == tmp ? v : tmp;
	}
	if (from != v)
		memcpy(v, from, n * sizeof(*v));
	free(tmp);
	free(count);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && v[j].lo == v[i].lo; j++)
			;
		if (j - i > 8) {
			qsort(&v[i], j - i, sizeof(*v), cmp_fde);
			continue;
		}
		for (size_t k = i + 1; k < j; k++) {
			struct fde x = v[k];
			size_t m = k;

			for (; m > i && fde_before(&x, &v[m - 1]); m--)
				v[m] = v[m - 1];
			v[m] = x;
		}
	}
	return 0;
}

/* ---- rows -------------------------------------------------------------------------------- */

static bool rows_ascending(const struct cp_unwind_row *rows, size_t n);

/* The same rule: all but pc and pad (as the BPF walker reads them). */
static inline bool same_rule(const struct cp_unwind_row *a, const struct cp_unwind_row *b)
{
	return a->cfa_type == b->cfa_type && a->rbp_type == b->rbp_type &&
	       a->cfa_off == b->cfa_off && a->rbp_off == b->rbp_off && a->reason == b->reason;
}

/* Count row r in (+1) or out (-1, as size_t) of b's rows: only the few of other rules. */
static inline void tally(struct builder *b, const struct cp_unwind_row *r, size_t d)
{
	if ((r->cfa_type != CP_CFA_RSP && r->cfa_type != CP_CFA_RBP) || r->reason) {
		b->by_type[r->cfa_type] += d;
		b->by_reason[r->reason] += d;
	}
}

/* Drop the rows after the first mark (of the FDE being built: none was emitted). */
static void drop_rows(struct builder *b, size_t mark)
{
	while (b->nr_rows > mark)
		tally(b, &b->rows[--b->nr_rows], (size_t)-1);
}

/*
 * Append the row in force from vaddr: a later row at the same pc replaces it, an unchanged rule
 * is dropped. Rows are sorted by construction, as the BPF binary search needs: a row below the
 * last one, or outside the 32-bit span above base, is -EINVAL (the FDE that asked for it is
 * then marked malformed).
 */
static inline __attribute__((always_inline)) int push_row(struct builder *b, uint64_t vaddr,
							  struct cp_unwind_row r)
{
	size_t n = b->nr_rows;
	uint32_t pc;

	if (vaddr < b->base || vaddr - b->base > UINT32_MAX)
		return -EINVAL;
	pc = (uint32_t)(vaddr - b->base);
	if (n) {
		if (pc < b->rows[n - 1].pc)
			return -EINVAL;
		if (b->rows[n - 1].pc == pc)
			tally(b, &b->rows[--n], (size_t)-1);
	}
	b->raw_rows++;
	if (n && same_rule(&b->rows[n - 1], &r)) {
		b->nr_rows = n;
		return 0;
	}
	tally(b, &r, 1);
	if (n == b->cap_rows) {
		size_t cap = b->cap_rows ? 2 * b->cap_rows : 1024;
		struct cp_unwind_row *nr = realloc(b->rows, cap * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		b->rows = nr;
		b->cap_rows = cap;
	}
	r.pc = pc;
	b->rows[n] = r;
	b->nr_rows = n + 1;
	return 0;
}

/* push_row, not inline: for the rows made here (end rows, Go's, bad CFI) */
static int push_new(struct builder *b, uint64_t vaddr, struct cp_unwind_row r)
{
	return push_row(b, vaddr, r);
}

struct fde_rows {
	struct builder *b;
	const struct cie *cie;
};

/* cfi_row_fn: the rules in force from pc, as a row */
static int fde_row(void *arg, uint64_t pc, const struct cfi_state *s)
{
	const struct fde_rows *fr = arg;

	return push_row(fr->b, pc, unwind_row_from_cfi(s, fr->cie->signal, fr->cie->ra16));
}

/*
 * A pcsp row of a Go function (amd64): the stack pointer delta d from the pcsp table, so
 * CFA = rsp + d + 8 and the return address at CFA - 8; a function with a frame (d > 0) keeps
 * its caller's rbp at CFA - 16 (Go's prologue: SUBQ $size, SP; MOVQ BP, size-8(SP)), cmd/
 * internal/obj/x86/obj6.go.
 */
static int go_row(void *arg, uint64_t start, uint64_t end, int32_t d)
{
	struct cp_unwind_row r = {.cfa_type = CP_CFA_RSP};

	(void)end;
	if (d < 0 || d > INT32_MAX - 8)
		r = unwind_row_unsupported(CP_UNW_RANGE);
	else if (!d)
		r.cfa_off = 8;
	else
		r = (struct cp_unwind_row){.cfa_type = CP_CFA_RSP,
					   .cfa_off = d + 8,
					   .rbp_type = CP_RBP_CFA_OFF,
					   .rbp_off = -16};
	return push_new(arg, start, r);
}

static int max_delta(void *arg, uint64_t start, uint64_t end, int32_t d)
{
	int32_t *max = arg;

	(void)start;
	(void)end;
	if (d > *max)
		*max = d;
	return 0;
}

/*
 * Rows of Go function i: its pcsp table, except for the outermost frames of a stack (goexit,
 * mstart, rt0_go: TOPFRAME), which end it.
 */
static int build_go(struct builder *b, size_t i)
{
	struct go_func gf;
	size_t mark = b->nr_rows, raw = b->raw_rows;
	int err;

	/* add_go took only functions it could read: the table has not changed since */
	if (!gopclntab__func_at(b->gp, i, &gf))
		return 0;
	/* mcall goes on on g0 and leaves nothing to return to: Go's own traceback ends there */
	if ((gf.flag & GOPCLN_FLAG_TOPFRAME) || !strcmp(gf.name, "runtime.mcall"))
		return push_new(b, gf.entry, (struct cp_unwind_row){.cfa_type = CP_CFA_END_STACK});
	/*
	 * runtime.asmcgocall (the assembly body: it writes SP, its ABI wrapper of the same name
	 * does not) switches to g0 for a cgo call as systemstack does, through
	 * gosave_systemstack_switch: the C frames go on into the goroutine that called
	 */
	if (b->go_tls_slot &&
	    (!strcmp(gf.name, "runtime.systemstack") || !strcmp(gf.name, "runtime.morestack") ||
	     (!strcmp(gf.name, "runtime.asmcgocall") && (gf.flag & GOPCLN_FLAG_SPWRITE)))) {
		bool ss = strcmp(gf.name, "runtime.morestack");
		int32_t body = 0;
		struct cp_unwind_row r = {
			.cfa_type = CP_CFA_GO_SWITCH,
			.rbp_type = ss ? CP_GO_SYSTEMSTACK : CP_GO_MORESTACK,
			.pad = b->go_tls_slot,
		};

		/*
		 * morestack has no frame (NOFRAME); systemstack and asmcgocall none until Go 1.20,
		 * and push rbp first from 1.21 on (the pcsp delta after the first byte says which):
		 * where gosave_systemstack_switch saved sched.sp
		 */
		if (ss && gopclntab__sp_delta(b->gp, gf.entry + 1, &body))
			body = -1;
		if (body == 0 || body == 8) {
			/* when not on g0: the function's own frame, the body's (a prologue is rare)
			 */
			r.cfa_off = body + 8;
			r.rbp_off = CP_GO_PACK(b->go_off.g_m, b->go_off.m_curg, b->go_off.g_sched,
					       b->go_off.gobuf_bp, body == 8);
			return push_new(b, gf.entry, r);
		}
	}
	if (b->go_tls_slot && b->go_off.m_vdsosp &&
	    (!strcmp(gf.name, "runtime.nanotime1") || !strcmp(gf.name, "runtime.walltime") ||
	     !strcmp(gf.name, "time.now"))) {
		int32_t body = 0;
		struct cp_unwind_row r = {
			.cfa_type = CP_CFA_GO_SWITCH,
			.rbp_off = CP_GO_PACK(b->go_off.g_m, b->go_off.m_vdsosp, 0, 0, 0),
			.rbp_type = CP_GO_VDSO,
			.pad = b->go_tls_slot,
		};

		/* not in the vDSO call: the frame of the body (a leaf in the prologue is rare) */
		err = gopclntab__sp_rows(b->gp, i, gf.end - gf.entry, max_delta, &body);
		if (err || body <= 0 || body > INT32_MAX - 8)
			return push_new(b, gf.entry, unwind_row_unsupported(CP_UNW_BAD_CFI));
		r.cfa_off = body + 8;
		return push_new(b, gf.entry, r);
	}
	/* a row per change of the delta: at most one per byte */
	err = gopclntab__sp_rows(b->gp, i, gf.end - gf.entry, go_row, b);
	if (err == -ENOMEM)
		return err;
	/* raw_rows: a first row like the one before it is not added, but was made */
	if (err || b->raw_rows == raw) {
		drop_rows(b, mark);
		return push_new(b, gf.entry, unwind_row_unsupported(CP_UNW_BAD_CFI));
	}
	return 0;
}

/* The Go functions as FDEs without CFI, for build_rows to place among the others. */
static int add_go(struct builder *b)
{
	size_t n = gopclntab__count(b->gp);

	for (size_t i = 0; i < n; i++) {
		struct go_func gf;

		if (!gopclntab__func_at(b->gp, i, &gf) || !in_exec_segment(b, gf.entry) ||
		    gf.end - b->base > UINT32_MAX || gf.entry < b->base || i >= UINT32_MAX) {
			b->st->fdes_skipped++;
			continue;
		}
		if (b->nr_fdes == b->cap_fdes) {
			size_t cap = b->cap_fdes ? 2 * b->cap_fdes : 256;
			struct fde *nf = realloc(b->fdes, cap * sizeof(*nf));

			if (!nf)
				return -ENOMEM;
			b->fdes = nf;
			b->cap_fdes = cap;
		}
		b->fdes[b->nr_fdes++] = (struct fde){(uint32_t)(gf.entry - b->base),
						     (uint32_t)(gf.end - b->base),
						     0,
						     0,
						     0,
						     (uint32_t)(i + 1)};
	}
	return 0;
}

/* The program [p, end) is DW_CFA_nop (0) only, or empty: the function keeps the CIE's rules. */
static bool only_nops(const uint8_t *p, const uint8_t *end)
{
	while (p < end && !*p)
		p++;
	return p == end;
}

/* Rows of one FDE; one CP_UNW_BAD_CFI row for the whole function when its CFI is malformed. */
static int build_fde(struct builder *b, const struct fde *f)
{
	const struct cie *cie;
	struct fde_rows fr;
	struct cfi_frame fr_cie;
	size_t mark = b->nr_rows;
	struct cfi_state s;
	int err = -EINVAL;

	if (f->go)
		return build_go(b, f->go - 1);
	cie = &b->cies[f->cie];
	if (!cie->bad_init && only_nops(b->sec.data + f->insn, b->sec.data + f->end)) {
		/*
		 * what cfi_eval makes of it: the CIE's rules from the start to the end (add_fde
		 * took no empty FDE); a quarter of libLLVM's FDEs, leaf functions
		 */
		err = push_new(b, b->base + f->lo, cie->init_row);
	} else if (!cie->bad_init) {
		fr = (struct fde_rows){b, cie};
		fr_cie = cie_frame(b, cie, &cie->init);
		s = cie->init;
		err = cfi_eval(&fr_cie, b->sec.data + f->insn, b->sec.data + f->end, &s,
			       b->base + f->lo, b->base + f->hi, fde_row, &fr);
	}
	if (err == -ENOMEM)
		return err;
	if (err) {
		/* rows before mark have pcs below f->lo: push_row left them alone */
		drop_rows(b, mark);
		err = push_new(b, b->base + f->lo, unwind_row_unsupported(CP_UNW_BAD_CFI));
	}
	return err;
}

/*
 * Streamed: emit the rows held but the last keep, checked ascending (across emits too) and
 * counted. 0, -EINVAL (not ascending), or the error of emit.
 */
static int emit_rows(struct builder *b, size_t keep)
{
	size_t n = b->nr_rows > keep ? b->nr_rows - keep : 0;
	int err;

	if (!n)
		return 0;
	if (b->emitted && b->rows[0].pc <= b->last_pc)
		return -EINVAL;
	if (!rows_ascending(b->rows, n))
		return -EINVAL;
	err = b->emit(b->emit_ctx, b->rows, n);
	if (err)
		return err;
	b->st->rows += n;
	b->emitted += n;
	b->last_pc = b->rows[n - 1].pc;
	memmove(b->rows, b->rows + n, (b->nr_rows - n) * sizeof(*b->rows));
	b->nr_rows -= n;
	return 0;
}

static int build_rows(struct builder *b)
{
	uint64_t end = 0;
	int err;

	/* a CIE without any FDE that survived: fdes may be NULL */
	err = sort_fdes(b->fdes, b->nr_fdes);
	if (err)
		return err;
	/*
	 * pages behind are given back as the instructions go further into the section: address
	 * order is a few runs of the section's order (libclang-cpp's 82,821 FDEs); a page read
	 * again after its release (an FDE out of that order) faults in once more
	 */
	b->released = 0;
	for (size_t i = 0; i < b->nr_fdes; i++) {
		const struct fde *f = &b->fdes[i];
		uint64_t lo = b->base + f->lo;

		if (!f->go)
			release_cfi(b, f->insn);
		if (i && lo < end) {
			b->st->fdes_skipped++; /* overlaps the previous function: first one wins */
			continue;
		}
		if (i && lo > end) {
			err = push_new(b, end, (struct cp_unwind_row){.cfa_type = CP_CFA_END_FUNC});
			if (err)
				return err;
		}
		/* an FDE's rows start after mark (build_fde): those before are final */
		err = b->emit && b->nr_rows >= b->emit_at ? emit_rows(b, KEEP_ROWS) : 0;
		if (!err)
			err = build_fde(b, f);
		if (err)
			return err;
		b->st->fdes++;
		end = b->base + f->hi;
	}
	if (b->nr_fdes)
		return push_new(b, end, (struct cp_unwind_row){.cfa_type = CP_CFA_END_FUNC});
	return 0;
}

/* ---- ELF --------------------------------------------------------------------------------- */

/* Base vaddr and executable segments; the code must fit 32-bit row pcs. */
static int read_segments(Elf *elf, struct builder *b)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_vaddr < lo)
			lo = ph.p_vaddr;
		if (!(ph.p_flags & PF_X) || b->nr_segs == MAX_SEGS)
			continue;
		b->segs[b->nr_segs++] = (struct seg){ph.p_vaddr, ph.p_vaddr + ph.p_memsz};
		if (ph.p_vaddr + ph.p_memsz > hi)
			hi = ph.p_vaddr + ph.p_memsz;
	}
	if (!b->nr_segs)
		return -ENODATA;
	if (hi - lo > UINT32_MAX)
		return -EFBIG;
	b->base = lo;
	return 0;
}

/* .eh_frame, else .debug_frame (decompressed); NULL when neither holds data. */
static Elf_Data *find_cfi(Elf *elf, struct builder *b)
{
	Elf_Scn *scn = NULL, *eh = NULL, *dbg = NULL;
	GElf_Shdr sh, eh_sh = {}, dbg_sh = {};
	size_t shstrndx;
	const char *name;
	Elf_Data *d;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		/* LLVM's linker types .eh_frame SHT_X86_64_UNWIND (psABI) */
		if (!gelf_getshdr(scn, &sh) || !sh.sh_size ||
		    (sh.sh_type != SHT_PROGBITS && sh.sh_type != SHT_X86_64_UNWIND))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".eh_frame")) {
			eh = scn;
			eh_sh = sh;
		} else if (name && !strcmp(name, ".debug_frame")) {
			dbg = scn;
			dbg_sh = sh;
		}
	}
	if (eh) {
		b->eh = true;
		b->sec.addr = eh_sh.sh_addr;
		scn = eh;
	} else if (dbg) {
		if ((dbg_sh.sh_flags & SHF_COMPRESSED) && elf_compress(dbg, 0, 0) < 0)
			return NULL;
		b->sec.addr = 0;
		scn = dbg;
	} else {
		return NULL;
	}
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size)
		return NULL;
	b->sec.data = d->d_buf;
	b->sec_size = d->d_size;
	return d;
}

/* An entry of the CFI section, as split by next_entry. */
struct entry {
	bool cie;
	uint64_t cie_off;   /* an FDE's CIE (an offset in the section) */
	const uint8_t *p;   /* an FDE's bytes after its CIE pointer ... */
	const uint8_t *end; /* ... up to its end */
};

/* A 4- or 8-byte word in the object's byte order (libdw reads a big-endian one so too). */
static inline uint64_t read_word(const uint8_t *p, size_t n, bool msb)
{
	uint32_t w;
	uint64_t v;

	if (n == 4) {
		memcpy(&w, p, 4);
		return msb ? __builtin_bswap32(w) : w;
	}
	memcpy(&v, p, 8);
	return msb ? __builtin_bswap64(v) : v;
}

/*
 * The entry at off, split as libdw's dwarf_next_cfi splits it (elfutils 0.188,
 * libdw/dwarf_next_cfi.c; the same checks, so the same entries and the same first malformed
 * one): 1 the end (the terminator, or fewer than 5 bytes left), -EINVAL a length or CIE pointer
 * that cannot be, 0 and *next the offset of the entry after it. Only the CIEs (a few) are then
 * read by dwarf_next_cfi; this split is a few loads an FDE, no call into libdw.
 */
static int next_entry(const struct builder *b, uint64_t off, bool msb, uint64_t *next,
		      struct entry *e)
{
	const uint8_t *p, *limit = b->sec.data + b->sec_size;
	uint64_t len, id;
	size_t osize = 4;

	if (off + 4 >= b->sec_size)
		return 1;
	p = b->sec.data + off;
	len = read_word(p, 4, msb);
	p += 4;
	if (len == 0xffffffffu) { /* the 64-bit format */
		osize = 8;
		if (limit - p < 8)
			return -EINVAL;
		len = read_word(p, 8, msb);
		p += 8;
	}
	if (!len)
		return 1;
	if ((uint64_t)(limit - p) < len || len < osize + 1)
		return -EINVAL;
	*next = off + (2 * osize - 4) + len;
	e->end = p + len;
	id = read_word(p, osize, msb);
	if (b->eh) {
		uint64_t pos = (uint64_t)(p - b->sec.data);

		e->cie = !id;
		if (!e->cie && (id > pos || pos <= osize))
			return -EINVAL;
		e->cie_off = pos - id;
	} else {
		e->cie = osize == 4 ? id == DW_CIE_ID_32 : id == DW_CIE_ID_64;
		e->cie_off = id;
	}
	e->p = p + osize;
	return 0;
}

/* An FDE whose CIE comes after it (.debug_frame allows that): read once all CIEs are known. */
struct later_fde {
	uint64_t cie_off;
	const uint8_t *p, *end;
};

/*
 * The CIEs and FDEs of the section, in one pass: an FDE's CIE comes before it as a rule (in
 * .eh_frame always), the others wait for the end. A malformed entry ends the pass (what came
 * before is kept, the rest counted in bytes_skipped), as it ended libdw's.
 */
static int read_entries(Elf *elf, Elf_Data *d, struct builder *b)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	bool msb = ident && ident[EI_DATA] == ELFDATA2MSB;
	struct later_fde *later = NULL;
	size_t nr_later = 0, cap_later = 0;
	Dwarf_Off off = 0, next = 0;
	struct entry e;
	int r, err = 0;

	b->released = 0;
	while (off < b->sec_size && !err) {
		release_cfi(b, off);
		r = next_entry(b, off, msb, &next, &e);
		if (!r && e.cie) {
			Dwarf_CFI_Entry ce;

			r = dwarf_next_cfi(ident, d, b->eh, off, &next, &ce);
			err = !r ? add_cie(b, off, &ce.cie) : 0;
		} else if (!r && e.cie_off < off) {
			err = add_fde(b, e.cie_off, e.p, e.end);
		} else if (!r) {
			if (nr_later == cap_later) {
				size_t cap = cap_later ? 2 * cap_later : 16;
				struct later_fde *n = realloc(later, cap * sizeof(*n));

				if (!n) {
					err = -ENOMEM;
					break;
				}
				later = n;
				cap_later = cap;
			}
			later[nr_later++] = (struct later_fde){e.cie_off, e.p, e.end};
		}
		if (r < 0) /* a malformed tail: keep what came before, say so */
			b->st->bytes_skipped = b->sec_size - off;
		if (r) /* 1: the terminator */
			break;
		off = next;
	}
	for (size_t i = 0; i < nr_later && !err; i++)
		err = add_fde(b, later[i].cie_off, later[i].p, later[i].end);
	free(later);
	if (err)
		return err;
	return b->nr_cies ? 0 : -EINVAL;
}

/* The BPF walker's binary search needs pcs strictly ascending: checked once more. */
static bool rows_ascending(const struct cp_unwind_row *rows, size_t n)
{
	bool desc = false;

	for (size_t i = 1; i < n; i++)
		desc |= rows[i].pc <= rows[i - 1].pc;
	return !desc;
}

/* The counts of the rows built (all emitted, when streamed) into st. */
static void count_rows(struct unwind_table_stats *st, const struct builder *b)
{
	st->end_func = b->by_type[CP_CFA_END_FUNC];
	st->end_stack = b->by_type[CP_CFA_END_STACK];
	st->plt = b->by_type[CP_CFA_PLT1] + b->by_type[CP_CFA_PLT2];
	st->signal = b->by_type[CP_CFA_SIGNAL];
	for (size_t i = CP_UNW_OK + 1; i < CP_UNW_MAX; i++)
		st->unsupported[i] = b->by_reason[i];
}

/*
 * The table of elf (NULL: not ELF), timed from t0; -errno as unwind_table__from_fd says. With
 * emit, its rows go there as they are built (the table keeps none).
 */
static int build(Elf *elf, const struct fmap *map, const struct gopclntab *const *gp, uint64_t t0,
		 size_t batch, unwind_rows_fn emit, void *emit_ctx, struct unwind_table **out)
{
	struct unwind_table *ut = calloc(1, sizeof(*ut));
	struct builder b = {.emit = emit, .emit_ctx = emit_ctx, .emit_at = batch + KEEP_ROWS};
	GElf_Ehdr eh;
	Elf_Data *d;
	int err;

	if (!ut)
		return -ENOMEM;
	b.st = &ut->st;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64 ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)) {
		err = -ENOEXEC;
		goto out;
	}
	err = read_segments(elf, &b);
	if (err)
		goto out;
	d = find_cfi(elf, &b);
	/*
	 * the section as the file has it (not inflated into memory), in a little-endian object,
	 * which libelf does not convert in place: its pages can be given back (release_cfi)
	 */
	b.release = d && map && map->p && eh.e_ident[EI_DATA] == ELFDATA2LSB &&
		    (const uint8_t *)d->d_buf >= (const uint8_t *)map->p &&
		    d->d_size <= map->size &&
		    (size_t)((const uint8_t *)d->d_buf - (const uint8_t *)map->p) <=
			    map->size - d->d_size;
	b.releases = 4 * (b.sec_size / RELEASE_STEP) + 16;
	/* Go code has no CFI (cgo programs: only their C code has); gp: read by the caller */
	b.gp = gp ? *gp : (b.gp_own = gopclntab__from_elf(elf));
	if (!d && !b.gp) {
		err = -ENODATA;
		goto out;
	}
	ut->st.debug_frame = d && !b.eh;
	err = d ? read_entries(elf, d, &b) : 0;
	if (err && !(err == -EINVAL && b.gp))
		goto out;
	/* offsets a row can hold (CP_GO_PACK), else no system stack rows */
	if (b.gp && !gopclntab__runtime_offsets(b.gp, &b.go_off) &&
	    b.go_off.m_curg <= CP_GO_MAX_OFF && b.go_off.m_vdsosp <= CP_GO_MAX_OFF &&
	    b.go_off.g_m <= 2040 && b.go_off.g_sched <= 2040 && b.go_off.gobuf_bp <= 56 &&
	    !(b.go_off.g_m % 8) && !(b.go_off.g_sched % 8) && !(b.go_off.gobuf_bp % 8))
		b.go_tls_slot = gopclntab__tls_slot(elf);
	err = b.gp ? add_go(&b) : 0;
	if (err)
		goto out;
	err = build_rows(&b);
	ut->st.raw_rows = b.raw_rows;
	if (!err && emit)
		err = emit_rows(&b, 0);
	if (err)
		goto out;
	if (!rows_ascending(b.rows, b.nr_rows)) {
		err = -EINVAL;
		goto out;
	}
	ut->st.rows += b.nr_rows;
	count_rows(&ut->st, &b);
	ut->base = b.base;
	ut->nr_rows = b.nr_rows;
	ut->rows = b.rows;
	b.rows = NULL;
	if (ut->nr_rows) {
		struct cp_unwind_row *fit = realloc(ut->rows, ut->nr_rows * sizeof(*fit));

		if (fit)
			ut->rows = fit;
	}
	ut->st.build_ns = monotonic_ns() - t0;
	*out = ut;
	ut = NULL;
out:
	gopclntab__free(b.gp_own);
	free(b.cies);
	free(b.fdes);
	free(b.rows);
	free(ut);
	return err;
}

struct unwind_table *unwind_table__stream_fd_go(int fd, struct go_tables *tables, size_t batch,
						unwind_rows_fn emit, void *ctx)
{
	uint64_t t0 = monotonic_ns();
	const struct gopclntab *gp = NULL;
	struct unwind_table *ut = NULL;
	struct elf_file ef;
	int err;

	elf_file_open(fd, &ef);
	/* the shared read: its failure (no Go table, or a file changed under it) is no table */
	if (tables && ef.elf)
		(void)go_tables__get_elf(tables, fd, &ef, &gp);
	err = build(ef.elf, &ef.map, tables ? &gp : NULL, t0, batch, emit, ctx, &ut);
	go_tables__put(tables, gp);
	/* what a truncation left of the file is zeros: nothing built from it is kept */
	if (!err && elf_file_changed(&ef)) {
		unwind_table__free(ut);
		ut = NULL;
		err = -ESTALE;
	}
	elf_file_close(&ef);
	if (err)
		errno = -err;
	return ut;
}

struct unwind_table *unwind_table__stream_fd(int fd, size_t batch, unwind_rows_fn emit, void *ctx)
{
	return unwind_table__stream_fd_go(fd, NULL, batch, emit, ctx);
}

struct unwind_table *unwind_table__from_fd(int fd)
{
	return unwind_table__stream_fd_go(fd, NULL, 0, NULL, NULL);
}

struct unwind_table *unwind_table__from_fd_go(int fd, struct go_tables *tables)
{
	return unwind_table__stream_fd_go(fd, tables, 0, NULL, NULL);
}

struct unwind_table *unwind_table__from_mem(const void *image, size_t size)
{
	uint64_t t0 = monotonic_ns();
	struct unwind_table *ut = NULL;
	void *copy;
	Elf *elf;
	int err;

	err = elf_image_open(image, size, &elf, &copy);
	if (!err)
		err = build(elf, NULL, NULL, t0, 0, NULL, NULL, &ut);
	elf_end(elf);
	free(copy);
	if (err)
		errno = -err;
	return ut;
}

void unwind_table__free(struct unwind_table *ut)
{
	if (!ut)
		return;
	free(ut->rows);
	free(ut);
}

const struct cp_unwind_row *unwind_table__rows(const struct unwind_table *ut, size_t *n)
{
	*n = ut->nr_rows;
	return ut->rows;
}

struct cp_unwind_row *unwind_table__take_rows(struct unwind_table *ut, size_t *n)
{
	struct cp_unwind_row *rows = ut->rows;

	*n = ut->nr_rows;
	ut->rows = NULL;
	ut->nr_rows = 0;
	return rows;
}

uint64_t unwind_table__base(const struct unwind_table *ut)
{
	return ut->base;
}

const struct cp_unwind_row *unwind_table__lookup(const struct unwind_table *ut, uint64_t vaddr)
{
	size_t lo = 0, hi = ut->nr_rows;
	uint64_t x;

	if (vaddr < ut->base || vaddr - ut->base > UINT32_MAX)
		return NULL;
	x = vaddr - ut->base;
	/* the first row with pc > x; the answer is the one before it */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ut->rows[mid].pc <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &ut->rows[lo - 1] : NULL;
}

void unwind_table__stats(const struct unwind_table *ut, struct unwind_table_stats *st)
{
	*st = ut->st;
}

const char *unwind_table_cfa_name(unsigned int cfa_type)
{
	static const char *const names[] = {
		[CP_CFA_UNSUPPORTED] = "unsupported",
		[CP_CFA_RSP] = "rsp",
		[CP_CFA_RBP] = "rbp",
		[CP_CFA_PLT1] = "plt1",
		[CP_CFA_PLT2] = "plt2",
		[CP_CFA_END_FUNC] = "end-func",
		[CP_CFA_END_STACK] = "end-stack",
		[CP_CFA_SIGNAL] = "signal",
		[CP_CFA_GO_SWITCH] = "go-switch",
	};

	return cfa_type < sizeof(names) / sizeof(names[0]) ? names[cfa_type] : "?";
}

const char *unwind_table_reason_name(unsigned int reason)
{
	static const char *const names[] = {
		[CP_UNW_OK] = "ok",
		[CP_UNW_CFA_REG] = "cfa-reg",
		[CP_UNW_CFA_EXPR] = "cfa-expr",
		[CP_UNW_RA] = "ra",
		[CP_UNW_RBP] = "rbp",
		[CP_UNW_SIGNAL] = "signal",
		[CP_UNW_RANGE] = "range",
		[CP_UNW_BAD_CFI] = "bad-cfi",
	};

	return reason < sizeof(names) / sizeof(names[0]) ? names[reason] : "?";
}
