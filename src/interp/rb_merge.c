// SPDX-License-Identifier: GPL-2.0
#include "interp/rb_merge.h"

static bool rb_finish(const void *frames, size_t i)
{
	return ((const struct cp_rb_frame *)frames)[i].flags & CP_RB_FF_FINISH;
}

size_t rb_merge(const uint64_t *pcs, size_t npcs, const struct cp_rb_frame *rb, size_t nrb,
		bool rb_truncated, uint64_t vm_exec_start, uint64_t vm_exec_end,
		struct py_mframe *out, size_t max, struct py_merge_stats *stats)
{
	const struct py_eval_range vm = {vm_exec_start, vm_exec_end, 0, 0};

	return interp_merge(pcs, npcs, nrb, rb_finish, rb, rb_truncated, &vm, out, max, stats);
}
