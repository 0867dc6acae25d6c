// SPDX-License-Identifier: GPL-2.0
/*
 * .eh_frame / .debug_frame -> struct cp_unwind_row, x86-64 only.
 *
 * dwarf_next_cfi splits the section into CIEs and FDEs; everything after that is done here:
 * the augmentation and pointer encodings, and one pass of each FDE's CFA program that emits a
 * row at every location change. Only the CFA, rbp (DWARF register 6) and the return address
 * (column 16) are tracked, which is all a frame step on x86-64 needs. Sections are read as
 * little-endian, as x86-64 is.
 */
#include <dwarf.h>
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <elfutils/libdw.h>
#include "unwind_table.h"

/* DWARF register numbers of the System V x86-64 psABI ("DWARF Register Number Mapping") */
#define REG_RBP	    6
#define REG_RSP	    7
#define REG_RA	    16

#define STATE_STACK 16 /* DW_CFA_remember_state depth; gcc nests one or two */
#define MAX_SEGS    16

enum rule_kind {
	RULE_UNSET = 0, /* not mentioned: rbp is callee-saved, so "same value" */
	RULE_UNDEF,
	RULE_SAME,
	RULE_OFFSET, /* saved at CFA + off */
	RULE_VAL_OFFSET,
	RULE_REG,
	RULE_EXPR, /* saved at the address an expression computes */
	RULE_VAL_EXPR,
};

struct rule {
	int kind;
	int64_t off;
	const uint8_t *expr;
	size_t expr_len;
};

struct cfa_state {
	bool cfa_expr;
	uint64_t cfa_reg;
	int64_t cfa_off;
	const uint8_t *expr;
	size_t expr_len;
	struct rule rbp;
	struct rule ra;
};

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
	struct cfa_state init;
};

struct fde {
	uint64_t lo;
	uint64_t hi;
	const uint8_t *insn;
	const uint8_t *end;
	size_t cie;
};

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
	const uint8_t *sec;
	size_t sec_size;
	uint64_t sec_addr; /* sh_addr: pcrel pointers are relative to it */
	bool eh;
	struct cie *cies;
	size_t nr_cies, cap_cies;
	struct fde *fdes;
	size_t nr_fdes, cap_fdes;
	struct cp_unwind_row *rows;
	size_t nr_rows, cap_rows;
	struct seg segs[MAX_SEGS]; /* executable PT_LOADs */
	size_t nr_segs;
	uint64_t base;
	struct unwind_table_stats *st;
};

struct cursor {
	const uint8_t *p;
	const uint8_t *end;
	bool err;
};

/* ---- byte readers -------------------------------------------------------------------------- */

static uint64_t rd_fixed(struct cursor *c, size_t n)
{
	uint64_t v = 0;

	if ((size_t)(c->end - c->p) < n) {
		c->err = true;
		c->p = c->end;
		return 0;
	}
	memcpy(&v, c->p, n); /* little-endian host and data */
	c->p += n;
	return v;
}

static uint64_t rd_uleb(struct cursor *c)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (c->p < c->end) {
		uint8_t b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	c->err = true;
	return 0;
}

static int64_t rd_sleb(struct cursor *c)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	uint8_t b = 0;

	while (c->p < c->end) {
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~0ULL << shift;
			return (int64_t)v;
		}
	}
	c->err = true;
	return 0;
}

/*
 * A pointer in encoding enc (DW_EH_PE_*). Only absolute and pc-relative values occur in the
 * CFI of x86-64 objects; other applications and indirection fail the entry.
 */
static int rd_encoded(const struct builder *b, struct cursor *c, uint8_t enc, bool apply,
		      uint64_t *val)
{
	const uint8_t *at = c->p;
	uint64_t v;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		v = rd_fixed(c, 8);
		break;
	case DW_EH_PE_uleb128:
		v = rd_uleb(c);
		break;
	case DW_EH_PE_udata2:
		v = rd_fixed(c, 2);
		break;
	case DW_EH_PE_udata4:
		v = rd_fixed(c, 4);
		break;
	case DW_EH_PE_sleb128:
		v = (uint64_t)rd_sleb(c);
		break;
	case DW_EH_PE_sdata2:
		v = (uint64_t)(int64_t)(int16_t)rd_fixed(c, 2);
		break;
	case DW_EH_PE_sdata4:
		v = (uint64_t)(int64_t)(int32_t)rd_fixed(c, 4);
		break;
	default:
		return -EINVAL;
	}
	if (c->err)
		return -EINVAL;
	if (apply) {
		if (enc & DW_EH_PE_indirect)
			return -EOPNOTSUPP;
		switch (enc & 0x70) {
		case DW_EH_PE_absptr:
			break;
		case DW_EH_PE_pcrel:
			v += b->sec_addr + (uint64_t)(at - b->sec);
			break;
		default:
			return -EOPNOTSUPP;
		}
	}
	*val = v;
	return 0;
}

