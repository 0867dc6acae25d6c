/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DWARF call frame information of x86-64: the value encodings CFI is written in (LEB128,
 * little-endian fixed sizes, DW_EH_PE_* pointers) and the interpreter of CFA programs
 * (DW_CFA_*), which runs a CIE's initial instructions or an FDE's program once and reports the
 * rules in force at every location change. Only the CFA, rbp (DWARF register 6) and the return
 * address (column 16) are tracked, which is all a frame step on x86-64 needs.
 *
 * Nothing here knows ELF, the section layout of CIEs and FDEs, or the rows of bpf/shared.h.
 */
#ifndef CPUPROF_CFI_EVAL_H
#define CPUPROF_CFI_EVAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* DWARF register numbers of the System V x86-64 psABI ("DWARF Register Number Mapping") */
#define CFI_REG_RBP 6
#define CFI_REG_RSP 7
#define CFI_REG_RA  16

/* Reads [p, end); a read past end sets err, yields 0 and leaves p at end. */
struct cfi_cursor {
	const uint8_t *p;
	const uint8_t *end;
	bool err;
};

uint64_t cfi_read_fixed(struct cfi_cursor *c, size_t n); /* n <= 8 bytes, little-endian */
uint64_t cfi_read_uleb(struct cfi_cursor *c);
int64_t cfi_read_sleb(struct cfi_cursor *c);

/* The section being read and its address: pc-relative pointers are relative to their byte. */
struct cfi_section {
	const uint8_t *data;
	uint64_t addr;
};

/*
 * A pointer in encoding enc (DW_EH_PE_*). With sec the application (absolute or pc-relative;
 * only these occur in the CFI of x86-64 objects) is applied: -EOPNOTSUPP for others and for
 * indirection; with sec NULL the value is read as stored. -EINVAL: unknown format, or the
 * value runs past the cursor's end.
 */
int cfi_read_pointer(struct cfi_cursor *c, uint8_t enc, const struct cfi_section *sec,
		     uint64_t *val);

enum cfi_rule_kind {
	CFI_RULE_UNSET = 0, /* not mentioned: rbp is callee-saved, so "same value" */
	CFI_RULE_UNDEF,
	CFI_RULE_SAME,
	CFI_RULE_OFFSET, /* saved at CFA + off */
	CFI_RULE_VAL_OFFSET,
	CFI_RULE_REG,
	CFI_RULE_EXPR, /* saved at the address an expression computes */
	CFI_RULE_VAL_EXPR,
};

/* How to recover one register; expressions point into the program that set them. */
struct cfi_rule {
	int kind; /* enum cfi_rule_kind */
	int64_t off;
	const uint8_t *expr;
	size_t expr_len;
};

/* The rules in force at one location. */
struct cfi_state {
	bool cfa_expr; /* the CFA is computed by expr, not cfa_reg + cfa_off */
	uint64_t cfa_reg;
	int64_t cfa_off;
	const uint8_t *expr;
	size_t expr_len;
	struct cfi_rule rbp;
	struct cfi_rule ra;
};

/* What a program needs of its CIE. */
struct cfi_frame {
	uint64_t caf;		       /* code alignment factor */
	int64_t daf;		       /* data alignment factor */
	uint8_t enc;		       /* pointer encoding of DW_CFA_set_loc */
	const struct cfi_section *sec; /* the section the program is in */
	const struct cfi_state *init;  /* DW_CFA_restore's target; NULL in the CIE's own program */
};

/*
 * Called with the rules in force from pc on; a nonzero return stops the program and is
 * returned by cfi_eval.
 */
typedef int (*cfi_row_fn)(void *arg, uint64_t pc, const struct cfi_state *s);

/*
 * Run the program [p, end) on *s, in one pass. With row NULL (a CIE's initial instructions)
 * locations are ignored: *s ends as the state the program leaves. Otherwise the program is an
 * FDE's for [pc, hi): row is called at every location change below hi with the rules in force
 * from the old location, and once more at the end for the last rules; a later call may repeat
 * a pc (several advances of 0), the last one for a pc is in force. 0, row's error, or -EINVAL
 * when the program is malformed or not x86-64 CFI (the rows reported before then stand).
 */
int cfi_eval(const struct cfi_frame *f, const uint8_t *p, const uint8_t *end, struct cfi_state *s,
	     uint64_t pc, uint64_t hi, cfi_row_fn row, void *arg);

#endif
