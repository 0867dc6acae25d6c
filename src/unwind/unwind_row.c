// SPDX-License-Identifier: GPL-2.0
/*
 * CFI rules -> struct cp_unwind_row: what the BPF walker can follow, and why it cannot follow
 * the rest.
 */
#include <dwarf.h>
#include <string.h>
#include "unwind/unwind_row.h"

struct cp_unwind_row unwind_row_unsupported(unsigned int reason)
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
	struct cfi_cursor c = {p, p + len, false};

	if (!len || cfi_read_fixed(&c, 1) != DW_OP_breg7)
		return false;
	*n = cfi_read_sleb(&c);
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
static struct cp_unwind_row signal_row(const struct cfi_state *s)
{
	struct cp_unwind_row r = {.cfa_type = CP_CFA_SIGNAL};
	int64_t cfa, rbp, rip;

	if (!s->cfa_expr || !rsp_plus(s->expr, s->expr_len, true, &cfa) ||
	    s->rbp.kind != CFI_RULE_EXPR || !rsp_plus(s->rbp.expr, s->rbp.expr_len, false, &rbp) ||
	    s->ra.kind != CFI_RULE_EXPR || !rsp_plus(s->ra.expr, s->ra.expr_len, false, &rip) ||
	    rip != CP_SIGFRAME_RIP_OFF)
		return unwind_row_unsupported(CP_UNW_SIGNAL);
	r.cfa_off = (__s32)cfa;
	r.rbp_off = (__s32)rbp;
	return r;
}

struct cp_unwind_row unwind_row_from_cfi_rest(const struct cfi_state *s, bool signal, bool ra16)
{
	struct cp_unwind_row r = {};

	if (s->ra.kind == CFI_RULE_UNDEF)
		return (struct cp_unwind_row){.cfa_type = CP_CFA_END_STACK};
	if (signal)
		return signal_row(s);
	if (s->cfa_expr) {
		r.cfa_type = (__u8)plt_kind(s->expr, s->expr_len, &r.cfa_off);
		if (!r.cfa_type)
			return unwind_row_unsupported(CP_UNW_CFA_EXPR);
	} else if (s->cfa_reg == CFI_REG_RSP || s->cfa_reg == CFI_REG_RBP) {
		if (!fits_s32(s->cfa_off))
			return unwind_row_unsupported(CP_UNW_RANGE);
		r.cfa_type = s->cfa_reg == CFI_REG_RSP ? CP_CFA_RSP : CP_CFA_RBP;
		r.cfa_off = (__s32)s->cfa_off;
	} else {
		return unwind_row_unsupported(CP_UNW_CFA_REG);
	}
	if (!ra16 || s->ra.kind != CFI_RULE_OFFSET || s->ra.off != -8)
		return unwind_row_unsupported(CP_UNW_RA);
	switch (s->rbp.kind) {
	case CFI_RULE_UNSET:
	case CFI_RULE_SAME:
		break;
	case CFI_RULE_OFFSET:
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
