// SPDX-License-Identifier: GPL-2.0
/*
 * CFI value readers and the DW_CFA_* interpreter: one pass of a CFA program, reporting the rules
 * at every location change (libdw's dwarf_cfi_addrframe re-runs an FDE's program for every
 * address). Sections are read as little-endian, as x86-64 is.
 */
#include <dwarf.h>
#include <errno.h>
#include <string.h>
#include "unwind/cfi_eval.h"
#include "util/leb128.h"

#define STATE_STACK 16 /* DW_CFA_remember_state depth; gcc nests one or two */

/* ---- byte readers -------------------------------------------------------------------------- */

uint64_t cfi_read_fixed(struct cfi_cursor *c, size_t n)
{
	uint64_t v = 0;

	if (n > sizeof(v) || (size_t)(c->end - c->p) < n) {
		c->err = true;
		c->p = c->end;
		return 0;
	}
	memcpy(&v, c->p, n); /* little-endian host and data */
	c->p += n;
	return v;
}

/* A truncated value reads as 0 (and sets c->err), as the CFI evaluator expects. */
uint64_t cfi_read_uleb(struct cfi_cursor *c)
{
	bool truncated = false;
	uint64_t v = leb128_u(&c->p, c->end, &truncated);

	c->err |= truncated;
	return truncated ? 0 : v;
}

int64_t cfi_read_sleb(struct cfi_cursor *c)
{
	bool truncated = false;
	int64_t v = leb128_s(&c->p, c->end, &truncated);

	c->err |= truncated;
	return truncated ? 0 : v;
}

int cfi_read_pointer(struct cfi_cursor *c, uint8_t enc, const struct cfi_section *sec,
		     uint64_t *val)
{
	const uint8_t *at = c->p;
	uint64_t v;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		v = cfi_read_fixed(c, 8);
		break;
	case DW_EH_PE_uleb128:
		v = cfi_read_uleb(c);
		break;
	case DW_EH_PE_udata2:
		v = cfi_read_fixed(c, 2);
		break;
	case DW_EH_PE_udata4:
		v = cfi_read_fixed(c, 4);
		break;
	case DW_EH_PE_sleb128:
		v = (uint64_t)cfi_read_sleb(c);
		break;
	case DW_EH_PE_sdata2:
		v = (uint64_t)(int64_t)(int16_t)cfi_read_fixed(c, 2);
		break;
	case DW_EH_PE_sdata4:
		v = (uint64_t)(int64_t)(int32_t)cfi_read_fixed(c, 4);
		break;
	default:
		return -EINVAL;
	}
	if (c->err)
		return -EINVAL;
	if (sec) {
		if (enc & DW_EH_PE_indirect)
			return -EOPNOTSUPP;
		switch (enc & 0x70) {
		case DW_EH_PE_absptr:
			break;
		case DW_EH_PE_pcrel:
			v += sec->addr + (uint64_t)(at - sec->data);
			break;
		default:
			return -EOPNOTSUPP;
		}
	}
	*val = v;
	return 0;
}

/*
 * The readers of the interpreter's operands: a one-byte LEB128 (nearly all of them) read here,
 * the others as above.
 */
static inline uint64_t op_uleb(struct cfi_cursor *c)
{
	if (c->p < c->end && !(*c->p & 0x80))
		return *c->p++;
	return cfi_read_uleb(c);
}

static inline int64_t op_sleb(struct cfi_cursor *c)
{
	if (c->p < c->end && !(*c->p & 0x80)) {
		uint8_t b = *c->p++;

		return b & 0x40 ? (int64_t)b - 0x80 : (int64_t)b;
	}
	return cfi_read_sleb(c);
}

/* ---- the CFA program --------------------------------------------------------------------- */

struct interp {
	struct cfi_state *s;
	uint64_t pc;
	uint64_t hi;
	cfi_row_fn row;
	void *arg;
	int err;
};

static struct cfi_rule *reg_rule(struct cfi_state *s, uint64_t reg)
{
	if (reg == CFI_REG_RBP)
		return &s->rbp;
	if (reg == CFI_REG_RA)
		return &s->ra;
	return NULL; /* not tracked */
}

/* DW_CFA_restore: back to the CIE's rule */
static void restore_rule(struct cfi_state *s, const struct cfi_state *init, uint64_t reg)
{
	struct cfi_rule *r = reg_rule(s, reg);

	if (r)
		*r = reg == CFI_REG_RBP ? init->rbp : init->ra;
}

static void set_rule(struct cfi_state *s, uint64_t reg, int kind, int64_t off, const uint8_t *e,
		     size_t len)
{
	struct cfi_rule *r = reg_rule(s, reg);

	if (r)
		*r = (struct cfi_rule){kind, off, e, len};
}

/*
 * An offset operand times the data alignment factor. Hostile CFI can hold any LEB128 value:
 * a product or negation that does not fit int64_t marks the program malformed (c->err)
 * instead of overflowing.
 */
static int64_t factored(struct cfi_cursor *c, int64_t v, int64_t daf)
{
	int64_t r;

	if (__builtin_mul_overflow(v, daf, &r)) {
		c->err = true;
		return 0;
	}
	return r;
}

/* An unsigned LEB128 operand as a signed offset, times daf (negated: neg). */
static int64_t factored_u(struct cfi_cursor *c, int64_t daf, bool neg)
{
	uint64_t u = op_uleb(c);
	int64_t v;

	if (u > INT64_MAX) {
		c->err = true;
		return 0;
	}
	v = (int64_t)u;
	return factored(c, neg ? -v : v, daf);
}