/* ---- CIEs -------------------------------------------------------------------------------- */

static int run_program(struct builder *b, const struct cie *cie, struct cfa_state *s,
		       const uint8_t *p, const uint8_t *end, uint64_t pc, uint64_t hi, bool emit);

/* The augmentation string and data of an .eh_frame CIE: 'R', and the letters before it. */
static void parse_augmentation(const struct builder *b, struct cie *cie, const Dwarf_CIE *e)
{
	struct cursor c = {e->augmentation_data, e->augmentation_data + e->augmentation_data_size,
			   false};
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
			cie->enc = (uint8_t)rd_fixed(&c, 1);
			break;
		case 'P': /* personality routine: an encoded pointer, skipped */
			if (rd_encoded(b, &c, (uint8_t)rd_fixed(&c, 1), false, &dummy))
				cie->bad = true;
			break;
		case 'L': /* LSDA encoding byte */
			rd_fixed(&c, 1);
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

static int add_cie(struct builder *b, Dwarf_Off off, const Dwarf_CIE *e)
{
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
	cie->ra16 = e->return_address_register == REG_RA;
	parse_augmentation(b, cie, e);
	if (!cie->bad && run_program(b, cie, &cie->init, e->initial_instructions,
				     e->initial_instructions_end, 0, 0, false))
		cie->bad_init = true;
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

static int add_fde(struct builder *b, const Dwarf_FDE *e)
{
	struct cursor c = {e->start, e->end, false};
	const struct cie *cie;
	uint64_t lo, len, aug;
	size_t ci;

	cie = find_cie(b, e->CIE_pointer, &ci);
	if (!cie || cie->bad) {
		b->st->fdes_skipped++;
		return 0;
	}
	if (rd_encoded(b, &c, cie->enc, true, &lo) || rd_encoded(b, &c, cie->enc, false, &len)) {
		b->st->fdes_skipped++;
		return 0;
	}
	if (cie->z) {
		aug = rd_uleb(&c);
		if (aug > (uint64_t)(c.end - c.p))
			c.err = true;
		else
			c.p += aug;
	}
	/* empty, or for code that is not loaded (discarded sections in .debug_frame) */
	if (c.err || !len || lo + len < lo || !in_exec_segment(b, lo) ||
	    lo + len - b->base > UINT32_MAX) {
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
	b->fdes[b->nr_fdes++] = (struct fde){lo, lo + len, c.p, c.end, ci};
	return 0;
}

static int cmp_fde(const void *x, const void *y)
{
	const struct fde *a = x, *b = y;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->hi != b->hi)
		return a->hi > b->hi ? -1 : 1; /* the longer one first, the other overlaps it */
	return a->insn < b->insn ? -1 : a->insn > b->insn;
}

/* ---- rows -------------------------------------------------------------------------------- */

static bool same_rule(const struct cp_unwind_row *a, const struct cp_unwind_row *b)
{
	return a->cfa_type == b->cfa_type && a->rbp_type == b->rbp_type &&
	       a->cfa_off == b->cfa_off && a->rbp_off == b->rbp_off && a->reason == b->reason;
}

/* Append a row at vaddr: a later row at the same pc replaces it, an unchanged rule is dropped. */
static int push_row(struct builder *b, uint64_t vaddr, struct cp_unwind_row r)
{
	r.pc = (uint32_t)(vaddr - b->base);
	b->st->raw_rows++;
	if (b->nr_rows && b->rows[b->nr_rows - 1].pc == r.pc)
		b->nr_rows--;
	if (b->nr_rows && same_rule(&b->rows[b->nr_rows - 1], &r))
		return 0;
	if (b->nr_rows == b->cap_rows) {
		size_t cap = b->cap_rows ? 2 * b->cap_rows : 1024;
		struct cp_unwind_row *n = realloc(b->rows, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		b->rows = n;
		b->cap_rows = cap;
	}
	b->rows[b->nr_rows++] = r;
	return 0;
}

static struct cp_unwind_row unsupported(unsigned int reason)
{
	return (struct cp_unwind_row){.cfa_type = CP_CFA_UNSUPPORTED, .reason = (__u8)reason};
}

static bool fits_s32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* The expression is exactly DW_OP_breg7 (rsp) N [then DW_OP_deref when deref]. */
static bool rsp_plus(const uint8_t *p, size_t len, bool deref, int64_t *n)
{
	struct cursor c = {p, p + len, false};

	if (!len || rd_fixed(&c, 1) != DW_OP_breg7)
		return false;
	*n = rd_sleb(&c);
	if (deref && (c.p == c.end || *c.p++ != DW_OP_deref))
		return false;
	return !c.err && c.p == c.end && fits_s32(*n);
}

/*
 * The CFA expressions of binutils' lazy .plt FDEs (elf64-x86-64.c), DW_OP_nop padding removed:
 * breg7 8; breg16 0; lit15; and; litN; ge; lit3; shl; plus -- N is the entry offset after the
 * push: 11 in the classic PLT, 10 or 9 (binutils 2.40) in the IBT one. *n gets N.
 */
static int plt_kind(const uint8_t *p, size_t len, int32_t *n)
{
	static const uint8_t plt[] = {DW_OP_breg7, 8,	      DW_OP_breg16, 0,
				      DW_OP_lit15, DW_OP_and, DW_OP_lit0,   DW_OP_ge,
				      DW_OP_lit3,  DW_OP_shl, DW_OP_plus};
	uint8_t buf[sizeof(plt)];
	size_t k = 0;

	for (size_t i = 0; i < len; i++) {
		if (p[i] == DW_OP_nop)
			continue;
		if (k == sizeof(buf))
			return 0;
		buf[k++] = p[i];
	}
	if (k != sizeof(plt) || memcmp(buf, plt, 6) || memcmp(buf + 7, plt + 7, sizeof(plt) - 7))
		return 0;
	*n = buf[6] - DW_OP_lit0;
	if (*n == 11)
		return CP_CFA_PLT1;
	if (*n == 10 || *n == 9)
		return CP_CFA_PLT2;
	return 0;
}

/* glibc's __restore_rt: CFA = *(rsp + a), rbp at rsp + b, rip at rsp + CP_SIGFRAME_RIP_OFF. */
static struct cp_unwind_row signal_row(const struct cfa_state *s)
{
	struct cp_unwind_row r = {.cfa_type = CP_CFA_SIGNAL};
	int64_t cfa, rbp, rip;

	if (!s->cfa_expr || !rsp_plus(s->expr, s->expr_len, true, &cfa) ||
	    s->rbp.kind != RULE_EXPR || !rsp_plus(s->rbp.expr, s->rbp.expr_len, false, &rbp) ||
	    s->ra.kind != RULE_EXPR || !rsp_plus(s->ra.expr, s->ra.expr_len, false, &rip) ||
	    rip != CP_SIGFRAME_RIP_OFF)
		return unsupported(CP_UNW_SIGNAL);
	r.cfa_off = (__s32)cfa;
	r.rbp_off = (__s32)rbp;
	return r;
}

static struct cp_unwind_row to_row(const struct cie *cie, const struct cfa_state *s)
{
	struct cp_unwind_row r = {};

	if (s->ra.kind == RULE_UNDEF)
		return (struct cp_unwind_row){.cfa_type = CP_CFA_END_STACK};
	if (cie->signal)
		return signal_row(s);
	if (s->cfa_expr) {
		r.cfa_type = (__u8)plt_kind(s->expr, s->expr_len, &r.cfa_off);
		if (!r.cfa_type)
			return unsupported(CP_UNW_CFA_EXPR);
	} else if (s->cfa_reg == REG_RSP || s->cfa_reg == REG_RBP) {
		if (!fits_s32(s->cfa_off))
			return unsupported(CP_UNW_RANGE);
		r.cfa_type = s->cfa_reg == REG_RSP ? CP_CFA_RSP : CP_CFA_RBP;
		r.cfa_off = (__s32)s->cfa_off;
	} else {
		return unsupported(CP_UNW_CFA_REG);
	}
	if (!cie->ra16 || s->ra.kind != RULE_OFFSET || s->ra.off != -8)
		return unsupported(CP_UNW_RA);
	switch (s->rbp.kind) {
	case RULE_UNSET:
	case RULE_SAME:
		break;
	case RULE_OFFSET:
		if (fits_s32(s->rbp.off)) {
			r.rbp_type = CP_RBP_CFA_OFF;
			r.rbp_off = (__s32)s->rbp.off;
		} else {
			r.rbp_type = CP_RBP_UNSUPPORTED;
			r.reason = CP_UNW_RANGE;
		}
		break;
	default: /* undefined, register, expressions, val_offset: not a caller rbp we can read */
		r.rbp_type = CP_RBP_UNSUPPORTED;
		r.reason = CP_UNW_RBP;
		break;
	}
	return r;
}

/* ---- the CFA program --------------------------------------------------------------------- */

struct interp {
	struct builder *b;
	const struct cie *cie;
	struct cfa_state *s;
	uint64_t pc;
	uint64_t hi;
	bool emit;
	int err;
};

static struct rule *reg_rule(struct cfa_state *s, uint64_t reg)
{
	if (reg == REG_RBP)
		return &s->rbp;
	if (reg == REG_RA)
		return &s->ra;
	return NULL; /* not tracked */
}

/* DW_CFA_restore: back to the CIE's rule */
static void restore_rule(struct cfa_state *s, const struct cfa_state *init, uint64_t reg)
{
	struct rule *r = reg_rule(s, reg);

	if (r)
		*r = reg == REG_RBP ? init->rbp : init->ra;
}

static void set_rule(struct cfa_state *s, uint64_t reg, int kind, int64_t off, const uint8_t *e,
		     size_t len)
{
	struct rule *r = reg_rule(s, reg);

	if (r)
		*r = (struct rule){kind, off, e, len};
}

/* Emit the row in force at the current pc, then move to pc + delta. */
static void advance_to(struct interp *in, uint64_t to)
{
	if (in->emit && in->pc < in->hi && !in->err)
		in->err = push_row(in->b, in->pc, to_row(in->cie, in->s));
	/* a CIE has no location; its advances are ignored rather than trusted */
	if (in->emit)
		in->pc = to;
}

static int run_program(struct builder *b, const struct cie *cie, struct cfa_state *s,
		       const uint8_t *p, const uint8_t *end, uint64_t pc, uint64_t hi, bool emit)
{
	struct cfa_state stack[STATE_STACK];
	struct interp in = {b, cie, s, pc, hi, emit, 0};
	struct cursor c = {p, end, false};
	/* in the CIE's own program a restore has nothing to go back to */
	struct cfa_state none = {};
	const struct cfa_state *init = emit ? &cie->init : &none;
	size_t depth = 0;
	uint64_t reg, v;
	int64_t off;

	while (c.p < c.end && !c.err && !in.err) {
		uint8_t op = *c.p++;

		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			advance_to(&in, in.pc + (op & 0x3f) * cie->caf);
			continue;
		case DW_CFA_offset:
			off = (int64_t)rd_uleb(&c) * cie->daf;
			set_rule(s, op & 0x3f, RULE_OFFSET, off, NULL, 0);
			continue;
		case DW_CFA_restore:
			restore_rule(s, init, op & 0x3f);
			continue;
		}
		switch (op) {
		case DW_CFA_nop:
			break;
		case DW_CFA_GNU_args_size: /* stack adjustment for landing pads: not a rule */
			rd_uleb(&c);
			break;
		case DW_CFA_set_loc:
			if (rd_encoded(b, &c, cie->enc, true, &v))
				return -EINVAL;
			advance_to(&in, v);
			break;
		case DW_CFA_advance_loc1:
			advance_to(&in, in.pc + rd_fixed(&c, 1) * cie->caf);
			break;
		case DW_CFA_advance_loc2:
			advance_to(&in, in.pc + rd_fixed(&c, 2) * cie->caf);
			break;
		case DW_CFA_advance_loc4:
			advance_to(&in, in.pc + rd_fixed(&c, 4) * cie->caf);
			break;
		case DW_CFA_offset_extended:
			reg = rd_uleb(&c);
			set_rule(s, reg, RULE_OFFSET, (int64_t)rd_uleb(&c) * cie->daf, NULL, 0);
			break;
		case DW_CFA_offset_extended_sf:
			reg = rd_uleb(&c);
			set_rule(s, reg, RULE_OFFSET, rd_sleb(&c) * cie->daf, NULL, 0);
			break;
		case DW_CFA_GNU_negative_offset_extended:
			reg = rd_uleb(&c);
			set_rule(s, reg, RULE_OFFSET, -(int64_t)rd_uleb(&c) * cie->daf, NULL, 0);
			break;
		case DW_CFA_val_offset:
			reg = rd_uleb(&c);
			set_rule(s, reg, RULE_VAL_OFFSET, (int64_t)rd_uleb(&c) * cie->daf, NULL, 0);
			break;
		case DW_CFA_val_offset_sf:
			reg = rd_uleb(&c);
			set_rule(s, reg, RULE_VAL_OFFSET, rd_sleb(&c) * cie->daf, NULL, 0);
			break;
		case DW_CFA_restore_extended:
			restore_rule(s, init, rd_uleb(&c));
			break;
		case DW_CFA_undefined:
			set_rule(s, rd_uleb(&c), RULE_UNDEF, 0, NULL, 0);
			break;
		case DW_CFA_same_value:
			set_rule(s, rd_uleb(&c), RULE_SAME, 0, NULL, 0);
			break;
		case DW_CFA_register:
			reg = rd_uleb(&c);
			set_rule(s, reg, RULE_REG, (int64_t)rd_uleb(&c), NULL, 0);
			break;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			reg = rd_uleb(&c);
			v = rd_uleb(&c);
			if (c.err || v > (uint64_t)(c.end - c.p))
				return -EINVAL;
			set_rule(s, reg, op == DW_CFA_expression ? RULE_EXPR : RULE_VAL_EXPR, 0,
				 c.p, v);
			c.p += v;
			break;
		case DW_CFA_remember_state:
			/* the whole row, CFA included, as gcc's epilogues expect */
			if (depth == STATE_STACK)
				return -EINVAL;
			stack[depth++] = *s;
			break;
		case DW_CFA_restore_state:
			if (!depth)
				return -EINVAL;
			*s = stack[--depth];
			break;
		case DW_CFA_def_cfa:
			s->cfa_reg = rd_uleb(&c);
			s->cfa_off = (int64_t)rd_uleb(&c);
			s->cfa_expr = false;
			break;
		case DW_CFA_def_cfa_sf:
			s->cfa_reg = rd_uleb(&c);
			s->cfa_off = rd_sleb(&c) * cie->daf;
			s->cfa_expr = false;
			break;
		case DW_CFA_def_cfa_register:
			s->cfa_reg = rd_uleb(&c);
			s->cfa_expr = false;
			break;
		case DW_CFA_def_cfa_offset:
			s->cfa_off = (int64_t)rd_uleb(&c);
			break;
		case DW_CFA_def_cfa_offset_sf:
			s->cfa_off = rd_sleb(&c) * cie->daf;
			break;
		case DW_CFA_def_cfa_expression:
			v = rd_uleb(&c);
			if (c.err || v > (uint64_t)(c.end - c.p))
				return -EINVAL;
			s->cfa_expr = true;
			s->expr = c.p;
			s->expr_len = v;
			c.p += v;
			break;
		default: /* DW_CFA_GNU_window_save and anything unknown: not x86-64 CFI */
			return -EINVAL;
		}
	}
	if (c.err)
		return -EINVAL;
	if (in.err)
		return in.err;
	advance_to(&in, in.hi); /* the last row runs to the end of the function */
	return in.err;
}

/* Rows of one FDE, then an end row where the next function does not start right away. */
static int build_fde(struct builder *b, const struct fde *f)
{
	const struct cie *cie = &b->cies[f->cie];
	size_t mark = b->nr_rows;
	struct cfa_state s = cie->init;
	int err = -EINVAL;

	if (!cie->bad_init)
		err = run_program(b, cie, &s, f->insn, f->end, f->lo, f->hi, true);
	if (err == -ENOMEM)
		return err;
	if (err) {
		/* rows before mark have pcs below f->lo: push_row left them alone */
		b->nr_rows = mark;
		err = push_row(b, f->lo, unsupported(CP_UNW_BAD_CFI));
	}
	return err;
}

static int build_rows(struct builder *b)
{
	uint64_t end = 0;
	int err;

	qsort(b->fdes, b->nr_fdes, sizeof(*b->fdes), cmp_fde);
	for (size_t i = 0; i < b->nr_fdes; i++) {
		const struct fde *f = &b->fdes[i];

		if (i && f->lo < end) {
			b->st->fdes_skipped++; /* overlaps the previous function: first one wins */
			continue;
		}
		if (i && f->lo > end) {
			err = push_row(b, end, (struct cp_unwind_row){.cfa_type = CP_CFA_END_FUNC});
			if (err)
				return err;
		}
		err = build_fde(b, f);
		if (err)
			return err;
		b->st->fdes++;
		end = f->hi;
	}
	if (b->nr_fdes)
		return push_row(b, end, (struct cp_unwind_row){.cfa_type = CP_CFA_END_FUNC});
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
		b->sec_addr = eh_sh.sh_addr;
		scn = eh;
	} else if (dbg) {
		if ((dbg_sh.sh_flags & SHF_COMPRESSED) && elf_compress(dbg, 0, 0) < 0)
			return NULL;
		b->sec_addr = 0;
		scn = dbg;
	} else {
		return NULL;
	}
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size)
		return NULL;
	b->sec = d->d_buf;
	b->sec_size = d->d_size;
	return d;
}

