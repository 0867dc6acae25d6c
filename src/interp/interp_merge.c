// SPDX-License-Identifier: GPL-2.0
/* The merge of interpreter and native frames (interp_merge.h). */
#include "interp/interp_merge.h"

static bool in_eval(const struct rt_eval_range *e, uint64_t pc)
{
	/* the JIT hook's pseudo pc: start + 1, looked up as itself (a leaf) or less one */
	for (size_t i = 0; i < e->n_jit; i++)
		if (pc == e->jit[i].start || pc == e->jit[i].start + 1)
			return true;
	if (e->n_jit)
		return false;
	return (pc >= e->start && pc < e->end) ||
	       (e->cold_start && pc >= e->cold_start && pc < e->cold_end);
}

static void put(struct rt_mframe *out, size_t max, size_t *n, enum rt_mframe_kind kind,
		uint32_t index)
{
	if (*n >= max)
		return;
	out[*n].kind = kind;
	out[*n].index = index;
	(*n)++;
}

size_t interp_merge(const uint64_t *pcs, size_t npcs, bool whole, const struct cp_rt_frame *frames,
		    size_t nframes, bool truncated, const struct rt_eval_range *eval,
		    struct rt_mframe *out, size_t max, struct rt_merge_stats *stats)
{
	struct rt_merge_stats st = {0, 0, 0};
	size_t n = 0, i, pi = 0;
	bool marked = false;

	for (i = 0; i < npcs; i++) {
		/* a return address lies after its call: look up the call itself */
		uint64_t look = i ? pcs[i] - 1 : pcs[i];

		if (!in_eval(eval, look)) {
			put(out, max, &n, RT_MF_NATIVE, (uint32_t)i);
			continue;
		}
		if (pi >= nframes) {
			/* the interpreter's walk was cut before this activation's frames */
			if (truncated && !marked) {
				put(out, max, &n, RT_MF_TRUNCATED, 0);
				marked = true;
			} else if (!truncated) {
				st.eval_without_frames++;
			}
			put(out, max, &n, RT_MF_NATIVE, (uint32_t)i);
			continue;
		}
		while (pi < nframes) {
			bool entry = frames[pi].flags & CP_RT_FF_ENTRY;

			put(out, max, &n, RT_MF_INTERP, (uint32_t)pi);
			pi++;
			if (entry)
				break;
		}
	}
	if (pi == 0 && nframes && whole) {
		/* no activation on a whole stack: stale state, not this sample's */
		st.frames_stale += (unsigned int)nframes;
		nframes = 0;
		truncated = false;
	}
	/* frames of activations the native walk did not reach */
	if (pi < nframes)
		st.frames_leftover += (unsigned int)(nframes - pi);
	for (; pi < nframes; pi++)
		put(out, max, &n, RT_MF_INTERP, (uint32_t)pi);
	if (truncated && !marked)
		put(out, max, &n, RT_MF_TRUNCATED, 0);
	if (stats) {
		stats->eval_without_frames += st.eval_without_frames;
		stats->frames_leftover += st.frames_leftover;
		stats->frames_stale += st.frames_stale;
	}
	return n;
}
