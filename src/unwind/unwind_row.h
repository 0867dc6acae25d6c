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
#include <linux/types.h>
#include "unwind/cfi_eval.h"
#include "shared.h"

/*
 * The row for rules s of an FDE whose CIE has the 'S' augmentation when signal, and the return
 * address in column 16 when ra16.
 */
struct cp_unwind_row unwind_row_from_cfi(const struct cfi_state *s, bool signal, bool ra16);

/* A CP_CFA_UNSUPPORTED row for reason (enum cp_unwind_reason). */
struct cp_unwind_row unwind_row_unsupported(unsigned int reason);

#endif