/* CIEs first (FDEs point back at them), then the FDEs. */
static int read_entries(Elf *elf, Elf_Data *d, struct builder *b)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);

	for (int pass = 0; pass < 2; pass++) {
		Dwarf_Off off = 0, next;
		Dwarf_CFI_Entry e;
		int r, err;

		while (off < b->sec_size) {
			r = dwarf_next_cfi(ident, d, b->eh, off, &next, &e);
			if (r) /* 1: the terminator; -1: a malformed tail, keep what came before */
				break;
			if (dwarf_cfi_cie_p(&e))
				err = pass ? 0 : add_cie(b, off, &e.cie);
			else
				err = pass ? add_fde(b, &e.fde) : 0;
			if (err)
				return err;
			off = next;
		}
	}
	return b->nr_cies ? 0 : -EINVAL;
}

static void count_rows(struct unwind_table *ut)
{
	struct unwind_table_stats *st = &ut->st;

	st->rows = ut->nr_rows;
	for (size_t i = 0; i < ut->nr_rows; i++) {
		const struct cp_unwind_row *r = &ut->rows[i];

		switch (r->cfa_type) {
		case CP_CFA_END_FUNC:
			st->end_func++;
			break;
		case CP_CFA_END_STACK:
			st->end_stack++;
			break;
		case CP_CFA_PLT1:
		case CP_CFA_PLT2:
			st->plt++;
			break;
		case CP_CFA_SIGNAL:
			st->signal++;
			break;
		}
		if (r->reason && r->reason < CP_UNW_MAX)
			st->unsupported[r->reason]++;
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct unwind_table *unwind_table__from_fd(int fd)
{
	uint64_t t0 = now_ns();
	struct unwind_table *ut = calloc(1, sizeof(*ut));
	struct builder b = {};
	GElf_Ehdr eh;
	Elf_Data *d;
	Elf *elf = NULL;
	int err;

	if (!ut)
		return NULL;
	b.st = &ut->st;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
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
	if (!d) {
		err = -ENODATA;
		goto out;
	}
	ut->st.debug_frame = !b.eh;
	err = read_entries(elf, d, &b);
	if (err)
		goto out;
	err = build_rows(&b);
	if (err)
		goto out;
	ut->base = b.base;
	ut->nr_rows = b.nr_rows;
	ut->rows = b.rows;
	b.rows = NULL;
	if (ut->nr_rows) {
		struct cp_unwind_row *fit = realloc(ut->rows, ut->nr_rows * sizeof(*fit));

		if (fit)
			ut->rows = fit;
	}
	count_rows(ut);
	ut->st.build_ns = now_ns() - t0;
out:
	elf_end(elf);
	free(b.cies);
	free(b.fdes);
	free(b.rows);
	if (err) {
		free(ut);
		errno = -err;
		return NULL;
	}
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
