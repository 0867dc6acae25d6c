/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rules cfi_eval reports at one location, as the row of bpf/shared.h (struct
 * cp_unwind_row) the BPF walker steps with: CFA at rsp or rbp plus an offset, the return
 * address at CFA - 8, rbp unchanged or saved at CFA + N; binutils' lazy-PLT CFA expressions and
 * glibc's signal frame (__restore_rt) recognized. Any other rule makes a CP_CFA_UNSUPPORTED row
 * (or CP_RBP_UNSUPPORTED) with the reason. The row's pc is left 0: the caller places it.
 */
#ifndef CPUPROF_UNWIND_ROW_H
#define CPUPROF_UNWIND_ROW_H
#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include "unwind/cfi_eval.h"
#include "shared.h"

/* unwind_row_from_cfi for the rules the inline part below leaves to it */
struct cp_unwind_row unwind_row_from_cfi_rest(const struct cfi_state *s, bool signal, bool ra16);

/*
 * The row for rules s of an FDE whose CIE has the 'S' augmentation when signal, and the return
 * address in column 16 when ra16. Inline, the rules of nearly every row (a row per location
 * change: libLLVM's table is 950,000 rows): CFA = rsp or rbp + N, the return address at
 * CFA - 8, rbp unchanged or saved at CFA + M.
 */
static inline struct cp_unwind_row unwind_row_from_cfi(const struct cfi_state *s, bool signal,
						       bool ra16)
{
	if (!signal && ra16 && !s->cfa_expr &&
	    (s->cfa_reg == CFI_REG_RSP || s->cfa_reg == CFI_REG_RBP) && s->cfa_off >= INT32_MIN &&
	    s->cfa_off <= INT32_MAX && s->ra.kind == CFI_RULE_OFFSET && s->ra.off == -8) {
		struct cp_unwind_row r = {
			.cfa_type = s->cfa_reg == CFI_REG_RSP ? CP_CFA_RSP : CP_CFA_RBP,
			.cfa_off = (__s32)s->cfa_off,
		};

		if (s->rbp.kind == CFI_RULE_UNSET || s->rbp.kind == CFI_RULE_SAME)
			return r;
		if (s->rbp.kind == CFI_RULE_OFFSET && s->rbp.off >= INT32_MIN &&
		    s->rbp.off <= INT32_MAX) {
			r.rbp_type = CP_RBP_CFA_OFF;
			r.rbp_off = (__s32)s->rbp.off;
			return r;
		}
	}
	return unwind_row_from_cfi_rest(s, signal, ra16);
}

/* A CP_CFA_UNSUPPORTED row for reason (enum cp_unwind_reason). */
struct cp_unwind_row unwind_row_unsupported(unsigned int reason);

#endif