/*
 * Report the rules in force at the current pc, then move to a new location. Locations only
 * go forward: a DW_CFA_set_loc or an advance that wraps back is malformed CFI (it would give
 * rows out of order).
 */
static inline void advance_to(struct interp *in, uint64_t to)
{
	/* a CIE has no location; its advances are ignored rather than trusted */
	if (!in->row)
		return;
	if (!in->err && in->pc < in->hi)
		in->err = in->row(in->arg, in->pc, in->s);
	if (!in->err && to < in->pc)
		in->err = -EINVAL;
	in->pc = to;
}

int cfi_eval(const struct cfi_frame *f, const uint8_t *p, const uint8_t *end, struct cfi_state *s,
	     uint64_t pc, uint64_t hi, cfi_row_fn row, void *arg)
{
	struct cfi_state stack[STATE_STACK];
	struct interp in = {s, pc, hi, row, arg, 0};
	struct cfi_cursor c = {p, end, false};
	/* in the CIE's own program a restore has nothing to go back to */
	static const struct cfi_state none = {};
	const struct cfi_state *init = f->init ? f->init : &none;
	size_t depth = 0;
	uint64_t reg, v;
	int64_t off;

	while (c.p < c.end && !c.err && !in.err) {
		uint8_t op = *c.p++;

		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			advance_to(&in, in.pc + (op & 0x3f) * f->caf);
			continue;
		case DW_CFA_offset:
			off = factored_u(&c, f->daf, false);
			set_rule(s, op & 0x3f, CFI_RULE_OFFSET, off, NULL, 0);
			continue;
		case DW_CFA_restore:
			restore_rule(s, init, op & 0x3f);
			continue;
		}
		switch (op) {
		case DW_CFA_nop:
			break;
		case DW_CFA_GNU_args_size: /* stack adjustment for landing pads: not a rule */
			op_uleb(&c);
			break;
		case DW_CFA_set_loc:
			if (cfi_read_pointer(&c, f->enc, f->sec, &v))
				return -EINVAL;
			advance_to(&in, v);
			break;
		case DW_CFA_advance_loc1:
			advance_to(&in, in.pc + cfi_read_fixed(&c, 1) * f->caf);
			break;
		case DW_CFA_advance_loc2:
			advance_to(&in, in.pc + cfi_read_fixed(&c, 2) * f->caf);
			break;
		case DW_CFA_advance_loc4:
			advance_to(&in, in.pc + cfi_read_fixed(&c, 4) * f->caf);
			break;
		case DW_CFA_offset_extended:
			reg = op_uleb(&c);
			off = factored_u(&c, f->daf, false);
			set_rule(s, reg, CFI_RULE_OFFSET, off, NULL, 0);
			break;
		case DW_CFA_offset_extended_sf:
			reg = op_uleb(&c);
			off = factored(&c, op_sleb(&c), f->daf);
			set_rule(s, reg, CFI_RULE_OFFSET, off, NULL, 0);
			break;
		case DW_CFA_GNU_negative_offset_extended:
			reg = op_uleb(&c);
			off = factored_u(&c, f->daf, true);
			set_rule(s, reg, CFI_RULE_OFFSET, off, NULL, 0);
			break;
		case DW_CFA_val_offset:
			reg = op_uleb(&c);
			off = factored_u(&c, f->daf, false);
			set_rule(s, reg, CFI_RULE_VAL_OFFSET, off, NULL, 0);
			break;
		case DW_CFA_val_offset_sf:
			reg = op_uleb(&c);
			off = factored(&c, op_sleb(&c), f->daf);
			set_rule(s, reg, CFI_RULE_VAL_OFFSET, off, NULL, 0);
			break;
		case DW_CFA_restore_extended:
			restore_rule(s, init, op_uleb(&c));
			break;
		case DW_CFA_undefined:
			set_rule(s, op_uleb(&c), CFI_RULE_UNDEF, 0, NULL, 0);
			break;
		case DW_CFA_same_value:
			set_rule(s, op_uleb(&c), CFI_RULE_SAME, 0, NULL, 0);
			break;
		case DW_CFA_register:
			reg = op_uleb(&c);
			set_rule(s, reg, CFI_RULE_REG, (int64_t)op_uleb(&c), NULL, 0);
			break;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			reg = op_uleb(&c);
			v = op_uleb(&c);
			if (c.err || v > (uint64_t)(c.end - c.p))
				return -EINVAL;
			set_rule(s, reg,
				 op == DW_CFA_expression ? CFI_RULE_EXPR : CFI_RULE_VAL_EXPR, 0,
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
			s->cfa_reg = op_uleb(&c);
			s->cfa_off = factored_u(&c, 1, false);
			s->cfa_expr = false;
			break;
		case DW_CFA_def_cfa_sf:
			s->cfa_reg = op_uleb(&c);
			s->cfa_off = factored(&c, op_sleb(&c), f->daf);
			s->cfa_expr = false;
			break;
		case DW_CFA_def_cfa_register:
			s->cfa_reg = op_uleb(&c);
			s->cfa_expr = false;
			break;
		case DW_CFA_def_cfa_offset:
			s->cfa_off = factored_u(&c, 1, false);
			break;
		case DW_CFA_def_cfa_offset_sf:
			s->cfa_off = factored(&c, op_sleb(&c), f->daf);
			break;
		case DW_CFA_def_cfa_expression:
			v = op_uleb(&c);
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
