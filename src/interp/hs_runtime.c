// SPDX-License-Identifier: GPL-2.0
/*
 * HotSpot's descriptor (runtime.h): hs_detect_process, the CodeCache as its one JIT range (the
 * JIT hook's, bpf/hotspot_step.bpf.h) and as the range whose pseudo pcs its frames replace.
 * Its frames are named from what BPF copies ("pkg.Class.method", the source file).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "interp/hs_detect.h"
#include "interp/hs_runtime.h"
#include "interp/runtime.h"

static int attach(struct proc_snapshot *ps, uint32_t pid, uint32_t gen, struct interp_plain *plain,
		  void *proc, void **state, char *why, size_t why_size)
{
	struct cp_hs_proc *out = proc;
	int err = hs_detect_process(ps, pid, gen, plain, out, why, why_size);
	uint32_t v = out->version;

	*state = NULL;
	if (!err)
		snprintf(why, why_size, "HotSpot %u.%u.%u (%u code heaps)", v >> 16,
			 (v >> 8) & 0xff, v & 0xff, out->n_heaps);
	return err;
}

static void state_free(void *state)
{
	(void)state;
}

static void eval(const void *proc, struct rt_eval_range *out)
{
	const struct cp_hs_proc *p = proc;

	*out = (struct rt_eval_range){p->cc_low, p->cc_high, 0, 0};
}

static size_t jit(const void *proc, struct cp_rt_jit_range *out, size_t max)
{
	const struct cp_hs_proc *p = proc;

	if (!max || p->cc_high <= p->cc_low)
		return 0;
	out[0] = (struct cp_rt_jit_range){p->cc_low, p->cc_high};
	return 1;
}

static const char *const ends[CP_RT_END_MAX] = {
	[CP_HS_END_OK] = "whole",
	[CP_HS_END_NO_PROC] = "no JVM",
	[CP_HS_END_NO_FRAMES] = "no Java frames",
	[CP_HS_END_NO_BLOB] = "pc in no code blob",
	[CP_HS_END_BAD_FP] = "interpreter frame without its frame pointer",
	[CP_HS_END_READ] = "unreadable",
};

const struct runtime hs_runtime = {
	.id = CP_RT_JAVA,
	.name = "Java",
	.prefix = "java",
	.truncated = "[java truncated]",
	.ends = ends,
	.end_truncated = CP_HS_END_READ,
	.attach = attach,
	.state_free = state_free,
	.name_frame = NULL,
	.eval = eval,
	.pos_is_line = false,
	.jit = jit,
};
