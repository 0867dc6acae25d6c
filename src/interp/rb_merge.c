// SPDX-License-Identifier: GPL-2.0
#include "interp/rb_merge.h"

static void put(struct py_mframe *out, size_t max, size_t *n, enum py_mframe_kind kind,
		uint32_t index)
{
	if (*n >= max)
		return;
	out[*n].kind = kind;
	out[*n].index = index;
	(*n)++;
}

size_t rb_merge(const uint64_t *pcs, size_t npcs, const struct cp_rb_frame *rb, size_t nrb,
		bool rb_truncated, uint64_t vm_exec_start, uint64_t vm_exec_end,
		struct py_mframe *out, size_t max, struct py_merge_stats *stats)
{
	struct py_merge_stats st = {0, 0};
	size_t n = 0, i, ri = 0;
	bool marked = false;

	for (i = 0; i < npcs; i++) {
		/* a return address lies after its call: look up the call itself */
		uint64_t look = i ? pcs[i] - 1 : pcs[i];

		if (look < vm_exec_start || look >= vm_exec_end) {
			put(out, max, &n, PY_MF_NATIVE, (uint32_t)i);
			continue;
		}
		if (ri >= nrb) {
			/* the Ruby walk was cut before this activation's frames */
			if (rb_truncated && !marked) {
				put(out, max, &n, PY_MF_TRUNCATED, 0);
				marked = true;
			} else if (!rb_truncated) {
				st.eval_without_python++;
			}
			put(out, max, &n, PY_MF_NATIVE, (uint32_t)i);
			continue;
		}
		while (ri < nrb) {
			bool finish = rb[ri].flags & CP_RB_FF_FINISH;

			put(out, max, &n, PY_MF_PYTHON, (uint32_t)ri);
			ri++;
			if (finish)
				break;
		}
	}
	/* frames of activations the native walk did not reach: at the root side */
	if (ri < nrb)
		st.python_leftover += (unsigned int)(nrb - ri);
	for (; ri < nrb; ri++)
		put(out, max, &n, PY_MF_PYTHON, (uint32_t)ri);
	if (rb_truncated && !marked)
		put(out, max, &n, PY_MF_TRUNCATED, 0);
	if (stats) {
		stats->eval_without_python += st.eval_without_python;
		stats->python_leftover += st.python_leftover;
	}
	return n;
}
