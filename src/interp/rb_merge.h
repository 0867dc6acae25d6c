/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interleaving a sample's Ruby frames with its native frames, the way py_merge does for
 * Python: walking the native stack leaf to root, each frame whose pc lies in rb_vm_exec (one
 * activation per entry of C code into the VM) is replaced by the Ruby frames that activation
 * ran: from the Ruby cursor up to and including the next frame flagged CP_RB_FF_FINISH (the
 * frame C code entered the VM with). So a C method called from Ruby (Integer#times, a C
 * extension) stays under the Ruby method that called it, and the blocks it yields to under it.
 */
#ifndef CPUPROF_RB_MERGE_H
#define CPUPROF_RB_MERGE_H
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "interp/py_merge.h"
#include "ruby_shared.h"

/*
 * Merge native pcs (leaf first; pcs[0] the exact pc sampled, the others return addresses) with
 * Ruby frames rb (innermost first, as the walker records them; rb_truncated: its walk was cut)
 * into out (max entries, leaf first; PY_MF_PYTHON entries index rb), rb_vm_exec being
 * [vm_exec_start, vm_exec_end). Returns the number of entries written; *stats (may be NULL) is
 * added to (eval_without_python: rb_vm_exec frames left without Ruby frames).
 */
size_t rb_merge(const uint64_t *pcs, size_t npcs, const struct cp_rb_frame *rb, size_t nrb,
		bool rb_truncated, uint64_t vm_exec_start, uint64_t vm_exec_end,
		struct py_mframe *out, size_t max, struct py_merge_stats *stats);

#endif
