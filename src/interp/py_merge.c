// SPDX-License-Identifier: GPL-2.0
#include "interp/py_merge.h"

static bool in_eval(const struct py_eval_range *e, uint64_t pc)
{
	return (pc >= e->start && pc < e->end) ||
	       (e->cold_start && pc >= e->cold_start && pc < e->cold_end);
}

static void put(struct py_mframe *out, size_t max, size_t *n, enum py_mframe_kind kind,
		uint32_t index)
{
	if (*n >= max)
		return;
	out[*n].kind = kind;
	out[*n].index = index;
	(*n)++;
}

size_t interp_merge(const uint64_t *pcs, size_t npcs, size_t nframes,
		    bool (*is_entry)(const void *frames, size_t i), const void *frames,
		    bool truncated, const struct py_eval_range *eval, struct py_mframe *out,
		    size_t max, struct py_merge_stats *stats)
{
	struct py_merge_stats st = {0, 0};
	size_t n = 0, i, pi = 0;
	bool marked = false;

	for (i = 0; i < npcs; i++) {
		/* a return address lies after its call: look up the call itself */
		uint64_t look = i ? pcs[i] - 1 : pcs[i];

		if (!in_eval(eval, look)) {
			put(out, max, &n, PY_MF_NATIVE, (uint32_t)i);
			continue;
		}
		if (pi >= nframes) {
			/* the interpreter's walk was cut before this activation's frames */
			if (truncated && !marked) {
				put(out, max, &n, PY_MF_TRUNCATED, 0);
				marked = true;
			} else if (!truncated) {
				st.eval_without_python++;
			}
			put(out, max, &n, PY_MF_NATIVE, (uint32_t)i);
			continue;
		}
		while (pi < nframes) {
			bool entry = is_entry(frames, pi);

			put(out, max, &n, PY_MF_PYTHON, (uint32_t)pi);
			pi++;
			if (entry)
				break;
		}
	}
	/* frames of activations the native walk did not reach */
	if (pi < nframes)
		st.python_leftover += (unsigned int)(nframes - pi);
	for (; pi < nframes; pi++)
		put(out, max, &n, PY_MF_PYTHON, (uint32_t)pi);
	if (truncated && !marked)
		put(out, max, &n, PY_MF_TRUNCATED, 0);
	if (stats) {
		stats->eval_without_python += st.eval_without_python;
		stats->python_leftover += st.python_leftover;
	}
	return n;
}

static bool py_entry(const void *frames, size_t i)
{
	return ((const struct cp_py_frame *)frames)[i].flags & CP_PY_FF_ENTRY;
}

size_t py_merge(const uint64_t *pcs, size_t npcs, const struct cp_py_frame *py, size_t npy,
		bool py_truncated, const struct py_eval_range *eval, struct py_mframe *out,
		size_t max, struct py_merge_stats *stats)
{
	return interp_merge(pcs, npcs, npy, py_entry, py, py_truncated, eval, out, max, stats);
}
